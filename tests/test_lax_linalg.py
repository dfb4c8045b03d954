"""lax.linalg's primitives: residual bounds against numpy on every device (batched, 1x1,
sizes that are no multiple of anything, rectangular, ill-conditioned), their JVP /
transpose rules through the generic checker, vmap and jit, JAX's error messages.

Residual bounds, for float32 (eps = 2^-23) and n the matrix size, as LAPACK reaches:
  cholesky ‖A − L Lᵀ‖ / ‖A‖ ≤ 8 n eps, lu ‖A[perm] − L U‖ / ‖A‖ ≤ 8 n eps,
  qr ‖A − Q R‖ / ‖A‖ and ‖Qᵀ Q − I‖ ≤ 8 n eps, eigh ‖A V − V diag(w)‖ / ‖A‖ and
  ‖Vᵀ V − I‖ ≤ 8 n eps, svd ‖A − U S Vh‖ / ‖A‖ ≤ 8 n eps, solves
  ‖op(T) x − b‖ / (‖T‖ ‖x‖) ≤ 8 n eps (backward error, also for ill-conditioned T).
To keep the wasm runtime's module count small every device sees the same few shapes:
a batch (2, 5, 5), a 1x1 and a 6x4 (and its transpose).
"""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb.lax import linalg as L
from rule_checker import check_grads, check_vmap

#: unmarked tests (rules, vmap, errors) run on the reference backend (conftest.py); the
#: kernels are checked on every device by the marked tests
REFERENCE_BY_DEFAULT = True


EPS = float(np.finfo(np.float32).eps)
R = np.random.RandomState(0)
A = R.randn(2, 5, 5).astype(np.float32)
HILB = (1.0 / (np.arange(5)[:, None] + np.arange(5)[None, :] + 1)).astype(np.float32)  # cond ~5e5
A[1] = HILB
SPD = (A @ np.swapaxes(A, -1, -2) + 1e-3 * np.eye(5)).astype(np.float32)
SPD[1] = HILB
TALL = R.randn(6, 4).astype(np.float32)
ONE = np.array([[2.5]], np.float32)


def bound(n):
    return 8 * n * EPS


def rel(resid, a):
    return np.linalg.norm(resid) / np.linalg.norm(a)


def np_(x):
    return np.asarray(x, np.float64)


def _check_cholesky(a):
    low = np_(L.cholesky(a))
    n = a.shape[-1]
    assert np.allclose(np.triu(low, 1), 0)
    for i in np.ndindex(a.shape[:-2]):
        assert rel(a[i] - low[i] @ low[i].T, a[i]) <= bound(n), i


def _check_lu(a):
    lu, piv, perm = (np.asarray(x) for x in L.lu(a))
    m, n = a.shape[-2:]
    k = min(m, n)
    assert piv.shape == a.shape[:-2] + (k,) and perm.shape == a.shape[:-2] + (m,)
    for i in np.ndindex(a.shape[:-2]):
        low = np.tril(lu[i], -1)[:, :k] + np.eye(m, k)
        up = np.triu(lu[i])[:k]
        assert rel(a[i][perm[i]] - low @ up, a[i]) <= bound(max(m, n)), i
        assert np.all(np.abs(low) <= 1 + 1e-6)  # partial pivoting
        assert sorted(perm[i]) == list(range(m))


def _check_qr(a):
    for full in (True, False):
        q, r = (np_(x) for x in L.qr(a, full_matrices=full))
        m, n = a.shape[-2:]
        assert q.shape[-2:] == ((m, m) if full else (m, min(m, n)))
        for i in np.ndindex(a.shape[:-2]):
            assert rel(a[i] - q[i] @ r[i], a[i]) <= bound(m), i
            assert np.linalg.norm(q[i].T @ q[i] - np.eye(q.shape[-1])) <= bound(m)
            assert np.allclose(np.tril(r[i], -1), 0)


def _check_eigh(a):
    v, w = (np_(x) for x in L.eigh(a))
    n = a.shape[-1]
    for i in np.ndindex(a.shape[:-2]):
        assert rel(a[i] @ v[i] - v[i] * w[i], a[i]) <= bound(n), i
        assert np.linalg.norm(v[i].T @ v[i] - np.eye(n)) <= bound(n)
        assert np.all(np.diff(w[i]) >= 0)
        np.testing.assert_allclose(w[i], np.linalg.eigvalsh(a[i].astype(np.float64)),
                                   atol=bound(n) * np.abs(w[i]).max())


def _check_svd(a):
    m, n = a.shape[-2:]
    k = min(m, n)
    for full in (True, False):
        u, s, vh = (np_(x) for x in L.svd(a, full_matrices=full))
        for i in np.ndindex(a.shape[:-2]):
            assert rel(a[i] - (u[i][:, :k] * s[i]) @ vh[i][:k], a[i]) <= bound(max(m, n)), i
            assert np.linalg.norm(u[i].T @ u[i] - np.eye(u.shape[-1])) <= bound(max(m, n))
            assert np.linalg.norm(vh[i] @ vh[i].T - np.eye(vh.shape[-2])) <= bound(max(m, n))
            np.testing.assert_allclose(s[i], np.linalg.svd(a[i].astype(np.float64), compute_uv=False),
                                       atol=bound(max(m, n)) * s[i].max())
    np.testing.assert_allclose(L.svd(a, compute_uv=False), np_(L.svd(a)[1]), rtol=1e-6, atol=1e-6)


def _check_triangular_solve(t, b):
    n = t.shape[-1]
    for left in (True, False):
        bb = b if left else np.swapaxes(b, -1, -2)
        for lower in (True, False):
            for trans in (False, True):
                for unit in (False, True):
                    x = np_(L.triangular_solve(t, bb, left_side=left, lower=lower, transpose_a=trans,
                                               unit_diagonal=unit))
                    tt = np.tril(t) if lower else np.triu(t)
                    if unit:
                        tt = tt - np.diagonal(tt, axis1=-2, axis2=-1)[..., None] * np.eye(n) + np.eye(n)
                    op = np.swapaxes(tt, -1, -2) if trans else tt
                    res = op @ x - bb if left else x @ op - bb
                    for i in np.ndindex(t.shape[:-2]):
                        scale = np.linalg.norm(op[i]) * np.linalg.norm(x[i])
                        assert np.linalg.norm(res[i]) <= bound(n) * scale, (left, lower, trans, unit, i)


def _check_tridiagonal(dl, d, du, b):
    x = np_(L.tridiagonal_solve(dl, d, du, b))
    m = d.shape[-1]
    for i in np.ndindex(d.shape[:-1]):
        t = np.diag(d[i]) + np.diag(dl[i][1:], -1) + np.diag(du[i][:-1], 1)
        assert np.linalg.norm(t @ x[i] - b[i]) <= bound(m) * np.linalg.norm(t) * np.linalg.norm(x[i])


@pytest.mark.on_every_device
def test_factorizations_residuals():
    for a in (SPD, ONE):
        _check_cholesky(a)
        _check_eigh(a)
    for a in (A, ONE, TALL, TALL.T):
        _check_lu(a)
        _check_qr(a)
        _check_svd(a)
    tri = np.tril(A) + 3 * np.eye(5, dtype=np.float32)  # batch 0 well-, batch 1 ill-conditioned
    tri[1] = np.linalg.cholesky(HILB.astype(np.float64)).astype(np.float32)
    _check_triangular_solve(np.triu(tri) + np.tril(tri), A)
    dl, d, du = R.randn(3, 2, 5).astype(np.float32)
    _check_tridiagonal(dl, d + 4 * np.sign(d), du, A)


@pytest.mark.on_every_device
def test_singular_and_indefinite_like_jax():
    low = np.asarray(L.cholesky(-np.eye(2, dtype=np.float32)))
    assert np.isnan(low[np.tril_indices(2)]).all() and low[0, 1] == 0  # JAX's NaN pattern
    lu, piv, perm = L.lu(np.ones((2, 2), np.float32))
    assert np.asarray(lu).tolist() == [[1.0, 1.0], [1.0, 0.0]] and piv.tolist() == [0, 1]
    x = np.asarray(L.triangular_solve(np.asarray(lu), np.ones((2, 1), np.float32), left_side=True))
    assert np.isinf(x).any() or np.isnan(x).any()


def _sym(x):
    return (x + x.T) / 2


def test_jvp_and_transpose_rules():
    spd = SPD[0].astype(np.float32) + np.eye(5, dtype=np.float32)
    check_grads(L.cholesky, (spd,), order=1, modes=("fwd", "rev"))
    t = np.tril(A[0]) + 3 * np.eye(5, dtype=np.float32)
    for left in (True, False):
        for trans in (False, True):
            f = lambda a, b: L.triangular_solve(a, b, left_side=left, lower=True, transpose_a=trans)  # noqa: E731
            check_grads(f, (t, A[1]), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: L.lu(a)[0], (A[0],), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: L.qr(a, full_matrices=False), (TALL,), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: L.qr(a), (A[0],), order=1, modes=("fwd", "rev"))
    # eigenvector signs are arbitrary: differentiate sign-invariant functions of them
    check_grads(lambda a: L.eigh(_sym(a))[1], (A[0],), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: (lambda v: v * v)(L.eigh(_sym(a))[0]), (A[0],), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: L.svd(a, compute_uv=False), (TALL,), order=1, modes=("fwd", "rev"))

    def svd_invariant(a):  # U S Vh and U Uᵀ do not depend on the column signs
        u, s, vh = L.svd(a, full_matrices=False)
        return (u * s) @ vh, u @ u.T, vh.T @ vh
    check_grads(svd_invariant, (TALL,), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
    check_grads(svd_invariant, (TALL.T,), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
    dl, d, du = R.randn(3, 5).astype(np.float32)
    check_grads(L.tridiagonal_solve, (dl, d + 4 * np.sign(d), du, A[0]), order=1, modes=("fwd", "rev"))


def test_vmap_and_jit():
    check_vmap(L.cholesky, (SPD,))
    check_vmap(lambda a: L.lu(a)[0], (A,))
    check_vmap(lambda a: L.qr(a)[1], (A,))
    check_vmap(lambda a: L.svd(a, compute_uv=False), (A,))
    check_vmap(lambda a: L.eigh(a)[1], (SPD,))
    check_vmap(lambda a, b: L.triangular_solve(a, b, left_side=True, lower=True), (A, A[0]), in_axes=(0, None))
    check_vmap(lambda a, b: L.triangular_solve(a, b, left_side=True), (A[0], A), in_axes=(None, 0))
    lu = jax.jit(lambda a: L.lu(a))(A)
    for got, want in zip(lu, L.lu(A)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
    assert jax.jit(jax.vmap(L.cholesky))(SPD).shape == (2, 5, 5)


def test_lu_pivots_to_permutation():
    piv = np.array([[2, 2, 3], [0, 1, 2]], np.int32)
    assert L.lu_pivots_to_permutation(piv, 4).tolist() == [[2, 0, 3, 1], [0, 1, 2, 3]]


ERRORS = [  # (call, exception type, JAX's message (as of 0.10))
    (lambda: L.triangular_solve(jnp.ones((2, 3)), jnp.ones((2, 2))), ValueError,
     "The first input to triangular_solve must be a square matrix. Got shape (2, 3)."),
    (lambda: L.triangular_solve(jnp.ones((3, 3)), jnp.ones((2, 2)), left_side=True), ValueError,
     "Incompatible shapes for arguments to triangular_solve: (3, 3) and (2, 2)."),
    (lambda: L.lu(jnp.ones((3,))), TypeError, "Input 0 to lu must have rank at least 2, but got shape=(3,)"),
    (lambda: L.qr(jnp.ones((3,))), TypeError, "Input 0 to qr must have rank at least 2, but got shape=(3,)"),
    (lambda: L.svd(jnp.ones((3,))), TypeError, "Input 0 to svd must have rank at least 2, but got shape=(3,)"),
    (lambda: L.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(3), jnp.ones(3)), TypeError,
     "Input 3 to tridiagonal_solve must have rank at least 2, but got shape=(3,)"),
    (lambda: L.tridiagonal_solve(jnp.ones(3), jnp.ones(4), jnp.ones(3), jnp.ones((3, 1))), TypeError,
     "tridiagonal_solve requires that all diagonal arguments have the same shape."),
    (lambda: L.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(3), jnp.ones((4, 1))), TypeError,
     "tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the dimensions of the "
     "diagonal arguments."),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_jax(k):
    call, typ, msg = ERRORS[k]
    with pytest.raises(typ) as info:
        call()
    assert str(info.value) == msg


@pytest.mark.on_every_device
def test_blocked_paths_several_blocks():
    """Small blocks so that the 5x5 batch spans several blocks and a padded last block."""
    from jaxweb._src.lax import linalg_algorithms as alg
    _check_cholesky_fn(jax.jit(lambda a: alg.cholesky(a, block=2)), SPD)


def _check_cholesky_fn(fn, a):
    low = np_(fn(a))
    np.testing.assert_allclose(low, np.linalg.cholesky(a.astype(np.float64)), rtol=1e-3, atol=1e-4)


@pytest.mark.on_every_device
def test_blocked_triangular_solve_several_blocks():
    from jaxweb._src.lax import linalg_algorithms as alg
    t = A + 6 * np.eye(5, dtype=np.float32)
    for lower, trans in ((True, False), (False, True)):
        f = jax.jit(lambda a, b: alg.triangular_solve(a, b, True, lower, trans, False, block=2))
        op = (np.tril(t) if lower else np.triu(t))
        op = np.swapaxes(op, -1, -2) if trans else op
        np.testing.assert_allclose(np_(op @ np_(f(t, A))), A, rtol=1e-4, atol=1e-4)


@pytest.mark.on_every_device
def test_blocked_lu_several_blocks():
    from jaxweb._src.lax import linalg_algorithms as alg
    sing = A.copy()
    sing[0, :, 2] = 0  # a zero pivot column in the second block
    for a in (A, sing):
        lu, piv, perm = (np.asarray(x) for x in jax.jit(lambda a: alg.lu(a, block=2))(a))
        want = [np.asarray(x) for x in alg._lu_columns(a)]
        np.testing.assert_array_equal(piv, want[1])
        np.testing.assert_array_equal(perm, want[2])
        np.testing.assert_allclose(lu, want[0], rtol=1e-4, atol=1e-5)


def test_batch_is_one_computation():
    """A stack of matrices (or vmap) runs the same program as one matrix, not a loop."""
    from kernel_count import count_kernels
    counts = []
    for a in (SPD[:1], np.concatenate([SPD] * 4)):
        f = jax.jit(lambda a: L.cholesky(a))
        f(a).block_until_ready()
        with count_kernels() as ks:
            f(a).block_until_ready()
        counts.append(len(ks))
    with count_kernels() as ks:
        jax.jit(jax.vmap(L.cholesky))(np.concatenate([SPD] * 4)).block_until_ready()
    assert counts[0] == counts[1] == len(ks), (counts, len(ks))
