"""`jnp.linalg` by factorization: cholesky, LU with partial pivoting (det, slogdet, solve,
inv), triangular solves, matrix_power, multi_dot, tensorsolve, tensorinv.

The factorizations are `lax.linalg`'s primitives (compiled loops over whole-batch
kernels, with JVP rules from the matrix identities); this module adds numpy's API,
dtype promotion and JAX's error messages on top.
"""
from __future__ import annotations

__all__ = ["cholesky", "det", "slogdet", "solve", "inv", "matrix_power", "multi_dot", "tensorsolve",
           "tensorinv", "SlogdetResult"]

import functools
import operator
from typing import Any, NamedTuple, Sequence

from .. import core, dtypes
from ..custom_derivatives import custom_jvp
from ..lax import elementwise as lax, linalg as lax_linalg
from .util import check_arraylike, ensure_array, promote_dtypes
from . import (creation as _creation, indexing as _indexing, linalg_ops as _linalg_ops,
    reductions as _reductions, shape as _shape, sorting as _sorting, ufuncs as _ufuncs)


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def inexact(name: str, *xs: Any) -> list:
    """Arrays in a common inexact dtype (integers and bools become the default float;
    real and complex floats stay as they are)."""
    check_arraylike(name, *xs)
    xs = promote_dtypes(*[ensure_array(x) for x in xs])
    dt = _aval(xs[0]).dtype
    if dt.kind in "biu":
        xs = [lax.convert_element_type(x, dtypes.default_float()) for x in xs]
    return xs


def square(name: str, a: Any) -> int:
    shape = _aval(a).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{name} requires a square matrix (or a stack of them), got shape {shape}")
    return shape[-1]


# ---------------------------------------------------------------- cholesky
def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """`jnp.linalg.cholesky`: lower L with L Lᴴ = a (upper Lᴴ if `upper`); NaN where a is
    not positive definite, as in JAX."""
    (a,) = inexact("cholesky", a)
    square("cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _ufuncs.conj(_shape.swapaxes(L, -1, -2)) if upper else L


# ---------------------------------------------------------------- LU with partial pivoting
def lu_factor(a: Any) -> tuple[Any, Any, Any]:
    """(LU packed, permutation, parity sign) of square (batched) a: a[perm] = L U."""
    lu, pivots, perm = lax_linalg.lu(a)
    swaps = _reductions.sum(pivots != _creation.arange(_aval(pivots).shape[-1], dtype=dtypes.int32), axis=-1)
    sign = _ufuncs.where(swaps % 2 == 1, -1.0, 1.0).astype(_aval(a).dtype)
    return lu, perm, sign


def _diag(x: Any) -> Any:
    return _shape.diagonal(x, axis1=-2, axis2=-1)


def slogdet(a: Any, *, method: str | None = None) -> SlogdetResult:
    """`jnp.linalg.slogdet`: (sign, log|det|) from the LU factors; for complex a the sign
    is the unit complex number det / |det| (0 for a singular a) and log|det| is real."""
    (a,) = inexact("slogdet", a)
    if _aval(a).ndim < 2 or _aval(a).shape[-1] != _aval(a).shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {_aval(a).shape}")
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and 'qr'."
                         if method != "qr" else "jaxweb: slogdet(method='qr') is not supported")
    if _aval(a).shape[-1] == 0:
        shape = _aval(a).shape[:-2]
        real = dtypes.real_part_dtype(_aval(a).dtype)
        return SlogdetResult(_creation.ones(shape, _aval(a).dtype), _creation.zeros(shape, real))
    return SlogdetResult(*_slogdet_lu(a))


@custom_jvp
def _slogdet_lu(a: Any) -> tuple[Any, Any]:
    lu, _, parity = lu_factor(a)
    d = _diag(lu)
    sign = parity * _reductions.prod(_ufuncs.sign(d), axis=-1)  # sign(z) = z / |z| for complex z
    return sign, _reductions.sum(_ufuncs.log(_ufuncs.abs(d)), axis=-1)


@_slogdet_lu.defjvp
def _slogdet_jvp(primals: tuple, tangents: tuple) -> tuple:
    """JAX's rule: t = tr(a⁻¹ da); d log|det| = Re t, d sign = i Im(t) sign (0 for real a)."""
    (a,), (da,) = primals, tangents
    sign, logabs = _slogdet_lu(a)
    t = _shape.trace(solve(a, da), axis1=-2, axis2=-1)
    if _aval(a).dtype.kind != "c":
        return (sign, logabs), (_creation.zeros_like(sign), t)
    return (sign, logabs), ((t - _ufuncs.real(t)) * sign, _ufuncs.real(t))


def det(a: Any) -> Any:
    """`jnp.linalg.det`: the product of U's diagonal times the permutation's parity."""
    (a,) = inexact("det", a)
    if _aval(a).ndim < 2 or _aval(a).shape[-1] != _aval(a).shape[-2]:
        raise ValueError(f"Argument to _det() must have shape [..., n, n], got {_aval(a).shape}")
    n = _aval(a).shape[-1]
    if n == 0:
        return _creation.ones(_aval(a).shape[:-2], _aval(a).dtype)
    if n == 1:
        return a[..., 0, 0]
    if n == 2:  # closed form: exact zero for singular integer-valued input, cheaper
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    lu, _, parity = lu_factor(a)
    return parity * _reductions.prod(_diag(lu), axis=-1)


def lu_solve(lu: Any, perm: Any, b: Any, trans: int = 0) -> Any:
    """x with a x = b (trans=0), aᵀ x = b (trans=1) or aᴴ x = b (trans=2) from
    a[perm] = L U; b (..., n, k)."""
    if trans == 0:
        rows = _shape.broadcast_to(perm[..., :, None], _aval(perm).shape + (_aval(b).shape[-1],))
        pb = _indexing.take_along_axis(b, rows, axis=-2)
        y = lax_linalg.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
        return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)
    # aᵀ = Uᵀ Lᵀ P: solve Uᵀ y = b, Lᵀ z = y, then x[perm] = z (conjugated for aᴴ)
    conj = trans == 2
    y = lax_linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
    z = lax_linalg.triangular_solve(lu, y, left_side=True, lower=True, transpose_a=True, conjugate_a=conj,
                                    unit_diagonal=True)
    inv_perm = _sorting.argsort(perm, axis=-1)
    return _indexing.take_along_axis(z, _shape.broadcast_to(inv_perm[..., :, None], _aval(z).shape), axis=-2)


def _vectorize_error(sig: str, dim: str, got: int, want: int) -> ValueError:
    return ValueError(f"inconsistent size for core dimension '{dim}': {got} vs {want} on vectorized function "
                      f"with excluded=frozenset() and signature='{sig}'")


def solve(a: Any, b: Any) -> Any:
    """`jnp.linalg.solve`: x with a x = b; b is a vector if 1-d, else (..., n, k) matrices
    (batch dimensions broadcast), as in JAX >= 0.5."""
    a, b = inexact("solve", a, b)
    as_, bs = _aval(a).shape, _aval(b).shape
    if len(as_) < 2 or as_[-1] != as_[-2]:
        raise ValueError(f"solve: a must be a (batched) square matrix, got shape {as_}")
    n = as_[-1]
    vector = len(bs) == 1
    if vector:
        if bs[0] != n:
            raise _vectorize_error("(m,m),(m)->(m)", "m", bs[0], n)
        b = b[:, None]
    elif len(as_) == len(bs) + 1 and bs[-1] == n and bs[-2] != n:
        raise ValueError(f"Invalid shapes for solve: {as_}, {bs}. Prior to JAX v0.5.0, this would "
                         "have been treated as a batched 1-dimensional solve. To recover this "
                         "behavior, use solve(a, b[..., None]).squeeze(-1).")
    elif bs[-2] != n:
        raise _vectorize_error("(m,m),(m,n)->(m,n)", "m", bs[-2], n)
    batch = _shape.broadcast_shapes(as_[:-2], _aval(b).shape[:-2])
    a = _shape.broadcast_to(a, batch + (n, n))
    b = _shape.broadcast_to(b, batch + _aval(b).shape[-2:])
    lu, perm, _ = lu_factor(a)
    x = lu_solve(lu, perm, b)
    return x[..., 0] if vector else x


def inv(a: Any) -> Any:
    """`jnp.linalg.inv`: solve(a, I); a singular a gives inf/NaN entries, as JAX."""
    (a,) = inexact("inv", a)
    if _aval(a).ndim < 2 or _aval(a).shape[-1] != _aval(a).shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {_aval(a).shape}.")
    n = _aval(a).shape[-1]
    eye = _shape.broadcast_to(_creation.eye(n, dtype=_aval(a).dtype), _aval(a).shape)
    lu, perm, _ = lu_factor(a)
    return lu_solve(lu, perm, eye)


def matrix_power(a: Any, n: int) -> Any:
    """`jnp.linalg.matrix_power`: a^n by repeated squaring (n < 0 inverts first)."""
    check_arraylike("matrix_power", a)
    a = ensure_array(a)
    size = square("matrix_power", a)
    n = operator.index(n)
    if n == 0:
        return _shape.broadcast_to(_creation.eye(size, dtype=_aval(a).dtype), _aval(a).shape)
    if n < 0:
        a, n = inv(a), -n
    result = None
    while n:
        if n & 1:
            result = a if result is None else _linalg_ops.matmul(result, a)
        n >>= 1
        if n:
            a = _linalg_ops.matmul(a, a)
    return result


def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Any:
    """`jnp.linalg.multi_dot`: the product of the matrices, in einsum's contraction order
    (a 1-d first/last array is a row/column vector)."""
    arrays = [ensure_array(x) for x in arrays]
    if len(arrays) < 2:
        raise ValueError("multi_dot requires at least two arrays")
    first, last = _aval(arrays[0]).ndim == 1, _aval(arrays[-1]).ndim == 1
    if first:
        arrays[0] = arrays[0][None, :]
    if last:
        arrays[-1] = arrays[-1][:, None]
    letters = "abcdefghijklmnopqrstuvwxyz"
    subs = ",".join(letters[i] + letters[i + 1] for i in range(len(arrays)))
    out = _linalg_ops.einsum(f"{subs}->{letters[0]}{letters[len(arrays)]}", *arrays, optimize="greedy")
    if first:
        out = out[0]
    if last:
        out = out[..., 0]
    return out


def tensorinv(a: Any, ind: int = 2) -> Any:
    """`jnp.linalg.tensorinv`: the inverse of a viewed as a matrix (first `ind` axes rows)."""
    (a,) = inexact("tensorinv", a)
    shape = _aval(a).shape
    rows, cols = shape[:ind], shape[ind:]
    n = functools.reduce(operator.mul, rows, 1)
    if n != functools.reduce(operator.mul, cols, 1):
        raise ValueError(f"tensorinv: a.shape[:ind] and a.shape[ind:] must have equal size, got {shape}")
    return _shape.reshape(inv(_shape.reshape(a, (n, n))), cols + rows)


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Any:
    """`jnp.linalg.tensorsolve`: x with tensordot(a, x, x.ndim) = b."""
    a, b = inexact("tensorsolve", a, b)
    if axes is not None:
        nd = _aval(a).ndim
        moved = [ax % nd for ax in axes]
        a = _shape.moveaxis(a, moved, list(range(nd - len(moved), nd)))
    bshape = _aval(b).shape
    xshape = _aval(a).shape[len(bshape):]
    n = functools.reduce(operator.mul, bshape, 1)
    m = functools.reduce(operator.mul, xshape, 1)
    if n != m:
        raise ValueError(f"tensorsolve: shapes do not give a square system ({n} equations, {m} unknowns)")
    return _shape.reshape(solve(_shape.reshape(a, (n, m)), _shape.reshape(b, (n,))), xshape)
