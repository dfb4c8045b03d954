"""complex64 linear algebra: lax.linalg's primitives, jnp.linalg and jaxweb.scipy.linalg on
complex input, against numpy/scipy (values, residual bounds) and JAX (dtypes, gradients,
pivots and R's diagonal: recorded in tests/data/jax_linalg_complex_reference.json by
tests/data/record_jax_linalg_complex.py).

Residual bounds are the real tests' (test_lax_linalg.py), 8 n eps, with conjugate
transposes: ‖A − L Lᴴ‖/‖A‖, ‖A[perm] − L U‖/‖A‖, ‖A − Q R‖/‖A‖ and ‖Qᴴ Q − I‖,
‖A V − V diag(w)‖/‖A‖ and ‖Vᴴ V − I‖, ‖A − U S Vh‖/‖A‖, solves' backward error.
Shapes: a batch (2, 5, 5) (one ill-conditioned), 1x1, 6x4 and its transpose, and one
33x33 (past the 32-column block) for the blocked factorizations.
"""
import json
import os

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.scipy.linalg as jsl
from jaxweb.lax import linalg as L
from rule_checker import check_grads, check_vmap

sp = pytest.importorskip("scipy.linalg")


#: unmarked tests (rules, vmap, errors) run on the reference backend (conftest.py); the
#: kernels are checked on every device by the marked tests
REFERENCE_BY_DEFAULT = True


EPS = float(np.finfo(np.float32).eps)
R = np.random.RandomState(3)


def crandn(*shape):
    return (R.randn(*shape) + 1j * R.randn(*shape)).astype(np.complex64)


def herm_pd(a):
    n = a.shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + 1e-2 * np.eye(n)).astype(np.complex64)


A = crandn(2, 5, 5)
HILB = (1.0 / (np.arange(5)[:, None] + np.arange(5)[None, :] + 1)).astype(np.complex64)
A[1] = HILB * np.exp(0.3j * np.arange(5))[None, :]  # ill-conditioned, complex
HPD = herm_pd(A)
HPD[1] = HILB
TALL = crandn(6, 4)
ONE = np.array([[2.5 - 1.0j]], np.complex64)
BIG = crandn(33, 33)

with open(os.path.join(os.path.dirname(__file__), "data", "jax_linalg_complex_reference.json")) as _f:
    REF = json.load(_f)


def ref(key):
    d = REF[key] if isinstance(key, str) else key
    x = np.asarray(d["re"]) + (1j * np.asarray(d["im"]) if d["dtype"].startswith("complex") else 0)
    return x.reshape(d["shape"]).astype(d["dtype"])


def bound(n):
    return 8 * n * EPS


def rel(resid, a):
    return np.linalg.norm(resid) / np.linalg.norm(a)


def c128(x):
    return np.asarray(x).astype(np.complex128)


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def close(got, want, tol=2e-5):
    got = np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


# ---------------------------------------------------------------- residuals, every device
def _check_cholesky(a):
    low = c128(L.cholesky(a))
    assert low.dtype == np.complex128 and np.allclose(np.triu(low, 1), 0)
    for i in np.ndindex(a.shape[:-2]):
        assert rel(a[i] - low[i] @ H(low[i]), a[i]) <= bound(a.shape[-1]), i


def _check_lu(a):
    lu, piv, perm = (np.asarray(x) for x in L.lu(a))
    m, n = a.shape[-2:]
    k = min(m, n)
    for i in np.ndindex(a.shape[:-2]):
        low = np.tril(c128(lu[i]), -1)[:, :k] + np.eye(m, k)
        up = np.triu(c128(lu[i]))[:k]
        assert rel(a[i][perm[i]] - low @ up, a[i]) <= bound(max(m, n)), i
        assert np.all(np.abs(low) <= np.sqrt(2) + 1e-6)  # pivots by |re| + |im|: |l| <= √2


def _check_qr(a):
    m, n = a.shape[-2:]
    for full in (True, False):
        q, r = (c128(x) for x in L.qr(a, full_matrices=full))
        for i in np.ndindex(a.shape[:-2]):
            assert rel(a[i] - q[i] @ r[i], a[i]) <= bound(m), i
            assert np.linalg.norm(H(q[i]) @ q[i] - np.eye(q.shape[-1])) <= bound(m)
            assert np.allclose(np.tril(r[i], -1), 0)
            assert np.abs(np.diagonal(r[i]).imag).max() <= bound(m) * np.abs(r[i]).max()  # real, as LAPACK's


def _check_eigh(a):
    v, w = L.eigh(a)
    assert np.asarray(w).dtype == np.float32 and np.asarray(v).dtype == np.complex64
    v, w = c128(v), np.asarray(w, np.float64)
    n = a.shape[-1]
    for i in np.ndindex(a.shape[:-2]):
        assert rel(a[i] @ v[i] - v[i] * w[i], a[i]) <= bound(n), i
        assert np.linalg.norm(H(v[i]) @ v[i] - np.eye(n)) <= bound(n)
        np.testing.assert_allclose(w[i], np.linalg.eigvalsh(c128(a[i])), atol=bound(n) * np.abs(w[i]).max())


def _check_svd(a):
    m, n = a.shape[-2:]
    k = min(m, n)
    for full in (True, False):
        u, s, vh = L.svd(a, full_matrices=full)
        assert np.asarray(s).dtype == np.float32
        u, s, vh = c128(u), np.asarray(s, np.float64), c128(vh)
        for i in np.ndindex(a.shape[:-2]):
            assert rel(a[i] - (u[i][:, :k] * s[i]) @ vh[i][:k], a[i]) <= bound(max(m, n)), i
            assert np.linalg.norm(H(u[i]) @ u[i] - np.eye(u.shape[-1])) <= bound(max(m, n))
            assert np.linalg.norm(vh[i] @ H(vh[i]) - np.eye(vh.shape[-2])) <= bound(max(m, n))
            np.testing.assert_allclose(s[i], np.linalg.svd(c128(a[i]), compute_uv=False),
                                       atol=bound(max(m, n)) * s[i].max())


def _check_triangular_solve(t, b):
    n = t.shape[-1]
    for left in (True, False):
        bb = b if left else np.swapaxes(b, -1, -2)
        for lower in (True, False):
            for trans, conj in ((False, False), (True, False), (True, True), (False, True)):
                for unit in (False, True):
                    x = c128(L.triangular_solve(t, bb, left_side=left, lower=lower, transpose_a=trans,
                                                conjugate_a=conj, unit_diagonal=unit))
                    tt = np.tril(t) if lower else np.triu(t)
                    if unit:
                        tt = tt - np.diagonal(tt, axis1=-2, axis2=-1)[..., None] * np.eye(n) + np.eye(n)
                    op = np.swapaxes(tt, -1, -2) if trans else tt
                    op = np.conj(op) if conj else op
                    res = op @ x - bb if left else x @ op - bb
                    for i in np.ndindex(t.shape[:-2]):
                        scale = np.linalg.norm(op[i]) * np.linalg.norm(x[i])
                        assert np.linalg.norm(res[i]) <= bound(n) * scale, (left, lower, trans, conj, unit, i)


@pytest.mark.on_every_device
def test_factorizations_residuals():
    for a in (HPD, ONE * np.conj(ONE)):
        _check_cholesky(a)
        _check_eigh(a)
    for a in (A, ONE, TALL, TALL.T):
        _check_lu(a)
        _check_qr(a)
        _check_svd(a)
    tri = np.tril(A) + 3 * np.eye(5, dtype=np.complex64)
    _check_triangular_solve(np.triu(tri) + np.tril(tri), A)


@pytest.mark.on_every_device
def test_blocked_paths_several_blocks():
    """Blocks of 2 so that the 5x5 batch spans several blocks and a padded last block (the
    block size is 32: the same code as for n = 33, at a size every device runs quickly)."""
    from jaxweb._src.lax import linalg_algorithms as alg
    low = c128(jax.jit(lambda a: alg.cholesky(a, block=2))(HPD))
    close(low, np.linalg.cholesky(c128(HPD)), 1e-3)
    t = A + 6 * np.eye(5, dtype=np.complex64)
    for lower, trans in ((True, False), (False, True)):
        f = jax.jit(lambda a, b: alg.triangular_solve(a, b, True, lower, trans, False, block=2))
        op = np.tril(t) if lower else np.triu(t)
        op = np.swapaxes(op, -1, -2) if trans else op
        close(op @ c128(f(t, A)), A, 1e-4)
    lu, piv, perm = (np.asarray(x) for x in jax.jit(lambda a: alg.lu(a, block=2))(A))
    want = [np.asarray(x) for x in alg._lu_columns(A)]
    np.testing.assert_array_equal(piv, want[1])
    np.testing.assert_array_equal(perm, want[2])
    close(lu, want[0], 1e-4)


def test_past_one_block_33():
    """n = 33: two blocks of 32, the second padded; on wasm only (the reference interpreter
    takes minutes at this size; the algorithm is the one checked above on every device)."""
    try:
        wasm = jax.devices("wasm")[0]
    except RuntimeError:
        pytest.skip("no wasm device")
    with jax.default_device(wasm):
        _check_cholesky(herm_pd(BIG))
        _check_lu(BIG)
        tri = np.tril(BIG) + 6 * np.eye(33, dtype=np.complex64)
        x = c128(L.triangular_solve(tri, BIG, left_side=True, lower=True, transpose_a=True, conjugate_a=True))
    assert np.linalg.norm(H(tri) @ x - BIG) <= bound(33) * np.linalg.norm(tri) * np.linalg.norm(x)


# ---------------------------------------------------------------- JAX's conventions
def test_dtypes_pivots_and_r_as_jax():
    a, h, tall = ref("a"), ref("h"), ref("tall")
    want = REF["dtypes"]
    got = {
        "eigh": [x.dtype.name for x in jnp.linalg.eigh(h)],
        "svd": [x.dtype.name for x in jnp.linalg.svd(tall)],
        "slogdet": [x.dtype.name for x in jnp.linalg.slogdet(a)],
        "lstsq": [jnp.asarray(x).dtype.name for x in jnp.linalg.lstsq(tall, tall[:, 0])],
        "matrix_rank": jnp.linalg.matrix_rank(tall).dtype.name,
        "norm2": jnp.linalg.norm(tall, 2).dtype.name, "cond": jnp.linalg.cond(a).dtype.name,
        "pinv": jnp.linalg.pinv(tall).dtype.name, "det": jnp.linalg.det(a).dtype.name,
        "cholesky": jnp.linalg.cholesky(h).dtype.name, "eigvalsh": jnp.linalg.eigvalsh(h).dtype.name,
    }
    assert got == want
    lu, piv, perm = L.lu(a)
    assert np.asarray(piv).tolist() == ref(REF["lu"][1]).tolist()  # |re| + |im| pivoting, as LAPACK
    assert np.asarray(perm).tolist() == ref(REF["lu"][2]).tolist()
    close(lu, ref(REF["lu"][0]), 1e-5)
    close(jnp.linalg.qr(tall)[1], ref("qr_r"), 1e-5)  # LAPACK's signs: real diagonal -sign(Re x0)‖x‖


def test_jnp_linalg_against_numpy():
    a, b, tall = A[0], crandn(5, 3), TALL
    h = HPD[0] + np.eye(5, dtype=np.complex64)
    close(jnp.linalg.det(a), np.linalg.det(c128(a)), 1e-5)
    close(jnp.linalg.det(ONE), ONE[0, 0])
    sign, logdet = jnp.linalg.slogdet(a)
    s_np, l_np = np.linalg.slogdet(c128(a))
    close(sign, s_np, 1e-5)
    close(logdet, l_np, 1e-5)
    assert jnp.linalg.slogdet(np.zeros((3, 3), np.complex64)).sign == 0
    close(jnp.linalg.solve(a, b), np.linalg.solve(c128(a), b), 1e-4)
    close(jnp.linalg.solve(a, b[:, 0]), np.linalg.solve(c128(a), b[:, 0]), 1e-4)
    close(jnp.linalg.inv(a), np.linalg.inv(c128(a)), 1e-4)
    close(jnp.linalg.cholesky(h), np.linalg.cholesky(c128(h)), 1e-5)
    close(jnp.linalg.cholesky(h, upper=True), H(np.linalg.cholesky(c128(h))), 1e-5)
    close(jnp.linalg.eigvalsh(h), np.linalg.eigvalsh(c128(h)), 1e-5)
    close(jnp.linalg.eigh(h, UPLO="U").eigenvalues, np.linalg.eigvalsh(c128(h), UPLO="U"), 1e-5)
    q, r = jnp.linalg.qr(tall)
    close(np.asarray(q) @ np.asarray(r), tall, 1e-5)
    close(jnp.linalg.qr(tall, mode="r"), np.linalg.qr(c128(tall), mode="r"), 1e-5)
    for x in (tall, tall.T, a):
        close(jnp.linalg.svdvals(x), np.linalg.svd(c128(x), compute_uv=False), 1e-5)
        close(jnp.linalg.pinv(x), np.linalg.pinv(c128(x)), 1e-4)
        for ord in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
            close(jnp.linalg.norm(x, ord), np.linalg.norm(c128(x), ord), 1e-5)
        close(jnp.linalg.matrix_norm(x, ord=2), np.linalg.norm(c128(x), 2), 1e-5)
        close(jnp.linalg.vector_norm(x), np.linalg.norm(c128(x)), 1e-5)
        close(jnp.linalg.cond(x), np.linalg.cond(c128(x)), 1e-4)
    close(jnp.linalg.svd(h, hermitian=True).S, np.linalg.svd(c128(h), compute_uv=False), 1e-5)
    u, s, vh = jnp.linalg.svd(h, hermitian=True)
    close((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), h, 1e-5)
    assert int(jnp.linalg.matrix_rank(tall)) == 4
    assert int(jnp.linalg.matrix_rank(tall[:, :1] * np.ones((1, 3), np.complex64))) == 1
    rhs = crandn(6)
    x, resid, rank, s = jnp.linalg.lstsq(tall, rhs)
    want = np.linalg.lstsq(c128(tall), rhs, rcond=None)
    close(x, want[0], 1e-4)
    close(resid, want[1], 1e-4)
    assert int(rank) == want[2]


def test_scipy_linalg_against_scipy():
    a, b, v = A[0] + 3 * np.eye(5, dtype=np.complex64), crandn(5, 3), crandn(5)
    h = HPD[0] + np.eye(5, dtype=np.complex64)
    for lower in (False, True):
        for trans in (0, 1, 2, "N", "T", "C"):
            close(jsl.solve_triangular(a, b, trans=trans, lower=lower),
                  sp.solve_triangular(c128(a), b, trans=trans, lower=lower), 1e-4)
        c = jsl.cho_factor(h, lower=lower)
        close(jsl.cho_solve(c, b), sp.cho_solve(sp.cho_factor(c128(h), lower=lower), b), 1e-4)
        close(jsl.cho_solve(c, v), np.linalg.solve(c128(h), v), 1e-4)
    close(jsl.cholesky(h), sp.cholesky(c128(h)), 1e-5)
    lu_, piv = jsl.lu_factor(a)
    lu_s, piv_s = sp.lu_factor(c128(a))
    assert np.asarray(piv).tolist() == piv_s.tolist()
    close(lu_, lu_s, 1e-5)
    for trans in (0, 1, 2):
        close(jsl.lu_solve((lu_, piv), b, trans=trans), sp.lu_solve((lu_s, piv_s), b, trans=trans), 1e-4)
    for x in (a, TALL, TALL.T):
        for got, want in zip(jsl.lu(x), sp.lu(c128(x))):
            close(got, want, 1e-5)
    close(jsl.inv(a), sp.inv(c128(a)), 1e-4)
    close(jsl.det(a), sp.det(c128(a)), 1e-5)
    close(jsl.solve(a, b), sp.solve(c128(a), b), 1e-4)
    for assume_a in ("her", "pos", "sym"):
        for lower in (False, True):
            m = h if assume_a != "sym" else a + a.T
            close(jsl.solve(m, b, assume_a=assume_a, lower=lower),
                  sp.solve(c128(m), b, assume_a=assume_a, lower=lower), 1e-4)
    for side in ("right", "left"):
        u, p = jsl.polar(a, side=side)
        u_s, p_s = sp.polar(c128(a), side=side)
        close(u, u_s, 1e-4)
        close(p, p_s, 1e-4)


# ---------------------------------------------------------------- derivatives and batching
def _herm(x):
    return (x + jnp.conj(x.T)) / 2


def test_jvp_and_transpose_rules():
    a = A[0]
    h = HPD[0] + np.eye(5, dtype=np.complex64)
    check_grads(L.cholesky, (h,), order=1, modes=("fwd", "rev"))
    t = np.tril(a) + 3 * np.eye(5, dtype=np.complex64)
    for left in (True, False):
        for trans, conj in ((False, False), (True, False), (True, True), (False, True)):
            f = lambda x, y: L.triangular_solve(x, y, left_side=left, lower=True, transpose_a=trans,  # noqa: E731
                                                conjugate_a=conj)
            check_grads(f, (t, A[1]), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: L.lu(x)[0], (a,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: L.qr(x, full_matrices=False), (TALL,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: L.qr(x), (a,), order=1, modes=("fwd", "rev"))
    # eigenvectors are unique up to a phase: differentiate phase-invariant functions of them
    check_grads(lambda x: L.eigh(_herm(x))[1], (a,), order=1, modes=("fwd", "rev"))
    weights = jnp.arange(5.0)
    check_grads(lambda x: (lambda v: (v * weights) @ jnp.conj(v.T))(L.eigh(_herm(x))[0]), (a,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda x: L.svd(x, compute_uv=False), (TALL,), order=1, modes=("fwd", "rev"))

    def svd_invariant(x):  # U S Vh, U Uᴴ and Vhᴴ Vh do not depend on the columns' phases
        u, s, vh = L.svd(x, full_matrices=False)
        return (u * s) @ vh, u @ jnp.conj(u.T), jnp.conj(vh.T) @ vh
    check_grads(svd_invariant, (TALL,), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
    check_grads(svd_invariant, (TALL.T,), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
    for f in (jnp.linalg.det, jnp.linalg.slogdet, jnp.linalg.inv, lambda x: jnp.linalg.solve(x, A[1]),
              lambda x: jnp.linalg.norm(x, 2), jnp.linalg.pinv):
        check_grads(f, (a,), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)


def test_gradients_as_jax():
    a, h, tall = ref("a"), ref("h"), ref("tall")
    w16 = jnp.arange(16.0).reshape(4, 4)
    close(jax.grad(lambda x: jnp.abs(jnp.linalg.det(x)) ** 2)(a), ref("grad_absdet2"), 1e-4)
    t = jax.jvp(lambda x: jnp.linalg.slogdet(x), (a,), (1j * a + a.T,))[1]
    close(t[0], ref(REF["slogdet_jvp"][0]), 1e-4)
    close(t[1], ref(REF["slogdet_jvp"][1]), 1e-4)
    close(jax.grad(lambda x: jnp.sum(jnp.linalg.eigvalsh(x) * jnp.arange(4.0)))(h), ref("grad_eigvalsh"), 1e-4)
    close(jax.grad(lambda x: jnp.sum(jnp.linalg.svd(x, compute_uv=False) ** 3))(tall), ref("grad_svdvals"), 1e-4)
    close(jax.grad(lambda x: jnp.sum(jnp.abs(jnp.linalg.cholesky(x)) ** 2 * w16))(h), ref("grad_chol"), 1e-4)
    close(jax.grad(lambda x: jnp.real(jnp.sum(jnp.linalg.inv(x) * w16)))(a), ref("grad_inv"), 1e-4)
    close(jax.grad(lambda x: jnp.sum(jnp.abs(jnp.linalg.qr(x)[1]) ** 2 * jnp.arange(9.0).reshape(3, 3)))(tall),
          ref("grad_qr_r"), 1e-4)


def test_vmap_and_jit():
    t = np.tril(A) + 3 * np.eye(5, dtype=np.complex64)
    check_vmap(L.cholesky, (HPD,))
    check_vmap(lambda x: L.lu(x)[0], (A,))
    check_vmap(lambda x: L.qr(x)[1], (A,))
    check_vmap(lambda x: L.svd(x, compute_uv=False), (A,))
    check_vmap(lambda x: L.eigh(x)[1], (HPD,))
    check_vmap(lambda x, y: L.triangular_solve(x, y, left_side=True, lower=True, transpose_a=True,
                                               conjugate_a=True), (t, A[0]), in_axes=(0, None))
    batch = np.stack([A[0], A[0].T + 1j])  # well-conditioned (A[1]'s sign is good to cond * eps)
    got = jax.jit(jnp.linalg.slogdet)(batch)
    want = np.linalg.slogdet(c128(batch))
    close(got[0], want[0], 1e-4)
    close(got[1], want[1], 1e-4)


# ---------------------------------------------------------------- general eigenproblem
GENERAL = [np.array([[1., 2, 0], [0, 3, 1], [1, 0, 1]], np.float32),  # a complex pair
           np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], np.float32),  # a cycle: exceptional shifts
           np.array([[1, 1], [0, 1]], np.float32),  # defective
           np.array([[2.5]], np.float32), R.randn(2, 6, 6).astype(np.float32), crandn(5, 5)]


def _match(got, want):
    """Greatest distance from an eigenvalue to the nearest of the other set (both ways)."""
    d = np.abs(got[:, None] - want[None, :])
    return max(d.min(axis=1).max(), d.min(axis=0).max())


def _check_eig(a):
    w, vl, vr = L.eig(a)
    assert np.asarray(w).dtype == np.asarray(vr).dtype == np.complex64
    w, vl, vr = c128(w), c128(vl), c128(vr)
    n = a.shape[-1]
    for i in np.ndindex(a.shape[:-2]):
        ai = c128(a[i])
        assert _match(w[i], np.linalg.eigvals(ai)) <= 1e-4 * max(1.0, np.abs(w[i]).max())
        assert rel(ai @ vr[i] - vr[i] * w[i], ai) <= bound(n), i
        assert rel(H(vl[i]) @ ai - w[i][:, None] * H(vl[i]), ai) <= bound(n), i
        np.testing.assert_allclose(np.linalg.norm(vr[i], axis=0), 1, rtol=1e-5)
        top = vr[i][np.argmax(np.abs(vr[i]), axis=0), np.arange(n)]
        np.testing.assert_allclose(top.imag, 0, atol=1e-6)  # LAPACK's normalization


@pytest.mark.on_every_device
def test_eig_residuals():
    for a in GENERAL:
        _check_eig(a)


def test_eig_api_gradient_and_vmap():
    a = GENERAL[0]
    w, v = jnp.linalg.eig(a)
    assert _match(np.asarray(w), np.linalg.eigvals(a)) < 1e-5
    close(jnp.linalg.eigvals(a), np.asarray(w))
    assert jnp.linalg.eigvals(np.ones((2, 2), np.int32)).dtype == np.complex64
    # JAX's values: d/da sum(w²) = 2 aᵀ, jvp along I is 1 per eigenvalue
    close(jax.grad(lambda x: jnp.real(jnp.sum(jnp.linalg.eigvals(x) ** 2)))(a), 2 * a.T, 1e-4)
    close(jax.jvp(jnp.linalg.eigvals, (a,), (np.eye(3, dtype=np.float32),))[1], np.ones(3), 1e-5)
    check_grads(lambda x: jnp.linalg.eigvals(x), (crandn(4, 4),), order=1, modes=("fwd", "rev"),
                atol=2e-2, rtol=2e-2)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        jax.grad(lambda x: jnp.real(jnp.sum(jnp.linalg.eig(x)[1])))(a)
    with pytest.raises(ValueError, match=r"The input to eig must be a square matrix. Got shape \(2, 3\)."):
        jnp.linalg.eig(np.ones((2, 3), np.float32))
    batch = GENERAL[4]
    got = np.asarray(jax.vmap(jnp.linalg.eigvals)(batch))
    for i in range(2):
        assert _match(got[i], np.linalg.eigvals(batch[i])) < 1e-4


def test_schur_and_sqrtm():
    for a in (np.array([[4.0, 1.0], [0.0, 9.0]], np.float32), GENERAL[4][0] + 4 * np.eye(6, dtype=np.float32),
              crandn(4, 4), np.array([[2.0]], np.float32)):
        t, z = (c128(x) for x in jsl.schur(a, output="complex"))
        assert np.allclose(np.tril(t, -1), 0)
        assert rel(z @ t @ H(z) - a, a) <= bound(a.shape[-1])
        assert np.linalg.norm(H(z) @ z - np.eye(a.shape[-1])) <= bound(a.shape[-1])
        s = jsl.sqrtm(a)
        assert np.asarray(s).dtype == np.complex64
        close(s, sp.sqrtm(c128(a)), 1e-4)
    with pytest.raises(NotImplementedError, match="Blocked version is not implemented yet."):
        jsl.sqrtm(np.eye(2, dtype=np.float32), blocksize=2)
    with pytest.raises(ValueError, match="Expected 'output' to be either 'real' or 'complex', got output='x'."):
        jsl.schur(np.eye(2, dtype=np.float32), output="x")
    with pytest.raises(ValueError, match=r"The input to schur must be a square matrix. Got shape \(2, 3\)."):
        jsl.sqrtm(np.ones((2, 3), np.float32))


def test_roots_and_poly_of_a_matrix():
    def sorted_close(got, want):  # ordered by rounded parts: a root's 4e-8 real part must not reorder them
        got, want = np.asarray(got), np.asarray(want, np.complex128)
        order = lambda z: np.lexsort((np.round(z.imag, 4), np.round(z.real, 4)))  # noqa: E731
        close(got[order(got)], want[order(want)], 1e-5)
    sorted_close(jnp.roots(np.array([1.0, -3.0, 2.0], np.float32)), [1, 2])
    sorted_close(jnp.roots(np.array([0.0, 0.0, 1.0, 0.0, 4.0], np.float32)), [2j, -2j])  # leading zeros stripped
    sorted_close(jnp.roots(np.array([1.0, -3.0, 2.0, 0.0], np.float32)), [0, 1, 2])
    sorted_close(jnp.roots(np.array([2, 4], np.int32)), [-2])
    assert jnp.roots(np.array([5.0], np.float32)).shape == (0,)
    assert jnp.roots(np.array([5.0], np.float32)).dtype == np.complex64
    with pytest.raises(ValueError, match="Input must be a rank-1 array."):
        jnp.roots(np.ones((2, 2), np.float32))
    m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    close(jnp.poly(m), np.poly(m), 1e-5)  # complex64, as JAX's
    assert jnp.poly(m).dtype == np.complex64


def test_tridiagonal_solve():
    dl, d, du, b = crandn(5), crandn(5) + 4, crandn(5), crandn(5, 2)
    x = c128(L.tridiagonal_solve(dl, d, du, b))
    t = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    assert np.linalg.norm(t @ x - b) <= bound(5) * np.linalg.norm(t) * np.linalg.norm(x)
    check_grads(L.tridiagonal_solve, (dl, d, du, b), order=1, modes=("fwd", "rev"))
