"""`jnp.linalg` by orthogonal transformations: qr (Householder), eigh (Jacobi), svd
(one-sided Jacobi), and what builds on them: eigvalsh, svdvals, pinv, lstsq,
matrix_rank, cond.

Both Jacobi methods use the round-robin (parallel) ordering: each round rotates n/2
disjoint index pairs at once, as one orthogonal matrix built with masks, so a sweep is
n - 1 rounds of a few whole-matrix operations. A fixed number of sweeps (enough for the
quadratic convergence to reach the dtype's precision on well-scaled matrices) replaces
the convergence test, so the algorithm has static shape and traces under jit. eigh has
JAX's JVP rule (eigenvalue and eigenvector perturbations) rather than differentiating
the sweeps. eig/eigvals (a general, non-symmetric eigensolver with complex results) are
not implemented.
"""
from __future__ import annotations

__all__ = ["qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "lstsq", "matrix_rank", "cond", "eig",
           "eigvals", "QRResult", "EighResult", "SVDResult"]

import importlib
import math
from typing import Any, NamedTuple

from .. import core, dtypes
from ..custom_derivatives import custom_jvp
from .linalg_factor import inexact, square


class QRResult(NamedTuple):
    Q: Any
    R: Any


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


def _jnp() -> Any:
    return importlib.import_module("jaxweb.numpy")


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def _eps(x: Any) -> float:
    return float(dtypes.finfo(_aval(x).dtype).eps)


def _sweeps(x: Any) -> int:
    return 14 if _aval(x).dtype.itemsize == 8 else 9


def _t(x: Any) -> Any:
    return _jnp().swapaxes(x, -1, -2)


# ---------------------------------------------------------------- QR
def _householder(a: Any, complete: bool = True) -> tuple[Any, Any]:
    """(Q, R) of (batched) m x n a by Householder reflections, Q of shape (m, m)."""
    jnp = _jnp()
    m, n = _aval(a).shape[-2:]
    dt = _aval(a).dtype
    idx = jnp.arange(m)
    r = a
    q = jnp.broadcast_to(jnp.eye(m, dtype=dt), _aval(a).shape[:-2] + (m, m))
    for k in range(min(m - 1, n)):
        x = jnp.where(idx >= k, r[..., :, k], 0.0)
        norm = jnp.sqrt(jnp.sum(x * x, axis=-1))
        x0 = r[..., k, k]
        alpha = jnp.where(x0 >= 0, -norm, norm)
        v = x - jnp.where(idx == k, alpha[..., None], 0.0)
        vv = jnp.sum(v * v, axis=-1)
        beta = jnp.where(vv == 0, 0.0, 2.0 / jnp.where(vv == 0, 1.0, vv))
        r = r - beta[..., None, None] * v[..., :, None] * jnp.einsum("...i,...ij->...j", v, r)[..., None, :]
        q = q - beta[..., None, None] * jnp.einsum("...ij,...j->...i", q, v)[..., :, None] * v[..., None, :]
    rows, cols = jnp.arange(m)[:, None], jnp.arange(n)[None, :]
    return q, jnp.where(rows > cols, 0.0, r)


def qr(a: Any, mode: str = "reduced") -> Any:
    """`jnp.linalg.qr`: Q with orthonormal columns and upper-triangular R, a = Q R.
    mode 'reduced' (k = min(m, n) columns), 'complete' (Q m x m) or 'r' (R only)."""
    (a,) = inexact("qr", a)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'" if mode != "raw" else
                         "The 'raw' mode of jnp.linalg.qr is not supported.")
    m, n = _aval(a).shape[-2:]
    q, r = _householder(a, mode == "complete")
    k = min(m, n)
    if mode == "complete":
        return QRResult(q, r)
    r = r[..., :k, :]
    return r if mode == "r" else QRResult(q[..., :, :k], r)


# ---------------------------------------------------------------- Jacobi rounds
def _rounds(n: int) -> list[list[tuple[int, int]]]:
    """Round-robin pairings of n indices (a bye when n is odd): every pair once per sweep."""
    m = n + (n % 2)
    order = list(range(m))
    rounds = []
    for _ in range(m - 1):
        pairs = [(order[i], order[m - 1 - i]) for i in range(m // 2)]
        rounds.append([(min(p, q), max(p, q)) for p, q in pairs if p < n and q < n])
        order = [order[0], order[-1]] + order[1:-1]
    return rounds


def _rotation(n: int, pairs: list, c: Any, s: Any, dt: Any) -> Any:
    """The orthogonal matrix rotating each (p, q) by (c, s): J[p,p] = J[q,q] = c,
    J[p,q] = s, J[q,p] = -s (c, s of shape (..., len(pairs))); identity elsewhere."""
    jnp = _jnp()
    partner, role, which = list(range(n)), [0] * n, [0] * n
    for k, (p, q) in enumerate(pairs):
        partner[p], partner[q] = q, p
        role[p], role[q] = 1, -1
        which[p] = which[q] = k
    used = jnp.asarray([r != 0 for r in role])
    cs = jnp.where(used, jnp.take(c, jnp.asarray(which), axis=-1), 1.0)  # (..., n)
    ss = jnp.where(used, jnp.take(s, jnp.asarray(which), axis=-1), 0.0) * jnp.asarray(role, dt)
    rows, cols = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    return jnp.where(rows == cols, cs[..., :, None],
                     jnp.where(cols == jnp.asarray(partner)[:, None], ss[..., :, None], 0.0))


def _jacobi_angles(app: Any, aqq: Any, apq: Any) -> tuple[Any, Any]:
    """(c, s) of the rotation zeroing apq in [[app, apq], [apq, aqq]]."""
    jnp = _jnp()
    zero = apq == 0
    tau = (aqq - app) / jnp.where(zero, 1.0, 2.0 * apq)
    t = jnp.where(tau >= 0, 1.0, -1.0) / (jnp.abs(tau) + jnp.sqrt(1.0 + tau * tau))
    t = jnp.where(zero, 0.0, t)
    c = 1.0 / jnp.sqrt(1.0 + t * t)
    return c, t * c


def _eigh_jacobi(a: Any) -> tuple[Any, Any]:
    jnp = _jnp()
    n = _aval(a).shape[-1]
    dt = _aval(a).dtype
    v = jnp.broadcast_to(jnp.eye(n, dtype=dt), _aval(a).shape)
    rounds = _rounds(n)
    for _ in range(_sweeps(a)):
        for pairs in rounds:
            if not pairs:
                continue
            ps, qs = [p for p, _ in pairs], [q for _, q in pairs]
            app, aqq, apq = a[..., ps, ps], a[..., qs, qs], a[..., ps, qs]
            c, s = _jacobi_angles(app, aqq, apq)
            j = _rotation(n, pairs, c, s, dt)
            a = jnp.matmul(_t(j), jnp.matmul(a, j))
            a = (a + _t(a)) * 0.5  # keep exact symmetry against rounding
            v = jnp.matmul(v, j)
    w = jnp.diagonal(a, axis1=-2, axis2=-1)
    order = jnp.argsort(w, axis=-1)
    w = jnp.take_along_axis(w, order, axis=-1)
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], _aval(v).shape), axis=-1)
    return w, v


@custom_jvp
def _eigh(a: Any) -> tuple[Any, Any]:
    return _eigh_jacobi(a)


@_eigh.defjvp
def _eigh_jvp(primals: tuple, tangents: tuple) -> tuple:
    """dw = diag(Vᵀ dA V); dV = V (F ∘ (Vᵀ dA V)), F_ij = 1/(w_j - w_i) off the diagonal."""
    jnp = _jnp()
    (a,), (da,) = primals, tangents
    w, v = _eigh(a)
    da = (da + _t(da)) * 0.5
    proj = jnp.matmul(_t(v), jnp.matmul(da, v))
    gap = w[..., None, :] - w[..., :, None]
    eye = jnp.eye(_aval(w).shape[-1], dtype=bool)
    f = jnp.where(eye, 0.0, 1.0 / jnp.where(eye | (gap == 0), 1.0, gap))
    return (w, v), (jnp.diagonal(proj, axis1=-2, axis2=-1), jnp.matmul(v, f * proj))


def eigh(a: Any, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """`jnp.linalg.eigh`: ascending eigenvalues and orthonormal eigenvectors (columns) of a
    symmetric matrix; UPLO picks the triangle read when not symmetrizing."""
    jnp = _jnp()
    (a,) = inexact("eigh", a)
    n = square("eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    if symmetrize_input:
        a = (a + _t(a)) * 0.5
    else:
        rows, cols = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
        tri = jnp.where(rows >= cols if UPLO != "U" else rows <= cols, a, 0.0)
        a = tri + _t(tri) - jnp.where(rows == cols, a, 0.0)
    if n == 0:
        return EighResult(jnp.zeros(_aval(a).shape[:-1], _aval(a).dtype), a)
    return EighResult(*_eigh(a))


def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Any:
    """`jnp.linalg.eigvalsh`: the ascending eigenvalues of a symmetric matrix."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def eig(a: Any) -> Any:
    """Not implemented: it needs a general (non-symmetric) eigensolver."""
    raise NotImplementedError("jnp.linalg.eig (complex eigenvalues of a general matrix) is not implemented "
                              "by jaxweb (for symmetric matrices use jnp.linalg.eigh)")


def eigvals(a: Any) -> Any:
    """Not implemented: it needs a general (non-symmetric) eigensolver."""
    raise NotImplementedError("jnp.linalg.eigvals (complex eigenvalues of a general matrix) is not "
                              "implemented by jaxweb (for symmetric matrices use jnp.linalg.eigvalsh)")


# ---------------------------------------------------------------- SVD
def _svd_tall(a: Any) -> tuple[Any, Any, Any]:
    """One-sided Jacobi on the columns of tall a (m >= n): (U m x n, s desc, V n x n)."""
    jnp = _jnp()
    m, n = _aval(a).shape[-2:]
    dt = _aval(a).dtype
    v = jnp.broadcast_to(jnp.eye(n, dtype=dt), _aval(a).shape[:-2] + (n, n))
    g = a
    rounds = _rounds(n)
    for _ in range(_sweeps(a)):
        for pairs in rounds:
            if not pairs:
                continue
            ps, qs = [p for p, _ in pairs], [q for _, q in pairs]
            gp, gq = g[..., :, ps], g[..., :, qs]
            alpha, beta = jnp.sum(gp * gp, axis=-2), jnp.sum(gq * gq, axis=-2)
            gamma = jnp.sum(gp * gq, axis=-2)
            c, s = _jacobi_angles(alpha, beta, gamma)
            j = _rotation(n, pairs, c, s, dt)
            g, v = jnp.matmul(g, j), jnp.matmul(v, j)
    s = jnp.sqrt(jnp.sum(g * g, axis=-2))
    order = jnp.argsort(-s, axis=-1)
    s = jnp.take_along_axis(s, order, axis=-1)
    g = jnp.take_along_axis(g, jnp.broadcast_to(order[..., None, :], _aval(g).shape), axis=-1)
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], _aval(v).shape), axis=-1)
    return g, s, v


def _orthonormal_u(g: Any, s: Any, full: bool) -> Any:
    """U from the rotated columns g = U diag(s): normalized, then completed (and made
    orthonormal where s is 0) by a QR whose signs follow the columns."""
    jnp = _jnp()
    tiny = s <= s[..., :1] * _eps(s) * max(_aval(g).shape[-2:])
    u = g / jnp.where(tiny, 1.0, s)[..., None, :]
    u = jnp.where(tiny[..., None, :], 0.0, u)
    q, r = _householder(u, True)
    d = jnp.diagonal(r, axis1=-2, axis2=-1)
    signs = jnp.where(d < 0, -1.0, 1.0)
    k = _aval(g).shape[-1]
    m = _aval(g).shape[-2]
    pad = jnp.ones(_aval(signs).shape[:-1] + (m - k,), _aval(signs).dtype)
    q = q * jnp.concatenate([signs, pad], axis=-1)[..., None, :]
    return q if full else q[..., :, :k]


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: Any = None) -> Any:
    """`jnp.linalg.svd`: a = U diag(S) Vh with S descending (U, Vh square when
    `full_matrices`); only S with compute_uv=False."""
    jnp = _jnp()
    if subset_by_index is not None:
        raise NotImplementedError("svd(subset_by_index=...) is not supported")
    (a,) = inexact("svd", a)
    m, n = _aval(a).shape[-2:]
    wide = m < n
    x = _t(a) if wide else a
    g, s, v = _svd_tall(x)
    if not compute_uv:
        return s
    u = _orthonormal_u(g, s, full_matrices)
    if wide:  # a = xᵀ = V diag(s) Uᵀ
        return SVDResult(v, s, _t(u))
    return SVDResult(u, s, _t(v))


def svdvals(x: Any, /) -> Any:
    """`jnp.linalg.svdvals`: the singular values, descending."""
    return svd(x, compute_uv=False)


def _default_rtol(a: Any) -> float:
    return _eps(a) * max(_aval(a).shape[-2:])


def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
    """`jnp.linalg.pinv`: V diag(1/s) Uᵀ, dropping singular values below rtol * s_max."""
    jnp = _jnp()
    (a,) = inexact("pinv", a)
    if rcond is not None and rtol is not None:
        raise ValueError("pinv: only one of rtol and rcond may be specified.")
    tol = rcond if rcond is not None else rtol
    u, s, vh = svd(a, full_matrices=False)
    tol = 10.0 * _default_rtol(a) if tol is None else tol
    cut = jnp.asarray(tol, _aval(s).dtype)[..., None] * s[..., :1]
    keep = s > cut
    sinv = jnp.where(keep, 1.0 / jnp.where(keep, s, 1.0), 0.0)
    return jnp.matmul(_t(vh) * sinv[..., None, :], _t(u))


def lstsq(a: Any, b: Any, rcond: Any = None, *, numpy_resid: bool = False) -> tuple:
    """`jnp.linalg.lstsq`: (x, residuals, rank, s) minimizing |a x - b| by the SVD."""
    jnp = _jnp()
    a, b = inexact("lstsq", a, b)
    if _aval(a).ndim != 2:
        raise TypeError(f"{_aval(a).ndim}-dimensional array given. Array must be two-dimensional")
    vector = _aval(b).ndim == 1
    b2 = b[:, None] if vector else b
    m, n = _aval(a).shape
    u, s, vh = svd(a, full_matrices=False)
    tol = _eps(a) * max(m, n) if rcond is None else float(rcond)
    keep = (s > 0) & (s >= tol * s[:1]) if s.shape[0] else s > 0
    sinv = jnp.where(keep, 1.0 / jnp.where(keep, s, 1.0), 0.0)
    x = jnp.matmul(_t(vh), sinv[:, None] * jnp.matmul(_t(u), b2))
    rank = jnp.sum(keep, dtype=dtypes.int32)
    if numpy_resid and (int(rank) < n or m <= n):
        resid = jnp.zeros((0,), _aval(a).dtype)
    else:
        resid = jnp.sum((b2 - jnp.matmul(a, x)) ** 2, axis=0)
    return (x[:, 0] if vector else x), resid, rank, s


def matrix_rank(M: Any, rtol: Any = None, *, tol: Any = None) -> Any:
    """`jnp.linalg.matrix_rank`: singular values above rtol * s_max (or above tol)."""
    jnp = _jnp()
    (M,) = inexact("matrix_rank", M)
    if _aval(M).ndim < 2:
        return jnp.asarray(jnp.any(M != 0), dtypes.int32).astype(dtypes.int32)
    s = svd(M, compute_uv=False)
    if tol is None:
        r = _default_rtol(M) if rtol is None else rtol
        cut = jnp.asarray(r, _aval(s).dtype)[..., None] * s[..., :1]
    else:
        cut = jnp.asarray(tol, _aval(s).dtype)[..., None]
    return jnp.sum(s > cut, axis=-1, dtype=dtypes.int32)


def cond(x: Any, p: Any = None) -> Any:
    """`jnp.linalg.cond`: the condition number in norm p (2 by default: s_max / s_min)."""
    jnp = _jnp()
    (x,) = inexact("cond", x)
    if p is None or p == 2 or p == -2:
        s = svd(x, compute_uv=False)
        hi, lo = s[..., 0], s[..., -1]
        return hi / lo if p != -2 else lo / hi
    from .linalg_norms import norm
    from .linalg_factor import inv
    return norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))


del math
