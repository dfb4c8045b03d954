"""`jnp.linalg` by factorization: cholesky, LU with partial pivoting (det, slogdet, solve,
inv), triangular solves, matrix_power, multi_dot, tensorsolve, tensorinv.

The factorizations are unrolled over the (static) matrix size into jnp operations on
whole (batched) matrices — one pivot or column per step, selected with masks — so they
run on every device, batch over leading dimensions, trace under jit and differentiate
by ordinary autodiff. Sizes are meant for the small and medium matrices of models
(tens to a few hundreds); there is no blocked algorithm.
"""
from __future__ import annotations

__all__ = ["cholesky", "det", "slogdet", "solve", "inv", "matrix_power", "multi_dot", "tensorsolve",
           "tensorinv", "SlogdetResult"]

import functools
import importlib
import operator
from typing import Any, NamedTuple, Sequence

from .. import core, dtypes
from ..lax import elementwise as lax
from .util import check_arraylike, ensure_array


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


def _jnp() -> Any:
    return importlib.import_module("jaxweb.numpy")


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def inexact(name: str, *xs: Any, allow_complex: bool = False) -> list:
    """Arrays in a common inexact dtype (integers and bools become the default float);
    complex ones only where the caller handles them (the factorizations are real only)."""
    from .util import promote_dtypes
    check_arraylike(name, *xs)
    xs = promote_dtypes(*[ensure_array(x) for x in xs])
    dt = _aval(xs[0]).dtype
    if dt.kind == "c" and not allow_complex:
        raise NotImplementedError(f"jnp.linalg.{name}: jaxweb's linear algebra routines are real only "
                                  "(complex matrices are not supported)")
    if dt.kind in "biu":
        xs = [lax.convert_element_type(x, dtypes.default_float()) for x in xs]
    return xs


def square(name: str, a: Any) -> int:
    shape = _aval(a).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{name} requires a square matrix (or a stack of them), got shape {shape}")
    return shape[-1]


def _iota(n: int, axis: int, nd: int) -> Any:
    shape = [1] * nd
    shape[axis] = n
    return lax.broadcasted_iota(dtypes.int32, tuple(shape), axis)


# ---------------------------------------------------------------- cholesky
def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """`jnp.linalg.cholesky`: lower L with L Lᵀ = a (upper Lᵀ if `upper`); NaN where a is
    not positive definite, as in JAX."""
    jnp = _jnp()
    (a,) = inexact("cholesky", a)
    n = square("cholesky", a)
    if symmetrize_input:
        a = (a + jnp.swapaxes(a, -1, -2)) * 0.5
    cols: list = []
    for j in range(n):
        so_far = jnp.stack(cols, axis=-1) if cols else None  # (..., n, j)
        if so_far is None:
            d = a[..., j, j]
        else:
            row = so_far[..., j, :]
            d = a[..., j, j] - jnp.sum(row * row, axis=-1)
        ljj = jnp.sqrt(d)
        below = a[..., :, j] if so_far is None else a[..., :, j] - jnp.einsum("...ij,...j->...i", so_far, row)
        rows = _iota(n, _aval(a).ndim - 2, _aval(a).ndim - 1)
        col = jnp.where(rows > j, below / ljj[..., None], jnp.where(rows == j, ljj[..., None], 0.0))
        cols.append(col)
    L = jnp.stack(cols, axis=-1)
    return jnp.swapaxes(L, -1, -2) if upper else L


# ---------------------------------------------------------------- LU with partial pivoting
def lu_factor(a: Any) -> tuple[Any, Any, Any]:
    """(LU packed, permutation, parity sign) of square (batched) a: P a = L U, L unit lower."""
    jnp = _jnp()
    n = _aval(a).shape[-1]
    nd = _aval(a).ndim
    rows = _iota(n, nd - 2, nd)  # (..., n, 1) broadcastable
    cols = _iota(n, nd - 1, nd)
    idx = lax.broadcasted_iota(dtypes.int32, (n,), 0)
    perm = jnp.broadcast_to(idx, _aval(a).shape[:-1])
    sign = jnp.ones(_aval(a).shape[:-2], _aval(a).dtype)
    for k in range(n):
        col = jnp.abs(a[..., :, k])
        col = jnp.where(idx >= k, col, -1.0)
        p = jnp.argmax(col, axis=-1)  # (...,)
        swap = jnp.where(idx == k, p[..., None], jnp.where(idx == p[..., None], k, idx))
        a = jnp.take_along_axis(a, swap[..., :, None], axis=-2)
        perm = jnp.take_along_axis(perm, swap, axis=-1)
        sign = jnp.where(p != k, -sign, sign)
        pivot = a[..., k, k]
        safe = jnp.where(pivot == 0, 1.0, pivot)
        factors = jnp.where(idx > k, a[..., :, k] / safe[..., None], 0.0)  # (..., n)
        pivot_row = jnp.where(idx > k, a[..., k, :], 0.0)
        a = a - factors[..., :, None] * pivot_row[..., None, :]
        a = jnp.where((rows > k) & (cols == k), factors[..., :, None], a)
    return a, perm, sign


def _diag(x: Any) -> Any:
    return _jnp().diagonal(x, axis1=-2, axis2=-1)


def slogdet(a: Any, *, method: str | None = None) -> SlogdetResult:
    """`jnp.linalg.slogdet`: (sign, log|det|) from the LU factors."""
    jnp = _jnp()
    (a,) = inexact("slogdet", a)
    square("slogdet", a)
    if _aval(a).shape[-1] == 0:
        shape = _aval(a).shape[:-2]
        return SlogdetResult(jnp.ones(shape, _aval(a).dtype), jnp.zeros(shape, _aval(a).dtype))
    lu, _, parity = lu_factor(a)
    d = _diag(lu)
    sign = parity * jnp.prod(jnp.sign(d), axis=-1)
    return SlogdetResult(sign, jnp.sum(jnp.log(jnp.abs(d)), axis=-1))


def det(a: Any) -> Any:
    """`jnp.linalg.det`: the product of U's diagonal times the permutation's parity."""
    jnp = _jnp()
    (a,) = inexact("det", a)
    n = square("det", a)
    if n == 0:
        return jnp.ones(_aval(a).shape[:-2], _aval(a).dtype)
    if n == 1:
        return a[..., 0, 0]
    if n == 2:  # closed form: exact zero for singular integer-valued input, cheaper
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    lu, _, parity = lu_factor(a)
    return parity * jnp.prod(_diag(lu), axis=-1)


def triangular_solve(t: Any, b: Any, lower: bool, unit_diagonal: bool = False) -> Any:
    """x with t x = b for triangular t (..., n, n) and b (..., n, k), by substitution."""
    jnp = _jnp()
    n = _aval(t).shape[-1]
    xs: list = [None] * n
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        acc = b[..., i, :]
        for j in (range(i) if lower else range(i + 1, n)):
            acc = acc - t[..., i, j][..., None] * xs[j]
        xs[i] = acc if unit_diagonal else acc / t[..., i, i][..., None]
    return jnp.stack(xs, axis=-2)


def _lu_solve(lu: Any, perm: Any, b: Any) -> Any:
    jnp = _jnp()
    pb = jnp.take_along_axis(b, jnp.broadcast_to(perm[..., :, None], _aval(perm).shape + (_aval(b).shape[-1],)),
                             axis=-2)
    y = triangular_solve(lu, pb, lower=True, unit_diagonal=True)
    return triangular_solve(lu, y, lower=False)


def solve(a: Any, b: Any) -> Any:
    """`jnp.linalg.solve`: x with a x = b; b is a vector if 1-d, else (..., n, k) matrices
    (batch dimensions broadcast), as in JAX >= 0.5."""
    jnp = _jnp()
    a, b = inexact("solve", a, b)
    n = square("solve", a)
    bs, as_ = _aval(b).shape, _aval(a).shape
    vector = len(bs) == 1
    if vector:
        if bs[0] != n:
            raise ValueError(f"Invalid shapes for solve: {as_}, {bs}")
        b = b[:, None]
    elif len(as_) == len(bs) + 1 and bs[-1] == n and bs[-2] != n:
        raise ValueError(f"Invalid shapes for solve: {as_}, {bs}. Prior to JAX v0.5.0, this would "
                         "have been treated as a batched 1-dimensional solve. To recover this "
                         "behavior, use solve(a, b[..., None]).squeeze(-1).")
    elif bs[-2] != n:
        raise ValueError(f"solve: the last two dimensions of b must be ({n}, k), got {bs}")
    batch = jnp.broadcast_shapes(as_[:-2], _aval(b).shape[:-2])
    a = jnp.broadcast_to(a, batch + (n, n))
    b = jnp.broadcast_to(b, batch + _aval(b).shape[-2:])
    lu, perm, _ = lu_factor(a)
    x = _lu_solve(lu, perm, b)
    return x[..., 0] if vector else x


def inv(a: Any) -> Any:
    """`jnp.linalg.inv`: solve(a, I)."""
    jnp = _jnp()
    (a,) = inexact("inv", a)
    n = square("inv", a)
    eye = jnp.broadcast_to(jnp.eye(n, dtype=_aval(a).dtype), _aval(a).shape)
    lu, perm, _ = lu_factor(a)
    return _lu_solve(lu, perm, eye)


def matrix_power(a: Any, n: int) -> Any:
    """`jnp.linalg.matrix_power`: a^n by repeated squaring (n < 0 inverts first)."""
    jnp = _jnp()
    check_arraylike("matrix_power", a)
    a = ensure_array(a)
    size = square("matrix_power", a)
    n = operator.index(n)
    if n == 0:
        return jnp.broadcast_to(jnp.eye(size, dtype=_aval(a).dtype), _aval(a).shape)
    if n < 0:
        a, n = inv(a), -n
    result = None
    while n:
        if n & 1:
            result = a if result is None else jnp.matmul(result, a)
        n >>= 1
        if n:
            a = jnp.matmul(a, a)
    return result


def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Any:
    """`jnp.linalg.multi_dot`: the product of the matrices, in einsum's contraction order
    (a 1-d first/last array is a row/column vector)."""
    jnp = _jnp()
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
    out = jnp.einsum(f"{subs}->{letters[0]}{letters[len(arrays)]}", *arrays, optimize="greedy")
    if first:
        out = out[0]
    if last:
        out = out[..., 0]
    return out


def tensorinv(a: Any, ind: int = 2) -> Any:
    """`jnp.linalg.tensorinv`: the inverse of a viewed as a matrix (first `ind` axes rows)."""
    jnp = _jnp()
    (a,) = inexact("tensorinv", a)
    shape = _aval(a).shape
    rows, cols = shape[:ind], shape[ind:]
    n = functools.reduce(operator.mul, rows, 1)
    if n != functools.reduce(operator.mul, cols, 1):
        raise ValueError(f"tensorinv: a.shape[:ind] and a.shape[ind:] must have equal size, got {shape}")
    return jnp.reshape(inv(jnp.reshape(a, (n, n))), cols + rows)


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Any:
    """`jnp.linalg.tensorsolve`: x with tensordot(a, x, x.ndim) = b."""
    jnp = _jnp()
    a, b = inexact("tensorsolve", a, b)
    if axes is not None:
        nd = _aval(a).ndim
        moved = [ax % nd for ax in axes]
        a = jnp.moveaxis(a, moved, list(range(nd - len(moved), nd)))
    bshape = _aval(b).shape
    xshape = _aval(a).shape[len(bshape):]
    n = functools.reduce(operator.mul, bshape, 1)
    m = functools.reduce(operator.mul, xshape, 1)
    if n != m:
        raise ValueError(f"tensorsolve: shapes do not give a square system ({n} equations, {m} unknowns)")
    return jnp.reshape(solve(jnp.reshape(a, (n, m)), jnp.reshape(b, (n,))), xshape)
