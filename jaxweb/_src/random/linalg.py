"""The few dense factorizations the samplers need (multivariate_normal, orthogonal),
written with jnp ops and unrolled over the (static) matrix size.

jaxweb has no jnp.linalg yet (issue 14); when it lands, `factorization(name)` picks
it up instead of these. Cholesky and the sign-normalized QR are unique, so these
agree with LAPACK up to rounding; eigenvectors (for the 'eigh'/'svd' methods) are
unique only up to sign, so samples drawn through them follow the right
distribution but are not JAX's bits.
"""
from __future__ import annotations

from typing import Any, Callable

import jaxweb.numpy as jnp


def factorization(name: str) -> Callable:
    """jnp.linalg.<name> when jaxweb has it, else the version below."""
    linalg = getattr(jnp, "linalg", None)
    fn = getattr(linalg, name, None) if linalg is not None else None
    return fn if fn is not None else _FALLBACKS[name]


def _eye_like(a: Any, n: int) -> Any:
    return jnp.broadcast_to(jnp.eye(n, dtype=a.dtype), (*a.shape[:-2], n, n))


def cholesky(a: Any) -> Any:
    """Lower Cholesky factor of symmetric positive definite matrices (..., n, n), column by
    column (Cholesky-Crout); NaN where a matrix is not positive definite, as LAPACK via JAX."""
    n = a.shape[-1]
    cols = []
    for j in range(n):
        diag, col = a[..., j, j], a[..., :, j]
        if cols:
            done = jnp.stack(cols, axis=-1)  # (..., n, j): the columns of L so far
            rj = done[..., j, :]  # row j of L so far
            diag = diag - jnp.sum(rj * rj, axis=-1)
            col = col - jnp.einsum("...ik,...k->...i", done, rj)
        diag = jnp.sqrt(diag)
        col = col / diag[..., None]
        rows = jnp.arange(n)
        col = jnp.where(rows == j, diag[..., None], jnp.where(rows > j, col, 0))
        cols.append(col)
    return jnp.stack(cols, axis=-1)


def qr(a: Any) -> tuple[Any, Any]:
    """Reduced QR of (..., m, k) with m >= k by Householder reflections."""
    m, k = a.shape[-2], a.shape[-1]
    r, q = a, _eye_like(a, m)
    rows = jnp.arange(m)
    for j in range(min(m - 1, k)):
        x = jnp.where(rows >= j, r[..., :, j], 0)
        xj = r[..., j, j]
        norm = jnp.sqrt(jnp.sum(x * x, axis=-1))
        alpha = -jnp.where(xj >= 0, 1, -1) * norm
        v = x - jnp.where(rows == j, alpha[..., None], 0)
        vnorm = jnp.sqrt(jnp.sum(v * v, axis=-1))
        v = v / jnp.where(vnorm == 0, 1, vnorm)[..., None]
        r = r - 2 * v[..., :, None] * jnp.einsum("...i,...ij->...j", v, r)[..., None, :]
        q = q - 2 * jnp.einsum("...ij,...j->...i", q, v)[..., :, None] * v[..., None, :]
    return q[..., :, :k], r[..., :k, :]


def eigh(a: Any, sweeps: int = 12) -> tuple[Any, Any]:
    """Eigenvalues (ascending) and eigenvectors of symmetric (..., n, n), by cyclic Jacobi
    rotations (a fixed number of sweeps: quadratic convergence makes 12 ample for the
    covariance sizes samplers see)."""
    n = a.shape[-1]
    v = eye = _eye_like(a, n)
    basis = jnp.eye(n, dtype=a.dtype)
    unit = [[basis[i][:, None] * basis[j][None, :] for j in range(n)] for i in range(n)]  # E_ij
    for _ in range(sweeps):
        for p in range(n - 1):
            for q_ in range(p + 1, n):
                app, aqq, apq = a[..., p, p], a[..., q_, q_], a[..., p, q_]
                safe = jnp.where(apq == 0, 1, apq)
                theta = (aqq - app) / (2 * safe)
                t = jnp.where(theta >= 0, 1, -1) / (jnp.abs(theta) + jnp.sqrt(theta * theta + 1))
                t = jnp.where(apq == 0, 0, t)
                c = 1 / jnp.sqrt(t * t + 1)
                s = t * c
                # Rotation G = I + (c - 1)(E_pp + E_qq) + s(E_pq - E_qp); a <- G^T a G.
                cm1, s_ = (c - 1)[..., None, None], s[..., None, None]
                g = eye + cm1 * (unit[p][p] + unit[q_][q_]) + s_ * (unit[p][q_] - unit[q_][p])
                a = jnp.einsum("...ji,...jk,...kl->...il", g, a, g)
                v = jnp.einsum("...ij,...jk->...ik", v, g)
    w = jnp.diagonal(a, axis1=-2, axis2=-1)
    order = jnp.argsort(w, axis=-1)
    w = jnp.take_along_axis(w, order, axis=-1)
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1)
    return w, v


def svd(a: Any) -> tuple[Any, Any, Any]:
    """SVD of symmetric positive semi-definite matrices only (what multivariate_normal
    passes): u = v = eigenvectors, singular values descending."""
    w, v = eigh(a)
    w, v = jnp.flip(w, -1), jnp.flip(v, -1)
    return v, jnp.maximum(w, 0), jnp.swapaxes(v, -1, -2)


_FALLBACKS = {"cholesky": cholesky, "qr": qr, "eigh": eigh, "svd": svd}
