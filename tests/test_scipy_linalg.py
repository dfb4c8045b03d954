"""jaxweb.scipy.linalg against scipy.linalg (scipy is a test-only dependency): scipy's
conventions (upper Cholesky, LAPACK pivots, permutation matrices, QR modes), expm and
its gradient, block_diag, polar; JAX's errors. The compositions run on the reference
backend; the primitives under them are checked on every device in test_lax_linalg.py,
and one expm per device here (its Padé polynomial and squaring loop are new kernels)."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.scipy.linalg as jsl
from rule_checker import check_grads

sp = pytest.importorskip("scipy.linalg")


#: unmarked tests (rules, vmap, errors) run on the reference backend (conftest.py); the
#: kernels are checked on every device by the marked tests
REFERENCE_BY_DEFAULT = True


R = np.random.RandomState(1)
A = R.randn(5, 5).astype(np.float32)
SPD = (A @ A.T + np.eye(5)).astype(np.float32)
B = R.randn(5, 3).astype(np.float32)
b = R.randn(5).astype(np.float32)


def close(got, want, tol=2e-5):
    got = np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


def test_triangular_and_cholesky():
    for lower in (False, True):
        for trans in (0, 1, "T", "C"):
            close(jsl.solve_triangular(SPD, B, trans=trans, lower=lower),
                  sp.solve_triangular(SPD, B, trans=trans, lower=lower), 1e-4)
    close(jsl.solve_triangular(SPD, b, unit_diagonal=True), sp.solve_triangular(SPD, b, unit_diagonal=True), 1e-4)
    close(jsl.cholesky(SPD), sp.cholesky(SPD))
    close(jsl.cholesky(SPD, lower=True), sp.cholesky(SPD, lower=True))
    for lower in (False, True):
        c = jsl.cho_factor(SPD, lower=lower)
        assert c[1] is lower
        close(jsl.cho_solve(c, b), sp.cho_solve(sp.cho_factor(SPD, lower=lower), b), 1e-4)
        close(jsl.cho_solve(c, B), sp.cho_solve(sp.cho_factor(SPD, lower=lower), B), 1e-4)
    batched = np.stack([SPD, 2 * SPD])
    close(jsl.cho_solve(jsl.cho_factor(batched), B), np.linalg.solve(batched, B), 1e-4)
    close(jsl.solve(SPD, b, assume_a="pos"), np.linalg.solve(SPD, b), 1e-4)
    close(jsl.solve(np.triu(SPD), b, assume_a="sym"), np.linalg.solve(SPD, b), 1e-4)
    close(jsl.solve(A, B), np.linalg.solve(A, B), 1e-4)


def test_lu_family():
    lu, piv = jsl.lu_factor(A)
    slu, spiv = sp.lu_factor(A)
    close(lu, slu)
    assert piv.dtype == jnp.int32 and piv.tolist() == spiv.tolist()
    close(jsl.lu_solve((lu, piv), b), sp.lu_solve((slu, spiv), b), 1e-4)
    for trans in (0, 1, 2):
        close(jsl.lu_solve((lu, piv), B, trans=trans), sp.lu_solve((slu, spiv), B, trans=trans), 1e-4)
    for m in (A, B, B.T, np.ones((1, 1), np.float32)):
        for got, want in zip(jsl.lu(m), sp.lu(m)):
            close(got, want)
        for got, want in zip(jsl.lu(m, permute_l=True), sp.lu(m, permute_l=True)):
            close(got, want)


def test_qr_svd_eigh_polar():
    for mode in ("full", "economic"):
        q, r = jsl.qr(B, mode=mode)
        sq, sr = sp.qr(B, mode=mode)
        assert q.shape == sq.shape and r.shape == sr.shape
        close(np.abs(r), np.abs(sr), 1e-4)  # signs as LAPACK's up to rounding of tiny entries
        close(q @ r, B)
    (r,) = jsl.qr(B, mode="r")
    assert r.shape == (5, 3)
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'raw'"):
        jsl.qr(B, mode="raw")
    u, s, vh = jsl.svd(B)
    assert u.shape == (5, 5) and vh.shape == (3, 3)
    close(s, sp.svd(B, compute_uv=False))
    close(jsl.svd(B, compute_uv=False), sp.svd(B, compute_uv=False))
    w, v = jsl.eigh(SPD)
    close(w, sp.eigh(SPD)[0], 1e-4)
    close(jsl.eigh(SPD, eigvals_only=True), sp.eigh(SPD, eigvals_only=True), 1e-4)
    close(jsl.eigh(SPD, lower=False)[0], sp.eigh(SPD)[0], 1e-4)
    # JAX symmetrizes (unlike scipy, which reads one triangle): JAX 0.10's values
    close(jsl.eigh(np.array([[2.0, 1.0], [0.0, 3.0]], np.float32))[0], [1.7928932, 3.2071068])
    for side in ("right", "left"):
        for got, want in zip(jsl.polar(A, side=side), sp.polar(A, side=side)):
            close(got, want, 1e-4)


def test_inv_det_block_diag():
    close(jsl.inv(A), sp.inv(A), 1e-4)
    close(jsl.det(A), sp.det(A), 1e-4)
    bd = jsl.block_diag(np.ones((2, 3), np.float32), np.arange(2, dtype=np.int32), 3.0)
    close(bd, sp.block_diag(np.ones((2, 3)), np.arange(2), 3.0))
    assert bd.dtype == jnp.float32 and jsl.block_diag().shape == (1, 0)
    with pytest.raises(ValueError, match=r"Argument to inv must have shape \[\.\.\., n, n\], got \(5, 3\)"):
        jsl.inv(B)
    with pytest.raises(ValueError, match=r"Argument to _det\(\) must have shape"):
        jsl.det(B)
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n': 4 vs 5"):
        jsl.cho_solve((SPD, False), np.ones(4))
    with pytest.raises(ValueError, match=r"Expected A to be a \(batched\) square matrix, got A.shape=\(5, 3\)."):
        jsl.expm(B)


@pytest.mark.on_every_device
def test_expm_against_scipy():
    for scale in (0.0, 0.1, 3.0):  # no squaring, Padé alone, several squarings
        want = sp.expm(scale * A.astype(np.float64))
        close(jsl.expm(scale * A), want, 1e-5 * max(1.0, scale * 10))
    close(jsl.expm(np.stack([0.1 * A, 0.2 * A])), np.stack([sp.expm(0.1 * A), sp.expm(0.2 * A)]), 1e-5)


def test_expm_gradient():
    check_grads(jsl.expm, (0.3 * A,), order=1, modes=("fwd", "rev"))
    check_grads(jsl.expm, (2.0 * A,), order=1, modes=("fwd",), rtol=2e-2, atol=2e-2)
