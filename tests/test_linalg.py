"""jnp.linalg against numpy: factorizations, solves, spectral decompositions, norms;
JAX's result types, shapes and errors; gradients through the rule checker; vmap/jit."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from rule_checker import check_grads, check_vmap


@pytest.fixture(autouse=True)
def _reference_backend():
    """Semantic checks on the numpy reference backend: they keep the suite within the wasm
    runtime's instance budget (the kernels themselves are tested on every device)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield

L = jnp.linalg
R = np.random.RandomState(0)
A = R.randn(2, 4, 4).astype(np.float32)
SPD = (A @ np.swapaxes(A, -1, -2) + np.eye(4)).astype(np.float32)
M = R.randn(5, 3).astype(np.float32)


def close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got), want, **{"rtol": 2e-4, "atol": 2e-5, **kw})


def test_det_slogdet_inv_solve():
    close(L.det(A), np.linalg.det(A))
    sign, logdet = L.slogdet(A)
    nsign, nlog = np.linalg.slogdet(A)
    close(sign, nsign)
    close(logdet, nlog)
    assert type(L.slogdet(A)).__name__ == "SlogdetResult"
    close(L.inv(A), np.linalg.inv(A), rtol=1e-3, atol=1e-4)
    close(L.solve(A, np.ones(4)), np.linalg.solve(A, np.ones((2, 4, 1)))[..., 0], rtol=1e-3)
    close(L.solve(A, np.ones((4, 2))), np.linalg.solve(A, np.ones((4, 2))), rtol=1e-3)
    assert L.det(np.eye(3, dtype=np.int32)).dtype == jnp.float32 and float(L.det(np.zeros((3, 3)))) == 0.0
    assert float(L.det(np.array([[2.0, 1.0], [4.0, 2.0]]))) == 0.0
    with pytest.raises(ValueError, match="Prior to JAX v0.5.0"):
        L.solve(A, np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"Argument to inv must have shape \[\.\.\., n, n\], got \(5, 3\)"):
        L.inv(M)


def test_cholesky_qr_matrix_power_multi_dot():
    close(L.cholesky(SPD), np.linalg.cholesky(SPD), rtol=1e-4)
    close(L.cholesky(SPD, upper=True), np.swapaxes(np.linalg.cholesky(SPD), -1, -2), rtol=1e-4)
    assert np.isnan(np.asarray(L.cholesky(-np.eye(2)))).any()
    q, r = L.qr(M)
    assert q.shape == (5, 3) and r.shape == (3, 3) and type(L.qr(M)).__name__ == "QRResult"
    close(q @ r, M)
    close(q.T @ q, np.eye(3), atol=1e-5)
    assert np.allclose(np.triu(np.asarray(r)), np.asarray(r))
    qc, rc = L.qr(M, mode="complete")
    assert qc.shape == (5, 5) and rc.shape == (5, 3)
    close(qc @ rc, M)
    assert L.qr(M, mode="r").shape == (3, 3)
    close(L.matrix_power(A[0], 3), np.linalg.matrix_power(A[0], 3), rtol=1e-3)
    close(L.matrix_power(A[0], -2), np.linalg.matrix_power(A[0], -2), rtol=1e-3)
    assert L.matrix_power(np.eye(2, dtype=np.int32) * 2, 3).tolist() == [[8, 0], [0, 8]]
    close(L.multi_dot([A[0], A[1], M[:4]]), A[0] @ A[1] @ M[:4], rtol=1e-4)
    close(L.multi_dot([np.ones(4), A[0], np.ones(4)]), np.ones(4) @ A[0] @ np.ones(4))
    close(L.tensorinv(np.eye(4).reshape(4, 2, 2), ind=1), np.linalg.tensorinv(np.eye(4).reshape(4, 2, 2), ind=1))
    close(L.tensorsolve(np.eye(6).reshape(2, 3, 6), np.ones((2, 3))), np.ones(6))


def test_eigh_svd_and_derived():
    w, v = L.eigh(SPD)
    close(w, np.linalg.eigvalsh(SPD), rtol=1e-4, atol=1e-4)
    close(SPD @ np.asarray(v), np.asarray(v) * np.asarray(w)[..., None, :], atol=1e-3)
    close(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-5)
    assert type(L.eigh(SPD)).__name__ == "EighResult"
    close(L.eigvalsh(np.diag([3.0, 1.0, 2.0])), [1.0, 2.0, 3.0])
    u, s, vh = L.svd(M)
    assert u.shape == (5, 5) and vh.shape == (3, 3) and type(L.svd(M)).__name__ == "SVDResult"
    close(s, np.linalg.svd(M, compute_uv=False))
    close((np.asarray(u)[:, :3] * np.asarray(s)) @ np.asarray(vh), M)
    close(np.asarray(u).T @ np.asarray(u), np.eye(5), atol=1e-5)
    u, s, vh = L.svd(M.T, full_matrices=False)
    assert u.shape == (3, 3) and vh.shape == (3, 5)
    close((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), M.T)
    low = np.outer(np.arange(1.0, 5.0), np.ones(3)).astype(np.float32)  # rank 1
    u, s, vh = L.svd(low)
    close(np.asarray(u).T @ np.asarray(u), np.eye(4), atol=1e-5)  # still orthonormal
    close(s, np.linalg.svd(low, compute_uv=False), atol=1e-5)
    close(L.svdvals(A), np.linalg.svd(A, compute_uv=False))
    u, s, vh = L.svd(SPD - 8 * np.eye(4, dtype=np.float32), hermitian=True)  # indefinite
    close(s, np.linalg.svd(SPD - 8 * np.eye(4), compute_uv=False), atol=1e-4)
    close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), SPD - 8 * np.eye(4), atol=1e-4)
    close(L.pinv(M), np.linalg.pinv(M), atol=1e-5)
    x, resid, rank, sv = L.lstsq(M, np.ones(5))
    nx, nres, nrank, nsv = np.linalg.lstsq(M, np.ones(5), rcond=None)
    close(x, nx)
    close(resid, nres)
    assert int(rank) == nrank
    assert int(L.matrix_rank(np.ones((3, 3)))) == 1 and L.matrix_rank(A).tolist() == [4, 4]
    close(L.cond(A[0]), np.linalg.cond(A[0]), rtol=1e-3)
    close(L.cond(A[0], "fro"), np.linalg.cond(A[0], "fro"), rtol=1e-3)
    w = np.sort_complex(np.asarray(L.eigvals(A[0])))  # eig itself: test_linalg_complex.py
    close(w, np.sort_complex(np.linalg.eigvals(A[0])), atol=1e-4)


def test_norms_against_numpy():
    for ord in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        close(L.norm(A[0], ord), np.linalg.norm(A[0], ord), err_msg=str(ord))
    for ord in (None, 0, 1, 2, 3, np.inf, -np.inf, 0.5):
        close(L.norm(A[0, 0], ord), np.linalg.norm(A[0, 0], ord), err_msg=str(ord))
    close(L.norm(A, axis=(1, 2)), np.linalg.norm(A, axis=(1, 2)))
    close(L.norm(A, ord="nuc", axis=(1, 2)), np.linalg.norm(A, ord="nuc", axis=(1, 2)))
    close(L.norm(A, axis=1, keepdims=True), np.linalg.norm(A, axis=1, keepdims=True))
    close(L.vector_norm(A, axis=(0, 2), ord=1), np.sum(np.abs(A), axis=(0, 2)))
    close(L.matrix_norm(A, ord=np.inf), np.linalg.norm(A, ord=np.inf, axis=(-2, -1)))
    with pytest.raises(ValueError, match="Invalid order"):
        L.norm(A[0], ord="bogus")


def test_linalg_gradients_vmap_jit():
    x = A[0] + 3 * np.eye(4, dtype=np.float32)
    check_grads(L.det, (x,), order=1)
    check_grads(lambda v: L.slogdet(v)[1], (x,), order=1)
    check_grads(L.inv, (x,), order=1)
    check_grads(lambda v: L.solve(v, np.arange(4.0, dtype=np.float32)), (x,), order=1)
    check_grads(L.cholesky, (SPD[0],), order=1)
    check_grads(L.eigvalsh, (SPD[0],), order=1)
    check_grads(lambda v: L.norm(v, "fro"), (x,), order=1)
    # eigh's JVP: eigenvalue derivative is diag(Vᵀ dA V)
    w, v = L.eigh(SPD[0])
    d = np.diag(np.arange(4.0)).astype(np.float32)
    _, (dw, _) = jax.jvp(L.eigh, (SPD[0],), (d,))
    close(dw, np.diag(np.asarray(v).T @ d @ np.asarray(v)), atol=1e-4)
    check_vmap(L.det, (A,))
    close(L.solve(np.ones((2, 2)), np.ones(2)), [np.nan, np.nan])  # singular: NaN/inf as JAX
    assert np.asarray(L.inv(np.ones((2, 2)))).tolist() == [[np.inf, -np.inf], [-np.inf, np.inf]]
    assert L.slogdet(np.ones((3, 3)))[1] == -np.inf and L.cholesky(np.eye(2, dtype=np.int32)).dtype == jnp.float32
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'm': 5 vs 4"):
        L.solve(A[0], np.ones(5))
    close(jax.jit(L.inv)(A), np.linalg.inv(A), rtol=1e-3, atol=1e-4)
