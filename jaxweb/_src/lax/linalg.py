"""`jax.lax.linalg`: the factorization primitives and their rules, as in JAX.

cholesky, lu (pivots and permutation), qr (Householder), eigh (Jacobi), svd (one-sided
Jacobi), triangular_solve and tridiagonal_solve are primitives with JAX's shape rules
and error messages, JVP rules from the matrix identities (not by differentiating the
loops), a transpose rule where the primitive is linear (the solves in their right-hand
side) and a batching rule that moves the mapped axis in front (every algorithm already
runs over leading batch dimensions).

Lowering: where the target backend declares a routine for the primitive (wasm: cholesky,
lu, triangular_solve; `compiler/linalg_routines.py`), one launch of it. Otherwise each
primitive's algorithm (`linalg_algorithms`) is traced once per shape
and parameters into a jaxpr of ordinary primitives whose loop is one compiled `scan`,
and that jaxpr is lowered in place; so a factorization is a routine of fused whole-batch
kernels on every backend. Evaluated eagerly, a primitive runs as a one-equation jitted
program (one schedule, cached per shape).
"""
from __future__ import annotations

__all__ = ["cholesky", "lu", "qr", "eigh", "eig", "svd", "triangular_solve", "tridiagonal_solve",
           "schur", "lu_pivots_to_permutation", "cholesky_p", "lu_p", "qr_p", "eigh_p", "eig_p", "schur_p", "svd_p",
           "triangular_solve_p", "tridiagonal_solve_p"]

from typing import Any, Callable

from .. import core, dtypes
from ..interpreters import rules as R
from ..interpreters.batching import bdim_at_front
from ..jaxpr import ClosedJaxpr, trace_to_closed_jaxpr
from ..compiler import linalg_routines
from ..lowering import const_node, lower_jaxpr, lowering_rules, target_capabilities
from . import linalg_algorithms as alg
from .reductions import batch_size
from ..executable import one_equation_impl
from . import control_flow as lax_cf
from . import indexing as lax_ix
from . import elementwise as ew
from . import linalg_helpers as lh


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


_mT = lh.mT
#: the conjugate transpose (JAX's rules for complex matrices use it where the real ones
#: transpose; for real x it is the transpose)
_H = lh.H


def _real_aval(a: core.ShapedArray, shape: tuple) -> core.ShapedArray:
    return core.ShapedArray(shape, dtypes.real_part_dtype(a.dtype))


# ---------------------------------------------------------------- lowering by a traced algorithm
_TRACED: dict = {}


def _params_key(params: dict) -> tuple:
    return tuple(sorted(params.items()))


def clear_cache() -> None:
    """Drop the traced algorithm jaxprs (`jax.clear_caches`)."""
    _TRACED.clear()


def _algorithm_jaxpr(prim: core.Primitive, algo: Callable, avals: tuple, params: dict) -> ClosedJaxpr:
    key = (prim, avals, _params_key(params))
    hit = _TRACED.get(key)
    if hit is None:
        def flat(*xs):
            out = algo(*xs, **params)
            return list(out) if prim.multiple_results else [out]
        hit = _TRACED[key] = trace_to_closed_jaxpr(flat, list(avals))
    return hit


def _def_algorithm(prim: core.Primitive, algo: Callable) -> None:
    """Lower `prim` as the jaxpr of `algo`; evaluate it eagerly as a one-equation program."""
    def lower(*nodes, **params):
        routine = linalg_routines.lower(prim.name, nodes, params, target_capabilities())
        if routine is not None:  # the backend's own program for it, one launch
            return routine if prim.multiple_results else routine[0]
        avals = tuple(core.ShapedArray(n.shape, n.dtype) for n in nodes)
        closed = _algorithm_jaxpr(prim, algo, avals, params)
        outs = lower_jaxpr(closed.jaxpr, [const_node(c) for c in closed.consts], list(nodes))
        return outs if prim.multiple_results else outs[0]

    lowering_rules[prim] = lower
    core.impl_rules[prim] = one_equation_impl(prim)


def _check_float(name: str, *avals: core.ShapedArray) -> None:
    for a in avals:
        if a.dtype.kind not in "fc":
            raise TypeError(f"{name} requires floating-point operands (jnp.linalg promotes integers), "
                            f"got dtype {a.dtype.name}")


def _check_rank(name: str, a: core.ShapedArray, i: int = 0) -> None:
    if a.ndim < 2:
        raise TypeError(f"Input {i} to {name} must have rank at least 2, but got shape={a.shape}")


def _front(args: list, dims: list) -> list:
    size = batch_size(args, dims)
    return [bdim_at_front(a, d, size) for a, d in zip(args, dims)]


def _batch_at_front(prim: core.Primitive) -> Callable:
    """Batching rule of a primitive that works over any leading batch dimensions."""
    def rule(args, dims, **params):
        out = prim.bind(*_front(args, dims), **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)
    return rule


def _multi(name: str) -> core.Primitive:
    p = core.Primitive(name)
    p.multiple_results = True
    return p


# ---------------------------------------------------------------- cholesky
cholesky_p = core.Primitive("cholesky")


@core.def_abstract_eval(cholesky_p)
def _cholesky_abstract(a):
    _check_rank("cholesky", a)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to Cholesky decomposition must have shape [..., n, n], got {a.shape}")
    _check_float("cholesky", a)
    return a.update(weak_type=False)


def _cholesky_jvp(primals, tangents):
    """dL = L Φ(L⁻¹ dA L⁻ᴴ), Φ the lower triangle with its diagonal halved."""
    (a,), (da,) = primals, tangents
    low = cholesky_p.bind(a)
    if isinstance(da, R.Zero):
        return low, R.Zero(_aval(low))
    tmp = triangular_solve(low, da, left_side=True, lower=True)
    x = triangular_solve(low, tmp, left_side=False, lower=True, transpose_a=True, conjugate_a=True)
    n = _aval(a).shape[-1]
    rows, cols = lh.grid(n)
    phi = lh.where(rows > cols, x, lh.where(rows == cols, x * 0.5, 0.0))
    return low, lh.matmul(low, phi)


_def_algorithm(cholesky_p, alg.cholesky)
R.primitive_jvps[cholesky_p] = _cholesky_jvp
R.primitive_batchers[cholesky_p] = _batch_at_front(cholesky_p)


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """`lax.linalg.cholesky`: lower-triangular L with L Lᴴ = x; a matrix that is not
    positive definite gives NaN in L's lower triangle (as JAX)."""
    if symmetrize_input:
        x = (x + _H(x)) * 0.5
    return cholesky_p.bind(x)


# ---------------------------------------------------------------- triangular_solve
triangular_solve_p = core.Primitive("triangular_solve")


@core.def_abstract_eval(triangular_solve_p)
def _trsm_abstract(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The first input to triangular_solve must be a square matrix. Got shape {a.shape}.")
    common = -2 if left_side else -1
    if b.ndim != a.ndim or a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[common]:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} and {b.shape}.")
    _check_float("triangular_solve", a, b)
    if a.dtype != b.dtype:
        raise TypeError(f"triangular_solve requires both operands to have the same dtype, got "
                        f"{a.dtype.name} and {b.dtype.name}")
    return b.update(weak_type=False)


def _tri_mask(a: Any, lower: bool, unit_diagonal: bool) -> Any:
    """The part of a that triangular_solve reads (its triangle, without a unit diagonal)."""
    n = _aval(a).shape[-1]
    rows, cols = lh.grid(n)
    keep = (rows > cols if lower else rows < cols) if unit_diagonal else (rows >= cols if lower else rows <= cols)
    return lh.where(keep, a, 0.0)


def _trsm_jvp(primals, tangents, **params):
    """dx = op(a)⁻¹ (db - op(da) x) on the left, (db - x op(da)) op(a)⁻¹ on the right."""
    (a, b), (da, db) = primals, tangents
    x = triangular_solve_p.bind(a, b, **params)
    if isinstance(da, R.Zero) and isinstance(db, R.Zero):
        return x, R.Zero(_aval(x))
    rhs = R.instantiate_zeros(db)
    if not isinstance(da, R.Zero):
        dop = _tri_mask(da, params["lower"], params["unit_diagonal"])
        dop = _mT(dop) if params["transpose_a"] else dop
        dop = lh.conj(dop) if params["conjugate_a"] else dop
        rhs = rhs - (lh.matmul(dop, x) if params["left_side"] else lh.matmul(x, dop))
    return x, triangular_solve_p.bind(a, rhs, **params)


def _trsm_transpose(ct, a, b, **params):
    """Linear in b: the cotangent solves the transposed system (transpose_a toggled)."""
    if isinstance(ct, R.Zero):
        return [None, R.Zero(b.aval)]
    return [None, triangular_solve_p.bind(a, ct, **{**params, "transpose_a": not params["transpose_a"]})]


def _trsm_algorithm(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a = lh.conj(a) if conjugate_a else a  # op(a) = conj(a)ᵀ or conj(a): conjugate first
    return alg.triangular_solve(a, b, left_side, lower, transpose_a, unit_diagonal)


_def_algorithm(triangular_solve_p, _trsm_algorithm)
R.primitive_jvps[triangular_solve_p] = _trsm_jvp
R.primitive_transposes[triangular_solve_p] = _trsm_transpose
R.primitive_batchers[triangular_solve_p] = _batch_at_front(triangular_solve_p)


def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Any:
    """`lax.linalg.triangular_solve`: x with op(a) x = b (left_side) or x op(a) = b, op(a)
    = aᵀ when transpose_a, conjugated when conjugate_a; only a's `lower`/upper triangle is
    read. A b with one dimension fewer than a is a vector."""
    b = ew.asarray(b)
    vector = _aval(b).ndim == _aval(a).ndim - 1
    if vector:
        b = b[..., None] if left_side else b[..., None, :]
    x = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
                                unit_diagonal=bool(unit_diagonal))
    return (x[..., 0] if left_side else x[..., 0, :]) if vector else x


# ---------------------------------------------------------------- lu
lu_p = _multi("lu")


@core.def_abstract_eval(lu_p)
def _lu_abstract(a):
    _check_rank("lu", a)
    _check_float("lu", a)
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    return [a.update(weak_type=False), core.ShapedArray(batch + (min(m, n),), dtypes.int32),
            core.ShapedArray(batch + (m,), dtypes.int32)]


def _lu_jvp(primals, tangents):
    """a[perm] = L U  =>  X = L⁻¹ da[perm] U⁻¹, dL = L tril(X, -1), dU = triu(X) U (square a)."""
    (a,), (da,) = primals, tangents
    lu_, piv, perm = lu_p.bind(a)
    zeros = [R.Zero(_aval(piv)), R.Zero(_aval(perm))]
    if isinstance(da, R.Zero):
        return [lu_, piv, perm], [R.Zero(_aval(lu_))] + zeros
    m, n = _aval(a).shape[-2:]
    if m != n:
        raise NotImplementedError("jaxweb: the derivative of lax.linalg.lu is only implemented for square matrices")
    rows, cols = lh.grid(n)
    low = lh.where(rows > cols, lu_, 0.0) + lh.eye(n, _aval(a).dtype)
    up = lh.where(rows <= cols, lu_, 0.0)
    pda = lh.take_along_axis(da, lh.broadcast_to(perm[..., :, None], _aval(da).shape), axis=-2)
    y = triangular_solve(low, pda, left_side=True, lower=True, unit_diagonal=True)
    x = triangular_solve(up, y, left_side=False, lower=False)
    dl = lh.matmul(low, lh.where(rows > cols, x, 0.0))
    du = lh.matmul(lh.where(rows <= cols, x, 0.0), up)
    return [lu_, piv, perm], [dl + du] + zeros


_def_algorithm(lu_p, alg.lu)
R.primitive_jvps[lu_p] = _lu_jvp
R.primitive_batchers[lu_p] = _batch_at_front(lu_p)


def lu(x: Any) -> tuple[Any, Any, Any]:
    """`lax.linalg.lu`: (lu, pivots, permutation) with x[permutation] = L U, L unit lower
    (below lu's diagonal) and U upper (on and above it); pivots as LAPACK's getrf
    (row i was swapped with row pivots[i])."""
    return tuple(lu_p.bind(x))


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """`lax.linalg.lu_pivots_to_permutation`: the row permutation the swaps produce
    (swap i with pivots[i], in order), as one compiled loop."""
    pivots = ew.asarray(pivots).astype(dtypes.int32)
    batch, k = _aval(pivots).shape[:-1], _aval(pivots).shape[-1]
    idx = lh.arange(permutation_size, dtype=dtypes.int32)

    def step(i, perm):
        p = lax_ix.dynamic_index_in_dim(pivots, i, axis=len(batch), keepdims=True)
        at_i = lax_ix.dynamic_index_in_dim(perm, i, axis=len(batch), keepdims=True)
        at_p = lh.take_along_axis(perm, p, axis=-1)
        return lh.where(idx == i, at_p, lh.where(idx == p, at_i, perm))

    return lax_cf.fori_loop(0, k, step, lh.broadcast_to(idx, batch + (permutation_size,)))


# ---------------------------------------------------------------- qr
qr_p = _multi("qr")


@core.def_abstract_eval(qr_p)
def _qr_abstract(a, *, full_matrices):
    _check_rank("qr", a)
    _check_float("qr", a)
    m, n = a.shape[-2:]
    k = m if full_matrices else min(m, n)
    batch = a.shape[:-2]
    return [core.ShapedArray(batch + (m, k), a.dtype), core.ShapedArray(batch + (k, n), a.dtype)]


def _qr_jvp(primals, tangents, *, full_matrices):
    """For m >= n: C = Qᴴ dA R⁻¹, Ω = tril(C, -1) - tril(C, -1)ᴴ + i diag(Im C) (skew-
    Hermitian; R's diagonal stays real); dQ = Q Ω + (I - Q Qᴴ) dA R⁻¹, dR = (C - Ω) R
    (JAX's rule)."""
    (a,), (da,) = primals, tangents
    q, r = qr_p.bind(a, full_matrices=full_matrices)
    if isinstance(da, R.Zero):
        return [q, r], [R.Zero(_aval(q)), R.Zero(_aval(r))]
    m, n = _aval(a).shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError("Unimplemented case of QR decomposition derivative")
    dx_rinv = triangular_solve(r, da, left_side=False, lower=False)
    qt_dx_rinv = lh.matmul(_H(q), dx_rinv)
    rows, cols = lh.grid(n)
    low = lh.where(rows > cols, qt_dx_rinv, 0.0)
    omega = low - _H(low)
    if lh.is_complex(qt_dx_rinv):
        omega = omega + lh.where(rows == cols, qt_dx_rinv - lh.real(qt_dx_rinv), 0.0)
    dq = lh.matmul(q, omega - qt_dx_rinv) + dx_rinv
    dr = lh.matmul(qt_dx_rinv - omega, r)
    return [q, r], [dq, dr]


_def_algorithm(qr_p, alg.qr)
R.primitive_jvps[qr_p] = _qr_jvp
R.primitive_batchers[qr_p] = _batch_at_front(qr_p)


def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True, use_magma: Any = None) -> tuple[Any, Any]:
    """`lax.linalg.qr`: (q, r) with x = q r, q orthonormal (unitary) columns (m x m when
    full_matrices, else m x min(m, n)) and r upper triangular with a real diagonal."""
    if pivoting:
        raise NotImplementedError("jaxweb: lax.linalg.qr(pivoting=True) is not supported")
    return tuple(qr_p.bind(x, full_matrices=bool(full_matrices)))


# ---------------------------------------------------------------- eigh
eigh_p = _multi("eigh")


@core.def_abstract_eval(eigh_p)
def _eigh_abstract(a, *, lower, sort_eigenvalues):
    _check_rank("eigh", a)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to symmetric eigendecomposition must have shape [..., n, n], got shape {a.shape}")
    _check_float("eigh", a)
    return [a.update(weak_type=False), _real_aval(a, a.shape[:-1])]


def _hermitian_part(a: Any, lower: bool) -> Any:
    """The Hermitian matrix of a's `lower` (or upper) strict triangle and the real part of
    its diagonal (what LAPACK's heevd reads)."""
    n = _aval(a).shape[-1]
    rows, cols = lh.grid(n)
    strict = lh.where(rows > cols if lower else rows < cols, a, 0.0)
    return strict + _H(strict) + lh.where(rows == cols, lh.real(a), 0.0)


def _eigh_algorithm(a, *, lower, sort_eigenvalues):
    return alg.eigh(_hermitian_part(a, lower), sort_eigenvalues)


def _eigh_jvp(primals, tangents, **params):
    """dw = Re diag(Vᴴ dA V); dV = V (F ∘ Vᴴ dA V), F_ij = 1/(w_j - w_i) off the diagonal
    (0 where eigenvalues coincide)."""
    (a,), (da,) = primals, tangents
    v, w = eigh_p.bind(a, **params)
    if isinstance(da, R.Zero):
        return [v, w], [R.Zero(_aval(v)), R.Zero(_aval(w))]
    n = _aval(a).shape[-1]
    rows, cols = lh.grid(n)
    proj = lh.matmul(_H(v), lh.matmul(_hermitian_part(da, params["lower"]), v))
    gap = w[..., None, :] - w[..., :, None]
    off = (rows != cols) & (gap != 0)
    f = lh.where(off, 1.0 / lh.where(off, gap, 1.0), 0.0)
    return [v, w], [lh.matmul(v, f * proj), lh.real(lh.diagonal(proj))]


_def_algorithm(eigh_p, _eigh_algorithm)
R.primitive_jvps[eigh_p] = _eigh_jvp
R.primitive_batchers[eigh_p] = _batch_at_front(eigh_p)


def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index: Any = None) -> tuple[Any, Any]:
    """`lax.linalg.eigh`: (v, w), eigenvectors as v's columns and real eigenvalues w
    (ascending when sort_eigenvalues) of the symmetric (Hermitian) x."""
    if subset_by_index is not None:
        raise NotImplementedError("jaxweb: eigh(subset_by_index=...) is not supported")
    if symmetrize_input:
        x = (x + _H(x)) * 0.5
    return tuple(eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues)))


# ---------------------------------------------------------------- svd
svd_p = _multi("svd")


@core.def_abstract_eval(svd_p)
def _svd_abstract(a, *, full_matrices, compute_uv):
    _check_rank("svd", a)
    _check_float("svd", a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    s = _real_aval(a, batch + (k,))
    if not compute_uv:
        return [s]
    mu, nv = (m, n) if full_matrices else (k, k)
    return [core.ShapedArray(batch + (m, mu), a.dtype), s, core.ShapedArray(batch + (nv, n), a.dtype)]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv):
    """ds = Re diag(Uᴴ dA V); with dP = Uᴴ dA V and F_ij = 1/(s_j² - s_i²):
    dU = U (F ∘ (dP S + S dPᴴ) + ½ (dP - dPᴴ) ∘ I S⁻¹) + (I - U Uᴴ) dA V S⁻¹, and dV
    likewise without the diagonal term (JAX's rule; the diagonal term is 0 for real a)."""
    (a,), (da,) = primals, tangents
    outs = svd_p.bind(a, full_matrices=full_matrices, compute_uv=compute_uv)
    if isinstance(da, R.Zero):
        return outs, [R.Zero(_aval(o)) for o in outs]
    m, n = _aval(a).shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("Singular value decomposition JVP not implemented for full matrices")
    u, s, vh = svd_p.bind(a, full_matrices=False, compute_uv=True)
    v = _H(vh)
    dp = lh.matmul(_H(u), lh.matmul(da, v))
    ds = lh.real(lh.diagonal(dp))
    if not compute_uv:
        return outs, [ds]
    k = min(m, n)
    s2 = s * s
    gap = s2[..., None, :] - s2[..., :, None]
    off = (lh.arange(k)[:, None] != lh.arange(k)[None, :]) & (gap != 0)
    f = lh.where(off, 1.0 / lh.where(off, gap, 1.0), 0.0)
    sinv = lh.where(s == 0, 0.0, 1.0 / lh.where(s == 0, 1.0, s))
    dps, sdp = dp * s[..., None, :], s[..., :, None] * dp
    inner = f * (dps + _H(dps))
    if lh.is_complex(dp):
        eye = lh.arange(k)[:, None] == lh.arange(k)[None, :]
        inner = inner + lh.where(eye, 0.5 * (dp - _H(dp)) * sinv[..., None, :], 0.0)
    du = lh.matmul(u, inner)
    dv = lh.matmul(v, f * (sdp + _H(sdp)))
    if m > k:
        dav = lh.matmul(da, v) * sinv[..., None, :]
        du = du + dav - lh.matmul(u, lh.matmul(_H(u), dav))
    if n > k:
        datu = lh.matmul(_H(da), u) * sinv[..., None, :]
        dv = dv + datu - lh.matmul(v, lh.matmul(_H(v), datu))
    return outs, [du, ds, _H(dv)]


def _svd_algorithm(a, *, full_matrices, compute_uv):
    return alg.svd(a, full_matrices, compute_uv)


_def_algorithm(svd_p, _svd_algorithm)
R.primitive_jvps[svd_p] = _svd_jvp
R.primitive_batchers[svd_p] = _batch_at_front(svd_p)


def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index: Any = None,
        algorithm: Any = None) -> Any:
    """`lax.linalg.svd`: (u, s, vh) with x = u diag(s) vh and s real, descending; s alone
    when compute_uv is False."""
    if subset_by_index is not None:
        raise NotImplementedError("jaxweb: svd(subset_by_index=...) is not supported")
    outs = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    return tuple(outs) if compute_uv else outs[0]


# ---------------------------------------------------------------- eig
eig_p = _multi("eig")


@core.def_abstract_eval(eig_p)
def _eig_abstract(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The input to eig must be a square matrix. Got shape {a.shape}.")
    _check_float("eig", a)
    dt = dtypes.dtype("complex128" if dtypes.real_part_dtype(a.dtype).itemsize == 8 else "complex64")
    w = core.ShapedArray(a.shape[:-1], dt)
    return [w] + [core.ShapedArray(a.shape, dt)] * (int(compute_left_eigenvectors) + int(compute_right_eigenvectors))


_EIGVEC_DERIVS = ("Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input "
                  "that JAX cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass "
                  "enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See "
                  "https://github.com/jax-ml/jax/issues/2748 for discussion.")


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors):
    """dw = diag(V⁻¹ dA V) (JAX's rule); eigenvector derivatives are not provided (JAX's
    need enable_eigvec_derivs)."""
    (a,), (da,) = primals, tangents
    params = dict(compute_left_eigenvectors=compute_left_eigenvectors,
                  compute_right_eigenvectors=compute_right_eigenvectors)
    outs = eig_p.bind(a, **params)
    if isinstance(da, R.Zero):
        return outs, [R.Zero(_aval(o)) for o in outs]
    if compute_left_eigenvectors or compute_right_eigenvectors:
        raise NotImplementedError(_EIGVEC_DERIVS)
    _, vr = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
    da = da.astype(_aval(vr).dtype)
    return outs, [lh.sum(_solve(vr, da) * _mT(vr), axis=-1)]


def _solve(a: Any, b: Any) -> Any:
    """a⁻¹ b for square a (..., n, n) and b (..., n, k), by `lu` and two triangular solves."""
    lu_, _, perm = lu_p.bind(a)
    pb = lh.take_along_axis(b, perm[..., :, None], axis=-2)
    y = triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu_, y, left_side=True, lower=False)


def _inv(a: Any) -> Any:
    return _solve(a, lh.broadcast_to(lh.eye(_aval(a).shape[-1], _aval(a).dtype), _aval(a).shape))


def _eig_algorithm(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
    return alg.eig(a, compute_left_eigenvectors, compute_right_eigenvectors, _inv)


_def_algorithm(eig_p, _eig_algorithm)
R.primitive_jvps[eig_p] = _eig_jvp
R.primitive_batchers[eig_p] = _batch_at_front(eig_p)


def eig(x: Any, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation: Any = None, use_magma: Any = None) -> list:
    """`lax.linalg.eig`: [w, vl, vr] (those asked for) of a general square matrix, complex:
    eigenvalues in the complex Schur form's order (not sorted; LAPACK's order may differ)
    and unit eigenvectors whose largest entry is real (LAPACK's geev normalization)."""
    if enable_eigvec_derivs:
        raise NotImplementedError("jaxweb: lax.linalg.eig(enable_eigvec_derivs=True) is not supported")
    return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                      compute_right_eigenvectors=bool(compute_right_eigenvectors))


# ---------------------------------------------------------------- schur
schur_p = _multi("schur")


@core.def_abstract_eval(schur_p)
def _schur_abstract(a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {a.shape}.")
    _check_float("schur", a)
    if a.dtype.kind != "c":
        raise NotImplementedError("jaxweb: lax.linalg.schur of a real matrix (the real Schur form) is not "
                                  "supported; pass a complex matrix for the complex Schur form")
    return [a.update(weak_type=False)] * 2


_def_algorithm(schur_p, lambda a: list(alg.schur(a)))
R.primitive_batchers[schur_p] = _batch_at_front(schur_p)


def schur(x: Any, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable: Any = None) -> tuple[Any, Any]:
    """`lax.linalg.schur` of a complex matrix: (T, Z), x = Z T Zᴴ, T upper triangular
    (no derivative, as JAX's)."""
    if sort_eig_vals or select_callable is not None:
        raise NotImplementedError("jaxweb: schur(sort_eig_vals=True / select_callable) is not supported")
    t, z = schur_p.bind(x)
    return (t, z) if compute_schur_vectors else (t, None)


# ---------------------------------------------------------------- tridiagonal_solve
tridiagonal_solve_p = core.Primitive("tridiagonal_solve")


@core.def_abstract_eval(tridiagonal_solve_p)
def _tridiag_abstract(dl, d, du, b):
    for i, x in enumerate((dl, d, du)):
        if x.ndim < 1:
            raise TypeError(f"Input {i} to tridiagonal_solve must have rank at least 1, but got shape={x.shape}")
    _check_rank("tridiagonal_solve", b, 3)
    if not dl.shape == d.shape == du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same shape.")
    if b.shape[:-1] != d.shape:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the "
                        "dimensions of the diagonal arguments.")
    _check_float("tridiagonal_solve", dl, d, du, b)
    return b.update(weak_type=False)


def _tridiag_matvec(dl, d, du, x):
    """A x for the tridiagonal A (dl[0] and du[-1] are ignored, as LAPACK's gtsv)."""
    zero = lh.zeros_like(x[..., :1, :])
    below = lh.concatenate([zero, x[..., :-1, :]], axis=-2)
    above = lh.concatenate([x[..., 1:, :], zero], axis=-2)
    m = _aval(d).shape[-1]
    idx = lh.arange(m)
    dl = lh.where(idx == 0, 0.0, dl)
    du = lh.where(idx == m - 1, 0.0, du)
    return dl[..., None] * below + d[..., None] * x + du[..., None] * above


def _tridiag_jvp(primals, tangents):
    """dx = A⁻¹ (db - dA x)."""
    dl, d, du, b = primals
    x = tridiagonal_solve_p.bind(*primals)
    if all(isinstance(t, R.Zero) for t in tangents):
        return x, R.Zero(_aval(x))
    tdl, td, tdu, tb = (R.instantiate_zeros(t) for t in tangents)
    return x, tridiagonal_solve_p.bind(dl, d, du, tb - _tridiag_matvec(tdl, td, tdu, x))


def _tridiag_transpose(ct, dl, d, du, b):
    """Linear in b: Aᵀ has sub-diagonal du shifted down and super-diagonal dl shifted up."""
    if isinstance(ct, R.Zero):
        return [None, None, None, R.Zero(b.aval)]
    zero = lh.zeros_like(d[..., :1])
    dl_t = lh.concatenate([zero, du[..., :-1]], axis=-1)
    du_t = lh.concatenate([dl[..., 1:], zero], axis=-1)
    return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct)]


_def_algorithm(tridiagonal_solve_p, alg.tridiagonal_solve)
R.primitive_jvps[tridiagonal_solve_p] = _tridiag_jvp
R.primitive_transposes[tridiagonal_solve_p] = _tridiag_transpose
R.primitive_batchers[tridiagonal_solve_p] = _batch_at_front(tridiagonal_solve_p)


def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any) -> Any:
    """`lax.linalg.tridiagonal_solve`: x with A x = b, A tridiagonal with sub-diagonal dl
    (dl[..., 0] unused), diagonal d and super-diagonal du (du[..., -1] unused)."""
    return tridiagonal_solve_p.bind(dl, d, du, b)
