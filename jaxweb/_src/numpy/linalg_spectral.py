"""`jnp.linalg` by orthogonal transformations: qr, eigh, svd (`lax.linalg`'s primitives:
Householder QR, cyclic Jacobi eigh, one-sided Jacobi SVD, each with JAX's JVP rule),
and what builds on them: eigvalsh, svdvals, pinv, lstsq, matrix_rank, cond.
Complex inputs take conjugate transposes where the real ones transpose (eigenvalues and
singular values are real). eig/eigvals: the complex Schur form by shifted QR (lax.linalg.eig).
"""
from __future__ import annotations

__all__ = ["qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "lstsq", "matrix_rank", "cond", "eig",
           "eigvals", "QRResult", "EighResult", "EigResult", "SVDResult"]

from typing import Any, NamedTuple

from .. import core, dtypes
from ..lax import linalg as lax_linalg
from .linalg_factor import inexact, square, inv
from . import (creation as _creation, indexing as _indexing, linalg_ops as _linalg_ops,
    reductions as _reductions, shape as _shape, sorting as _sorting, ufuncs as _ufuncs)


class QRResult(NamedTuple):
    Q: Any
    R: Any


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class EigResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def _eps(x: Any) -> float:
    return float(dtypes.finfo(_aval(x).dtype).eps)


def _t(x: Any) -> Any:
    return _shape.swapaxes(x, -1, -2)


def _h(x: Any) -> Any:
    return _ufuncs.conj(_t(x))


# ---------------------------------------------------------------- QR
def qr(a: Any, mode: str = "reduced") -> Any:
    """`jnp.linalg.qr`: Q with orthonormal columns and upper-triangular R, a = Q R.
    mode 'reduced' (k = min(m, n) columns), 'complete' (Q m x m) or 'r' (R only)."""
    (a,) = inexact("qr", a)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'" if mode != "raw" else
                         "The 'raw' mode of jnp.linalg.qr is not supported.")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


# ---------------------------------------------------------------- eigh
def eigh(a: Any, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """`jnp.linalg.eigh`: ascending eigenvalues and orthonormal eigenvectors (columns) of a
    symmetric matrix; UPLO picks the triangle read when not symmetrizing."""
    (a,) = inexact("eigh", a)
    n = square("eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    if n == 0:
        return EighResult(_creation.zeros(_aval(a).shape[:-1], dtypes.real_part_dtype(_aval(a).dtype)), a)
    v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Any:
    """`jnp.linalg.eigvalsh`: the ascending eigenvalues of a symmetric matrix."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def eig(a: Any) -> EigResult:
    """`jnp.linalg.eig`: complex eigenvalues and unit right eigenvectors (columns) of a
    general square matrix; the eigenvalues' order is the Schur form's (LAPACK's may differ)."""
    (a,) = inexact("eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a: Any) -> Any:
    """`jnp.linalg.eigvals`: the complex eigenvalues of a general square matrix."""
    (a,) = inexact("eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


# ---------------------------------------------------------------- SVD
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: Any = None) -> Any:
    """`jnp.linalg.svd`: a = U diag(S) Vh with S descending (U, Vh square when
    `full_matrices`); only S with compute_uv=False."""
    if subset_by_index is not None:
        raise NotImplementedError("svd(subset_by_index=...) is not supported")
    (a,) = inexact("svd", a)
    if hermitian:  # s = |eigenvalues| (descending), U = V sign(w), Vh = Vᴴ
        w, v = eigh(a)
        order = _sorting.argsort(-_ufuncs.abs(w), axis=-1)
        w = _indexing.take_along_axis(w, order, axis=-1)
        v = _indexing.take_along_axis(v, _shape.broadcast_to(order[..., None, :], _aval(v).shape), axis=-1)
        if not compute_uv:
            return _ufuncs.abs(w)
        return SVDResult(v * _ufuncs.where(w < 0, -1.0, 1.0)[..., None, :], _ufuncs.abs(w), _h(v))
    out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return SVDResult(*out) if compute_uv else out


def svdvals(x: Any, /) -> Any:
    """`jnp.linalg.svdvals`: the singular values, descending."""
    return svd(x, compute_uv=False)


def _default_rtol(a: Any) -> float:
    return _eps(a) * max(_aval(a).shape[-2:])


def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
    """`jnp.linalg.pinv`: V diag(1/s) Uᴴ, dropping singular values below rtol * s_max."""
    (a,) = inexact("pinv", a)
    if rcond is not None and rtol is not None:
        raise ValueError("pinv: only one of rtol and rcond may be specified.")
    tol = rcond if rcond is not None else rtol
    u, s, vh = svd(a, full_matrices=False)
    tol = 10.0 * _default_rtol(a) if tol is None else tol
    cut = _creation.asarray(tol, _aval(s).dtype)[..., None] * s[..., :1]
    keep = s > cut
    sinv = _ufuncs.where(keep, 1.0 / _ufuncs.where(keep, s, 1.0), 0.0)
    return _linalg_ops.matmul(_h(vh) * sinv[..., None, :], _h(u))


def lstsq(a: Any, b: Any, rcond: Any = None, *, numpy_resid: bool = False) -> tuple:
    """`jnp.linalg.lstsq`: (x, residuals, rank, s) minimizing |a x - b| by the SVD."""
    a, b = inexact("lstsq", a, b)
    if _aval(a).ndim != 2:
        raise TypeError(f"{_aval(a).ndim}-dimensional array given. Array must be two-dimensional")
    vector = _aval(b).ndim == 1
    b2 = b[:, None] if vector else b
    m, n = _aval(a).shape
    u, s, vh = svd(a, full_matrices=False)
    tol = _eps(a) * max(m, n) if rcond is None else float(rcond)
    keep = (s > 0) & (s >= tol * s[:1]) if s.shape[0] else s > 0
    sinv = _ufuncs.where(keep, 1.0 / _ufuncs.where(keep, s, 1.0), 0.0)
    x = _linalg_ops.matmul(_h(vh), sinv[:, None] * _linalg_ops.matmul(_h(u), b2))
    rank = _reductions.sum(keep, dtype=dtypes.int32)
    if numpy_resid and (int(rank) < n or m <= n):
        resid = _creation.zeros((0,), _aval(s).dtype)
    else:
        resid = _reductions.sum(_ufuncs.abs(b2 - _linalg_ops.matmul(a, x)) ** 2, axis=0)
    return (x[:, 0] if vector else x), resid, rank, s


def matrix_rank(M: Any, rtol: Any = None, *, tol: Any = None) -> Any:
    """`jnp.linalg.matrix_rank`: singular values above rtol * s_max (or above tol)."""
    (M,) = inexact("matrix_rank", M)
    if _aval(M).ndim < 2:
        return _creation.asarray(_reductions.any(M != 0), dtypes.int32).astype(dtypes.int32)
    s = svd(M, compute_uv=False)
    if tol is None:
        r = _default_rtol(M) if rtol is None else rtol
        cut = _creation.asarray(r, _aval(s).dtype)[..., None] * s[..., :1]
    else:
        cut = _creation.asarray(tol, _aval(s).dtype)[..., None]
    return _reductions.sum(s > cut, axis=-1, dtype=dtypes.int32)


def cond(x: Any, p: Any = None) -> Any:
    """`jnp.linalg.cond`: the condition number in norm p (2 by default: s_max / s_min)."""
    (x,) = inexact("cond", x)
    if p is None or p == 2 or p == -2:
        s = svd(x, compute_uv=False)
        hi, lo = s[..., 0], s[..., -1]
        return hi / lo if p != -2 else lo / hi
    from .linalg_norms import norm
    return norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))

