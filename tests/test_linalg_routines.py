"""The wasm backend's factorization routines (`compiler/linalg_routines.py`,
`backends/wasm/linalg.py`): that cholesky, lu and triangular_solve run as one routine
launch there (and as the blocked algorithm on the reference backend), and that the
routines' results match numpy/scipy: sizes 1, 2, 5, 31, 32, 33, 100, batched, a matrix
that is not positive definite (NaN as JAX), singular LU, every triangular_solve flag
combination, a batch big enough to be split over threads."""
import numpy as np
import pytest
import scipy.linalg as sl

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src.compiler.kernel import Routine
from jaxweb.lax import linalg as L
from kernel_count import count_kernels
from rule_checker import check_grads

pytestmark = pytest.mark.skipif(not jax.devices("wasm") or jax.devices("wasm")[0].backend.capabilities.linalg is None,
                                reason="no wasm device with the factorization routines")

R = np.random.RandomState(0)
SIZES = (1, 2, 5, 31, 32, 33, 100)


@pytest.fixture(autouse=True)
def _wasm():
    with jax.default_device(jax.devices("wasm")[0]):
        yield


def _spd(batch, n):
    x = R.randn(*batch, n, n).astype(np.float32)
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n, dtype=np.float32)).astype(np.float32)


def _launches(fn, *args):
    fn(*args)
    with count_kernels() as ks:
        jax.block_until_ready(fn(*args))
    return ks


def _routines(ks):
    return [k.routine for k in ks if isinstance(k, Routine)]


def test_one_launch_per_factorization_on_wasm_blocked_elsewhere():
    a, b = _spd((), 40), R.randn(40, 3).astype(np.float32)
    chol = jax.jit(lambda a: L.cholesky(a, symmetrize_input=False))
    assert _routines(_launches(chol, a)) == ["cholesky_f32"] and len(_launches(chol, a)) == 1
    lu = _launches(jax.jit(L.lu), a)
    assert _routines(lu) == ["lu_f32"] and len(lu) == 1
    trsm = jax.jit(lambda a, b: L.triangular_solve(a, b, left_side=True, lower=True))
    assert _routines(_launches(trsm, a, b)) == ["trsm_f32"]
    solve = _launches(jax.jit(jnp.linalg.solve), a, b)
    assert _routines(solve) == ["lu_f32", "trsm_f32", "trsm_f32"] and len(solve) <= 5, solve
    assert _routines(_launches(jax.jit(jax.vmap(L.cholesky)), _spd((3,), 8))) == ["cholesky_f32"]
    with jax.default_device(jax.devices("cpu")[0]):  # the reference backend: the blocked algorithm
        ks = _launches(chol, a)
        assert not _routines(ks) and len(ks) > 1


def test_cholesky_matches_numpy():
    for n in SIZES:
        a = _spd((2,), n)
        low = np.asarray(L.cholesky(a))
        want = np.linalg.cholesky(a.astype(np.float64))
        np.testing.assert_allclose(low, want, rtol=1e-4, atol=1e-5 * np.sqrt(n), err_msg=str(n))
        assert (np.triu(low, 1) == 0).all()


def test_cholesky_not_positive_definite_is_nan_as_jax():
    a = _spd((3,), 5)
    a[1, 2, 2] = -50.0  # not positive definite: that matrix's lower triangle is NaN
    a[2, 0, 0] = np.inf
    low = np.asarray(L.cholesky(a, symmetrize_input=False))
    np.testing.assert_allclose(low[0], np.linalg.cholesky(a[0].astype(np.float64)), rtol=1e-4, atol=1e-5)
    for i in (1, 2):
        assert np.isnan(low[i][np.tril_indices(5)]).all() and (np.triu(low[i], 1) == 0).all()


def _check_lu(a):
    lu, piv, perm = (np.asarray(x) for x in L.lu(a))
    m, n = a.shape[-2:]
    k = min(m, n)
    for i in np.ndindex(a.shape[:-2]):
        want_lu, want_piv = sl.lu_factor(a[i].astype(np.float64))
        np.testing.assert_array_equal(piv[i], want_piv[:k])
        np.testing.assert_allclose(lu[i], want_lu, rtol=1e-3, atol=1e-4 * max(m, n))
        p = np.arange(m)
        for j, q in enumerate(piv[i]):
            p[[j, q]] = p[[q, j]]
        np.testing.assert_array_equal(perm[i], p)


def test_lu_matches_scipy():
    for n in SIZES:
        _check_lu(R.randn(2, n, n).astype(np.float32))
    _check_lu(R.randn(6, 4).astype(np.float32))
    _check_lu(R.randn(2, 4, 6).astype(np.float32))
    _check_lu(R.randn(21, 13).astype(np.float32))  # rectangular over several panels
    _check_lu(R.randn(13, 21).astype(np.float32))


@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")
def test_lu_singular():
    lu, piv, perm = L.lu(np.ones((2, 2), np.float32))
    assert np.asarray(lu).tolist() == [[1.0, 1.0], [1.0, 0.0]] and piv.tolist() == [0, 1]
    sing = R.randn(7, 7).astype(np.float32)
    sing[:, 3] = 0  # a zero pivot column: left as is
    sing[5] = sing[1]  # and a rank drop later
    _check_lu(sing)
    _check_lu(np.zeros((3, 3), np.float32))
    x = np.asarray(L.triangular_solve(np.asarray(lu), np.ones((2, 1), np.float32), left_side=True))
    assert np.isinf(x).any() or np.isnan(x).any()


@pytest.mark.parametrize("m,k", [(1, 1), (5, 3), (33, 6)])
def test_triangular_solve_every_flag(m, k):
    t = (R.randn(2, m, m) / np.sqrt(m) + 2 * np.eye(m)).astype(np.float32)  # well conditioned, unit or not
    b = R.randn(2, m, k).astype(np.float32)
    for left in (True, False):
        bb = b if left else np.swapaxes(b, -1, -2).copy()
        for lower in (True, False):
            for trans in (False, True):
                for unit in (False, True):
                    x = np.asarray(L.triangular_solve(t, bb, left_side=left, lower=lower, transpose_a=trans,
                                                      unit_diagonal=unit))
                    for i in range(2):
                        if left:
                            want = sl.solve_triangular(t[i].astype(np.float64), bb[i], lower=lower,
                                                       trans=int(trans), unit_diagonal=unit)
                        else:  # x op(t) = b  <=>  op(t)ᵀ xᵀ = bᵀ
                            want = sl.solve_triangular(t[i].astype(np.float64), bb[i].T, lower=lower,
                                                       trans=int(not trans), unit_diagonal=unit).T
                        np.testing.assert_allclose(x[i], want, rtol=1e-4, atol=1e-5,
                                                   err_msg=str((left, lower, trans, unit)))


def test_batch_split_over_threads():
    """Enough work that the runtime splits the batch over its worker threads."""
    a = _spd((96,), 48)
    low = np.asarray(jax.jit(L.cholesky)(a))
    np.testing.assert_allclose(low, np.linalg.cholesky(a.astype(np.float64)), rtol=1e-4, atol=1e-5)
    lu, piv, perm = (np.asarray(x) for x in jax.jit(L.lu)(a))
    for i in (0, 47, 95):
        np.testing.assert_array_equal(piv[i], sl.lu_factor(a[i].astype(np.float64))[1])
    x = np.asarray(jax.jit(jnp.linalg.solve)(a, a[:, :, :2]))
    np.testing.assert_allclose(x, np.linalg.solve(a.astype(np.float64), a[:, :, :2]), rtol=1e-3, atol=1e-4)


def test_gradients_through_the_routines():
    a = _spd((), 5)
    check_grads(L.cholesky, (a,), order=1, modes=("fwd", "rev"))
    t = np.tril(R.randn(5, 5)).astype(np.float32) + 3 * np.eye(5, dtype=np.float32)
    check_grads(lambda t, b: L.triangular_solve(t, b, left_side=True, lower=True), (t, a[:, :2]),
                order=1, modes=("fwd", "rev"))
    check_grads(jnp.linalg.solve, (a, a[:, :2]), order=1, modes=("fwd", "rev"))


def test_without_relaxed_simd(monkeypatch):
    """Engines without relaxed SIMD get mul + add for the fused multiply-adds."""
    be = jax.devices("wasm")[0].backend
    monkeypatch.setattr(be, "features", be.features - {"relaxed_simd"})
    monkeypatch.setattr(be, "_programs", type(be._programs)())  # compile afresh
    a = _spd((2,), 37)
    np.testing.assert_allclose(np.asarray(L.cholesky(a)), np.linalg.cholesky(a.astype(np.float64)),
                               rtol=1e-4, atol=1e-5)
    _check_lu(R.randn(37, 37).astype(np.float32))
    b = R.randn(2, 37, 9).astype(np.float32)
    x = np.asarray(L.triangular_solve(a, b, left_side=True, lower=True))
    np.testing.assert_allclose(x, np.linalg.solve(np.tril(a).astype(np.float64), b), rtol=1e-4, atol=1e-5)
