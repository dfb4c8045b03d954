"""lax functions written over the primitives: tile, split, stack/unstack, mulhi, index_take,
broadcast_like/broadcast_shapes, empty, dtype, optimization_barrier, shape_as_value,
platform_dependent and the scaled Bessel functions.

tile is a broadcast plus a reshape (a view), mulhi multiplies 16-bit (or 32-bit) limbs so
it never needs a wider integer type, and split/stack are slices and concatenations. As in
JAX, tile, split, stack, unstack, mulhi and the Bessel functions show in jaxprs as
primitives of their own (`tile_p`, ...): each is a `decomposed_primitive` whose lowering,
JVP and batching come from the decomposition written here.
"""
from __future__ import annotations

__all__ = ["tile", "split", "stack", "unstack", "mulhi", "index_take", "broadcast_like",
           "broadcast_shapes", "empty", "dtype", "optimization_barrier", "shape_as_value",
           "platform_dependent", "bessel_i0e", "bessel_i1e", "Precision", "tile_p", "split_p", "stack_p",
           "unstack_p", "mulhi_p", "bessel_i0e_p", "bessel_i1e_p"]


import enum
import operator
from typing import Any, Callable, Sequence

from .. import core, dtypes
from . import elementwise as ew, structural as st
from .structural import full
from .bessel import i0e, i1e
from .composite import decomposed_primitive
from ..tree_util import tree_map
from ..device import default_backend


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def tile(operand: Any, reps: Sequence[int]) -> Any:
    """`lax.tile`: repeat the array `reps[i]` times along axis i (len(reps) == ndim)."""
    operand = ew.asarray(operand)
    reps = tuple(operator.index(r) for r in reps)
    shape = _aval(operand).shape
    if len(reps) != len(shape):
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                        f"and x.ndim={len(shape)}.")
    return tile_p.bind(operand, reps=reps)


def _tile(operand: Any, *, reps: tuple) -> Any:
    shape = _aval(operand).shape
    inter = tuple(d for r, n in zip(reps, shape) for d in (r, n))
    x = st.broadcast_in_dim(operand, inter, tuple(range(1, 2 * len(shape), 2)))
    return st.reshape(x, tuple(r * n for r, n in zip(reps, shape)))


tile_p = decomposed_primitive("tile", _tile)


def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list:
    """`lax.split`: consecutive pieces of the given sizes along `axis` (they must add up)."""
    shape = _aval(operand).shape
    axis = operator.index(axis) % max(len(shape), 1)
    sizes = [operator.index(s) for s in sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {shape[axis]} of the "
                         f"operand shape {shape}")
    return split_p.bind(operand, sizes=tuple(sizes), axis=axis)


def _split(operand: Any, *, sizes: tuple, axis: int) -> list:
    out, start = [], 0
    for s in sizes:
        out.append(st.slice_in_dim(operand, start, start + s, axis=axis))
        start += s
    return out


split_p = decomposed_primitive("split", _split, multiple_results=True)


def stack(operands: Sequence[Any], axis: int = 0) -> Any:
    """`lax.stack`: join equal-shaped arrays along a new axis."""
    if not operands:
        raise ValueError("stack requires at least one operand")
    nd = _aval(operands[0]).ndim
    axis = operator.index(axis) % (nd + 1)
    return stack_p.bind(*operands, axis=axis)


def _stack(*operands: Any, axis: int) -> Any:
    return st.concatenate([st.expand_dims(x, (axis,)) for x in operands], axis)


def unstack(x: Any, axis: int = 0) -> tuple:
    """`lax.unstack`: the slices along `axis`, that axis removed."""
    shape = _aval(x).shape
    axis = operator.index(axis) % len(shape)
    return tuple(unstack_p.bind(x, axis=axis))


def _unstack(x: Any, *, axis: int) -> list:
    return [st.index_in_dim(x, i, axis, keepdims=False) for i in range(_aval(x).shape[axis])]


stack_p = decomposed_primitive("stack", _stack)
unstack_p = decomposed_primitive("unstack", _unstack, multiple_results=True)


def _umulhi(a: Any, b: Any, half: int) -> Any:
    """High half of the unsigned product of a and b, from limbs of `half` bits."""
    mask = ew.full_like(a, (1 << half) - 1)
    sh = ew.full_like(a, half)
    al, ah = ew.bitwise_and(a, mask), ew.shift_right_logical(a, sh)
    bl, bh = ew.bitwise_and(b, mask), ew.shift_right_logical(b, sh)
    ll, lh, hl, hh = ew.mul(al, bl), ew.mul(al, bh), ew.mul(ah, bl), ew.mul(ah, bh)
    mid = ew.add(ew.add(ew.shift_right_logical(ll, sh), ew.bitwise_and(lh, mask)), ew.bitwise_and(hl, mask))
    return ew.add(ew.add(ew.add(hh, ew.shift_right_logical(lh, sh)), ew.shift_right_logical(hl, sh)),
                  ew.shift_right_logical(mid, sh))


_UNSIGNED = {1: dtypes.uint8, 2: dtypes.uint16, 4: dtypes.uint32, 8: dtypes.uint64}
_WIDER = {1: dtypes.uint32, 2: dtypes.uint32}


def mulhi(x: Any, y: Any, /) -> Any:
    """`lax.mulhi`: the high half of the double-width product of integers x and y."""
    x, y = ew._promote_scalars(x, y)
    ax, ay = _aval(x), _aval(y)
    if ax.dtype is not ay.dtype or ax.dtype.kind not in "iu":
        raise TypeError(f"mulhi requires integer arguments of the same dtype, got {ax.dtype} and {ay.dtype}")
    return mulhi_p.bind(x, y)


def _mulhi(x: Any, y: Any) -> Any:
    ax = _aval(x)
    dt, size = ax.dtype, ax.dtype.itemsize
    bits = size * 8
    ut = _UNSIGNED[size]
    ux, uy = ew.bitcast_convert_type(x, ut), ew.bitcast_convert_type(y, ut)
    if size in _WIDER:  # the full product fits in 32 bits
        w = _WIDER[size]
        prod = ew.mul(ew.convert_element_type(ux, w), ew.convert_element_type(uy, w))
        hi = ew.convert_element_type(ew.shift_right_logical(prod, ew.full_like(prod, bits)), ut)
    else:
        hi = _umulhi(ux, uy, bits // 2)
    if dt.kind == "i":  # signed: subtract y where x < 0 and x where y < 0 (mod 2^bits)
        zero = ew.full_like(ux, 0)
        hi = ew.sub(hi, ew.select(ew.lt(x, ew.full_like(x, 0)), uy, zero))
        hi = ew.sub(hi, ew.select(ew.lt(y, ew.full_like(y, 0)), ux, zero))
    return ew.bitcast_convert_type(hi, dt)


mulhi_p = decomposed_primitive("mulhi", _mulhi)


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
    """`lax.index_take`: src indexed by one integer array per axis in `axes`."""
    src = ew.asarray(src)
    index: list = [slice(None)] * _aval(src).ndim
    for i, ax in zip(idxs, axes):
        index[ax] = i
    return src[tuple(index)]


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """`lax.broadcast_shapes`: numpy broadcasting of shapes (TypeError if incompatible)."""
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        sizes = {s[i - nd + len(s)] for s in shapes if i - nd + len(s) >= 0} - {1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_like(arr: Any, like_arr: Any) -> Any:
    """`lax.broadcast_like`: arr broadcast (trailing-aligned) to like_arr's shape."""
    shape, nd = _aval(like_arr).shape, _aval(arr).ndim
    return st.broadcast_in_dim(arr, shape, tuple(range(len(shape) - nd, len(shape))))


def empty(shape: Sequence[int], dtype: Any, *, out_sharding: Any = None) -> Any:
    """`lax.empty`: an array of the shape and dtype (zero-filled, as jaxweb has no
    uninitialized memory to hand out)."""
    return full(tuple(shape), 0, dtype)


def dtype(x: Any) -> dtypes.DType:
    """`lax.dtype`: the canonical dtype of a value or dtype-like."""
    if core.is_python_scalar(x):
        return core.get_aval(x).dtype
    return dtypes.canonicalize_dtype(dtypes.dtype(x))


def optimization_barrier(operand: Any, /) -> Any:
    """`lax.optimization_barrier`: the operand (a pytree of arrays) unchanged."""
    return tree_map(ew.asarray, operand)


def shape_as_value(shape: Sequence[int]) -> Any:
    """`lax.shape_as_value`: the shape as a 1-d int array."""
    return ew.asarray(tuple(shape), dtypes.int32)


def platform_dependent(*args: Any, default: Callable | None = None, **per_platform: Callable) -> Any:
    """`lax.platform_dependent`: call the branch for the default device's platform
    (jaxweb's platforms: cpu, wasm, webgpu), else `default`."""
    fn = per_platform.get(default_backend(), default)
    if fn is None:
        raise NotImplementedError(f"platform_dependent: no branch for platform {default_backend()!r} "
                                  "and no default")
    return fn(*args)


bessel_i0e_p = decomposed_primitive("bessel_i0e", i0e)
bessel_i1e_p = decomposed_primitive("bessel_i1e", i1e)


def bessel_i0e(x: Any) -> Any:
    """`lax.bessel_i0e`: exp(-|x|) I0(x)."""
    return bessel_i0e_p.bind(_inexact(x))


def bessel_i1e(x: Any) -> Any:
    """`lax.bessel_i1e`: exp(-|x|) I1(x)."""
    return bessel_i1e_p.bind(_inexact(x))


def _inexact(x: Any) -> Any:
    x = ew.asarray(x)
    if _aval(x).dtype.kind != "f":
        raise TypeError(f"bessel functions do not accept dtype {_aval(x).dtype.name}. Accepted dtypes "
                        "are subtypes of floating.")
    return x


class Precision(enum.Enum):
    """`lax.Precision`: accepted everywhere a `precision=` goes (jaxweb computes in full)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __str__(self) -> str:
        return self.name
