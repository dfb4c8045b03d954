"""`jax.scipy.linalg`: scipy's names and conventions over `lax.linalg`'s primitives.

scipy differs from numpy in its defaults (upper Cholesky, (w, v) tuples, LAPACK pivots,
permutation matrices, QR modes 'full'/'economic'/'r'), which this module reproduces;
the factorizations, their derivatives and batching come from `lax.linalg`. `expm` is
Padé approximation with scaling and squaring (degree 7 in float32, 13 in float64, as
Higham's thresholds), written with differentiable operations so its gradient is
ordinary autodiff; the squaring count is data-dependent but the loop is static
(`max_squarings` masked squarings), so it traces under jit. schur (the complex form)
and sqrtm (from it) run the shifted QR algorithm of `lax.linalg.schur`. Complex
matrices take conjugate transposes where scipy does (Cholesky's a = Uᴴ U, trans='C',
polar's p = V S Vᴴ, assume_a='her').
"""
from __future__ import annotations

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm", "inv", "lu",
           "lu_factor", "lu_solve", "polar", "qr", "schur", "solve", "solve_triangular", "sqrtm", "svd"]

from typing import Any

import jaxweb.lax as lax
import jaxweb.numpy as jnp

from .. import core, dtypes
from ..lax import linalg as lax_linalg
from ..numpy import linalg_factor as F
from ..numpy import linalg_spectral as S


def _shape(x: Any) -> tuple[int, ...]:
    return core.get_aval(x).shape


def _mT(x: Any) -> Any:
    return jnp.swapaxes(x, -1, -2)


def _H(x: Any) -> Any:
    return jnp.conj(_mT(x))


def _vector_rhs(name: str, a: Any, b: Any) -> tuple[Any, bool]:
    """b as (..., n, k), whether it was a vector, broadcast against a's batch dims; numpy
    vectorize's messages for a size mismatch (JAX's functions are vectorized)."""
    n = _shape(a)[-1]
    vector = len(_shape(b)) == 1 or (len(_shape(b)) == len(_shape(a)) - 1 and _shape(b)[-1] == n)
    got = _shape(b)[-1] if vector else _shape(b)[-2]
    if got != n:
        sig = "(n,n),(n)->(n)" if vector else "(n,n),(n,m)->(n,m)"
        raise F._vectorize_error(sig, "n", got, n)
    if vector:
        b = b[..., None]
    batch = jnp.broadcast_shapes(_shape(a)[:-2], _shape(b)[:-2])
    return jnp.broadcast_to(a, batch + (n, n)), jnp.broadcast_to(b, batch + _shape(b)[-2:]), vector


def _square(name: str, a: Any) -> None:
    if len(_shape(a)) < 2 or _shape(a)[-1] != _shape(a)[-2]:
        raise ValueError(f"{name}: expected a (batched) square matrix, got shape {_shape(a)}")


# ---------------------------------------------------------------- triangular and Cholesky
def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug: Any = None, check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.solve_triangular`: x with op(a) x = b, op per `trans`
    (0/'N': a, 1/'T': aᵀ, 2/'C': aᴴ)."""
    a, b = F.inexact("solve_triangular", a, b)
    _square("solve_triangular", a)
    transpose = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}.get(trans)
    conjugate = trans in (2, "C")
    if transpose is None:
        raise ValueError(f"Invalid 'trans' value {trans!r}")
    a, b, vector = _vector_rhs("solve_triangular", a, b)
    x = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose,
                                    conjugate_a=conjugate, unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.cholesky`: upper U with Uᴴ U = a by default (scipy's), lower if asked."""
    return F.cholesky(a, upper=not lower)


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> tuple:
    """`jax.scipy.linalg.cho_factor`: (c, lower) for cho_solve; c is the triangular factor
    (the other triangle zero)."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower: tuple, b: Any, overwrite_b: bool = False, check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.cho_solve`: x with a x = b from cho_factor's (c, lower)."""
    c, lower = c_and_lower
    c, b = F.inexact("cho_solve", c, b)
    _square("cho_solve", c)
    c, b, vector = _vector_rhs("cho_solve", c, b)
    # a = L Lᴴ (lower) or Uᴴ U: solve with the first factor, then with its conjugate transpose
    y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                    conjugate_a=not lower)
    x = lax_linalg.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower, conjugate_a=lower)
    return x[..., 0] if vector else x


# ---------------------------------------------------------------- LU
def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
    """`jax.scipy.linalg.lu_factor`: (lu, piv), LAPACK's getrf pivots (row i swapped with
    piv[i]); a may be rectangular."""
    (a,) = F.inexact("lu_factor", a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def lu_solve(lu_and_piv: tuple, b: Any, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.lu_solve`: x with a x = b (trans=0), aᵀ x = b (1) or aᴴ x = b (2)."""
    lu_, piv = lu_and_piv
    lu_, b = F.inexact("lu_solve", lu_, b)
    _square("lu_solve", lu_)
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    perm = lax_linalg.lu_pivots_to_permutation(piv, _shape(lu_)[-1])
    lu_, b, vector = _vector_rhs("lu_solve", lu_, b)
    perm = jnp.broadcast_to(perm, _shape(lu_)[:-1])
    x = F.lu_solve(lu_, perm, b, trans=trans)
    return x[..., 0] if vector else x


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> tuple:
    """`jax.scipy.linalg.lu`: (p, l, u) with a = p l u, p a permutation matrix, l unit lower
    (m x k), u upper (k x n); (p l, u) when permute_l."""
    (a,) = F.inexact("lu", a)
    m, n = _shape(a)[-2:]
    k = min(m, n)
    lu_, _, perm = lax_linalg.lu(a)
    dt = core.get_aval(a).dtype
    rows_k, cols_k = jnp.arange(m)[:, None], jnp.arange(k)[None, :]
    low = jnp.where(rows_k > cols_k, lu_[..., :, :k], 0.0) + jnp.eye(m, k, dtype=dt)
    rows_u, cols_u = jnp.arange(k)[:, None], jnp.arange(n)[None, :]
    up = jnp.where(rows_u <= cols_u, lu_[..., :k, :], 0.0)
    p = (perm[..., :, None] == jnp.arange(m)).astype(dt)  # p[perm[i], i] = 1 as pᵀ
    p = _mT(p)
    return (jnp.matmul(p, low), up) if permute_l else (p, low, up)


# ---------------------------------------------------------------- QR, SVD, eigh, polar
def qr(a: Any, overwrite_a: bool = False, lwork: Any = None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.qr`: (q, r) in mode 'full' (q m x m) or 'economic' (m x k);
    (r,) in mode 'r'."""
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if pivoting:
        raise NotImplementedError("jaxweb: scipy.linalg.qr(pivoting=True) is not supported")
    (a,) = F.inexact("qr", a)
    q, r = lax_linalg.qr(a, full_matrices=mode != "economic")
    return (r,) if mode == "r" else (q, r)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Any:
    """`jax.scipy.linalg.svd`: (u, s, vh) or s."""
    out = S.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def eigh(a: Any, b: Any = None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals: Any = None, type: int = 1,
         check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.eigh`: (w, v) of the symmetric a (symmetrized first, as JAX's)."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    w, v = S.eigh(a, UPLO="L" if lower else "U", symmetrize_input=True)
    return w if eigvals_only else (w, v)


def polar(a: Any, side: str = "right", *, method: str = "qdwh", eps: Any = None,
          max_iterations: Any = None) -> tuple[Any, Any]:
    """`jax.scipy.linalg.polar`, both methods by the SVD: a = u p (right) or p u (left), u = U Vh
    orthonormal, p = V S Vh (right) or U S Uᴴ (left) Hermitian positive semidefinite."""
    if side not in ("right", "left"):
        raise ValueError(f"side={side!r} is not one of 'right', 'left'")
    if method not in ("svd", "qdwh"):
        raise ValueError(f"Unknown polar decomposition method {method!r}.")
    (a,) = F.inexact("polar", a)
    u_svd, s, vh = S.svd(a, full_matrices=False)
    unitary = jnp.matmul(u_svd, vh)
    if side == "right":
        p = jnp.matmul(_H(vh) * s[..., None, :], vh)
    else:
        p = jnp.matmul(u_svd * s[..., None, :], _H(u_svd))
    return unitary, p


# ---------------------------------------------------------------- schur, sqrtm
def _complex(a: Any) -> Any:
    dt = core.get_aval(a).dtype
    return a if dt.kind == "c" else a.astype(dtypes.dtype("complex128" if dt.itemsize == 8 else "complex64"))


def schur(a: Any, output: str = "real") -> tuple[Any, Any]:
    """`jax.scipy.linalg.schur`: (T, Z), a = Z T Zᴴ; the complex form (output='complex',
    or any complex a); the real quasi-triangular form of a real a is not provided."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got output={output!r}.")
    (a,) = F.inexact("schur", a)
    if output == "real" and core.get_aval(a).dtype.kind != "c":
        raise NotImplementedError("jaxweb: scipy.linalg.schur(output='real') of a real matrix is not "
                                  "supported; use output='complex'")
    return lax_linalg.schur(_complex(a))


def sqrtm(A: Any, blocksize: int = 1) -> Any:
    """`jax.scipy.linalg.sqrtm`: the principal square root, complex, from the Schur form
    A = Z T Zᴴ: U = √T upper triangular by superdiagonals (U_ii = √T_ii, U_ij = (T_ij −
    Σ U_ik U_kj) / (U_ii + U_jj), the sum being (U U)_ij while U's later diagonals are 0),
    then Z U Zᴴ."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    (A,) = F.inexact("sqrtm", A)
    if len(_shape(A)) != 2 or _shape(A)[0] != _shape(A)[1]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {_shape(A)}.")
    t, z = lax_linalg.schur(_complex(A))
    n = _shape(A)[-1]
    rows, cols = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    d = jnp.sqrt(jnp.diagonal(t))
    u = jnp.where(rows == cols, d[:, None], 0.0).astype(core.get_aval(t).dtype)

    def diagonal(k, u):
        new = (t - jnp.matmul(u, u)) / (d[:, None] + d[None, :])
        return jnp.where(cols - rows == k, new, u)

    u = lax.fori_loop(1, n, diagonal, u)
    return jnp.matmul(z, jnp.matmul(u, _H(z)))


# ---------------------------------------------------------------- inv, det, solve, block_diag
def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.inv`."""
    return F.inv(a)


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """`jax.scipy.linalg.det`."""
    return F.det(a)


def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen") -> Any:
    """`jax.scipy.linalg.solve`: LU for general a; Cholesky for assume_a='pos' (symmetric
    and 'her' read a's `lower`/upper triangle and solve with LU)."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"Expected assume_a to be one of ['gen', 'sym', 'her', 'pos'], got {assume_a!r}")
    a, b = F.inexact("solve", a, b)
    _square("solve", a)
    if assume_a == "gen":
        return F.solve(a, b)
    n = _shape(a)[-1]
    rows, cols = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    tri = jnp.where(rows >= cols if lower else rows <= cols, a, 0.0)
    other = _mT(jnp.where(rows == cols, 0.0, tri))
    sym = tri + (jnp.conj(other) if assume_a in ("her", "pos") else other)
    if assume_a == "pos":
        return cho_solve(cho_factor(sym, lower=True), b)
    a2, b2, vector = _vector_rhs("solve", sym, b)
    x = F.solve(a2, b2)
    return x[..., 0] if vector else x


def block_diag(*arrs: Any) -> Any:
    """`jax.scipy.linalg.block_diag`: the arrays (0-d as 1x1, 1-d as a row) on the diagonal
    of one matrix of their promoted dtype."""
    if not arrs:
        return jnp.zeros((1, 0))
    arrs = [jnp.atleast_2d(jnp.asarray(x)) for x in arrs]
    for x in arrs:
        if len(_shape(x)) != 2:
            raise ValueError(f"Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, "
                             f"got {x} at argument {arrs.index(x)}.")
    dt = jnp.result_type(*arrs)
    cols = sum(_shape(x)[1] for x in arrs)
    rows, left = [], 0
    for x in arrs:
        r, c = _shape(x)
        rows.append(jnp.pad(x.astype(dt), ((0, 0), (left, cols - left - c))))
        left += c
    return jnp.concatenate(rows, axis=0)


# ---------------------------------------------------------------- expm
_PADE7 = (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0)
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
#: the 1-norm below which Padé of that degree is accurate to the unit roundoff (Higham 2005)
_THETA = {7: 3.925724783138660, 13: 5.371920351148152}


def _pade(a: Any, degree: int) -> tuple[Any, Any]:
    """(P, Q) with exp(a) ≈ Q⁻¹ P: P = V + U, Q = V - U (U odd powers, V even)."""
    n = _shape(a)[-1]
    eye = jnp.eye(n, dtype=core.get_aval(a).dtype)
    a2 = jnp.matmul(a, a)
    a4 = jnp.matmul(a2, a2)
    a6 = jnp.matmul(a4, a2)
    if degree == 7:
        b = _PADE7
        u = jnp.matmul(a, b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        v = b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    else:
        b = _PADE13
        u = jnp.matmul(a, jnp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                       + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        v = jnp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    return v + u, v - u


def expm(A: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:
    """`jax.scipy.linalg.expm`: exp(A) = (exp(A / 2^s))^(2^s), s chosen from A's 1-norm
    (at most max_squarings; beyond that the result is NaN, as JAX)."""
    (A,) = F.inexact("expm", A)
    if len(_shape(A)) < 2 or _shape(A)[-1] != _shape(A)[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={_shape(A)}.")
    degree = 13 if core.get_aval(A).dtype == dtypes.float64 else 7
    norm = lax.stop_gradient(jnp.max(jnp.sum(jnp.abs(A), axis=-2), axis=-1))
    s = jnp.maximum(0.0, jnp.ceil(jnp.log2(norm / _THETA[degree])))
    s = jnp.where(norm == 0, 0.0, s)
    scaled = A / jnp.power(2.0, s)[..., None, None].astype(core.get_aval(A).dtype)
    p, q = _pade(scaled, degree)
    r = F.solve(q, p)

    def square(i, r):
        return jnp.where((i < s)[..., None, None], jnp.matmul(r, r), r)

    r = lax.fori_loop(0, max_squarings, square, r)
    return jnp.where((s > max_squarings)[..., None, None], jnp.nan, r)
