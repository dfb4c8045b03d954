"""jnp shape manipulation: reshape, transposes, stacking, splitting, tiling, flips,
rolls, diagonals. Built on the lax structural primitives, so most results are
views of their input (no kernel runs); joins are one kernel. Padding lives in
padding.py and is re-exported here.
"""
from __future__ import annotations

__all__ = ["reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "moveaxis",
           "swapaxes", "expand_dims", "squeeze", "broadcast_to", "broadcast_arrays",
           "broadcast_shapes", "concatenate", "concat", "stack", "hstack", "vstack", "dstack",
           "column_stack", "row_stack", "split", "array_split", "hsplit", "vsplit", "dsplit",
           "unstack", "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "atleast_1d",
           "atleast_2d", "atleast_3d", "diff", "ediff1d", "diag", "diagonal", "diagflat", "trace",
           "resize", "pad", "shape", "ndim", "size", "rollaxis", "apply_along_axis", "apply_over_axes"]

import operator
from typing import Any, Sequence

from .. import core
from ..api import vmap
from ..compiler.shapetracker import prod
from ..lax import structural as lax
from ..lax.base import canonical_axes
from ..lax.structural import full
from . import util, creation as _creation, reductions as _reductions, ufuncs as _ufuncs
from .padding import pad
from ..lax.indexing import dynamic_slice_in_dim
from . import indexing as _indexing


def _arr(a: Any, name: str) -> Any:
    util.check_arraylike(name, a)
    return util.ensure_array(a)


def _shape_arg(shape: Any) -> tuple[int, ...]:
    return core.canonicalize_shape(shape)


def _axis(axis: Any, ndim: int) -> int:
    return canonical_axes((operator.index(axis),), ndim)[0]


def shape(a: Any) -> tuple[int, ...]:
    return core.get_aval(a).shape


def ndim(a: Any) -> int:
    return core.get_aval(a).ndim


def size(a: Any, axis: int | Sequence[int] | None = None) -> int:
    """`jnp.size`: the number of elements (along `axis`, an int or a tuple of ints)."""
    s = core.get_aval(a).shape
    if axis is None:
        return prod(s)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return prod([s[i] for i in canonical_axes(axes, len(s))])


# ---------------------------------------------------------------- reshape family
def _infer_shape(old: tuple[int, ...], new: tuple[int, ...]) -> tuple[int, ...]:
    n = prod(old)
    unknown = [i for i, d in enumerate(new) if d == -1]
    if len(unknown) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {new}")
    if any(d < -1 for d in new):
        raise TypeError(f"cannot reshape array of shape {old} (size {n}) into shape {new}")
    if unknown:
        known = prod(d for d in new if d != -1)
        if known == 0 or n % known:
            raise TypeError(f"cannot reshape array of shape {old} (size {n}) into shape {new} because the "
                            f"product of specified axis sizes ({known}) does not evenly divide {n}")
        new = tuple(n // known if d == -1 else d for d in new)
    if prod(new) != n:
        raise TypeError(f"cannot reshape array of shape {old} (size {n}) into shape {new} (size {prod(new)})")
    return new


def reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: bool | None = None) -> Any:
    """`jnp.reshape`: one -1 is inferred; order 'C' (row-major) or 'F' (column-major)."""
    a = _arr(a, "reshape")
    shape = newshape if shape is None else shape
    new = _infer_shape(a.shape, _shape_arg(shape))
    if order == "F":
        rev_in = tuple(reversed(range(a.ndim)))
        flat = lax.reshape(lax.transpose(a, rev_in), tuple(reversed(new)))
        return lax.transpose(flat, tuple(reversed(range(len(new)))))
    if order not in ("C", "A"):
        raise NotImplementedError(f"jnp.reshape: order={order!r} is not supported")
    return lax.reshape(a, new)


def ravel(a: Any, order: str = "C") -> Any:
    """`jnp.ravel`: the flattened array (a view when possible)."""
    a = _arr(a, "ravel")
    return reshape(a, (a.size,), order=order)


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """`jnp.transpose`: permute axes (reverse them by default; negative axes allowed)."""
    a = _arr(a, "transpose")
    if axes is None:
        return lax.transpose(a, tuple(reversed(range(a.ndim))))
    axes = tuple(operator.index(x) for x in axes)
    if len(axes) != a.ndim:
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {axes} for operand shape {a.shape}.")
    return lax.transpose(a, canonical_axes(axes, a.ndim))


def permute_dims(a: Any, /, axes: Sequence[int]) -> Any:
    return transpose(a, axes)


def matrix_transpose(x: Any, /) -> Any:
    """`jnp.matrix_transpose`: swap the last two axes."""
    x = _arr(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={x.ndim}")
    return lax.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _axes_list(axis: Any) -> list[int]:
    return [operator.index(a) for a in axis] if isinstance(axis, (tuple, list)) else [operator.index(axis)]


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """`jnp.moveaxis`: move axes to new positions, keeping the others in order."""
    a = _arr(a, "moveaxis")
    src = canonical_axes(_axes_list(source), a.ndim)
    dst = canonical_axes(_axes_list(destination), a.ndim)
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("repeated axis in moveaxis")
    rest = [i for i in range(a.ndim) if i not in src]
    perm = [0] * a.ndim
    placed = dict(zip(dst, src))
    it = iter(rest)
    for i in range(a.ndim):
        perm[i] = placed[i] if i in placed else next(it)
    return lax.transpose(a, perm)


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """`jnp.rollaxis`: move `axis` to just before position `start`."""
    a = _arr(a, "rollaxis")
    axis = _axis(axis, a.ndim)
    start = operator.index(start)
    if not -a.ndim <= start <= a.ndim:
        raise ValueError(f"start={start} must satisfy {-a.ndim} <= start <= {a.ndim}")
    start = start + a.ndim if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


def apply_along_axis(func1d: Any, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """`jnp.apply_along_axis`: `func1d` on every 1-D slice along `axis`, via vmap over
    the other axes (the function's output dims replace `axis`)."""
    a = _arr(arr, "apply_along_axis")
    axis = _axis(axis, a.ndim)
    fn = lambda x: func1d(x, *args, **kwargs)  # noqa: E731
    for i in range(1, a.ndim - axis):
        fn = vmap(fn, in_axes=i, out_axes=-1)
    for _ in range(axis):
        fn = vmap(fn, in_axes=0, out_axes=0)
    return fn(a)


def apply_over_axes(func: Any, a: Any, axes: Sequence[int]) -> Any:
    """`jnp.apply_over_axes`: apply `func(a, axis)` for each axis, keeping dimensions."""
    out = _arr(a, "apply_over_axes")
    for ax in axes:
        res = func(out, ax)
        if res.ndim == out.ndim - 1:
            res = expand_dims(res, ax)
        elif res.ndim != out.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        out = res
    return out


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """`jnp.swapaxes`: exchange two axes."""
    a = _arr(a, "swapaxes")
    perm = list(range(a.ndim))
    for ax in (axis1, axis2):
        if not -a.ndim <= ax < a.ndim:
            raise IndexError(f"index {ax} is out of bounds for axis 0 with size {a.ndim}")
    i, j = axis1 % a.ndim, axis2 % a.ndim
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def expand_dims(a: Any, axis: Any) -> Any:
    """`jnp.expand_dims`: insert size-1 axes at the given positions of the result."""
    a = _arr(a, "expand_dims")
    return lax.expand_dims(a, _axes_list(axis))


def squeeze(a: Any, axis: Any = None) -> Any:
    """`jnp.squeeze`: drop size-1 axes (all of them, or the given ones)."""
    a = _arr(a, "squeeze")
    if axis is None:
        return lax.squeeze(a, [i for i, d in enumerate(a.shape) if d == 1])
    return lax.squeeze(a, canonical_axes(_axes_list(axis), a.ndim))


# ---------------------------------------------------------------- broadcasting
def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """`jnp.broadcast_shapes`: the numpy broadcast of the given shapes."""
    shapes = [_shape_arg(s) for s in shapes]
    try:
        return util.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None


def broadcast_to(array: Any, shape: Any) -> Any:
    """`jnp.broadcast_to`: a (free) broadcast view of `array`."""
    a = _arr(array, "broadcast_to")
    shape = _shape_arg(shape)
    nd = len(shape)
    ok = a.ndim <= nd and all(d in (1, n) for d, n in zip(a.shape, shape[nd - a.ndim:]))
    if not ok:
        raise ValueError(f"Incompatible types for broadcasting: input type={core.get_aval(a).str_short()} "
                         f"and requested type={core.ShapedArray(shape, a.dtype).str_short()}")
    return util.broadcast_to_shape(a, shape)


def broadcast_arrays(*args: Any) -> list:
    """`jnp.broadcast_arrays`: every argument broadcast to their common shape."""
    arrs = [_arr(a, "broadcast_arrays") for a in args]
    shp = broadcast_shapes(*[a.shape for a in arrs])
    return [util.broadcast_to_shape(a, shp) for a in arrs]


# ---------------------------------------------------------------- joining
def concatenate(arrays: Sequence[Any], axis: int | None = 0, dtype: Any = None) -> Any:
    """`jnp.concatenate`: join along `axis` after promoting dtypes (axis=None flattens)."""
    if hasattr(arrays, "ndim") and not isinstance(arrays, (list, tuple)):
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    util.check_arraylike("concatenate", *arrays)
    arrs = [util.ensure_array(a) for a in arrays]
    if axis is None:
        arrs, axis = [ravel(a) for a in arrs], 0
    if any(a.ndim == 0 for a in arrs):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    arrs = util.promote_dtypes(*arrs) if len(arrs) > 1 else arrs
    if dtype is not None:
        arrs = [_creation.asarray(a, dtype) for a in arrs]
    axis = _axis(axis, arrs[0].ndim)
    return lax.concatenate(arrs, axis)


concat = concatenate


def stack(arrays: Sequence[Any], axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """`jnp.stack`: join same-shaped arrays along a new axis."""
    arrays = list(arrays) if not hasattr(arrays, "ndim") else [arrays[i] for i in range(arrays.shape[0])]
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    util.check_arraylike("stack", *arrays)
    arrs = [util.ensure_array(a) for a in arrays]
    shapes = {a.shape for a in arrs}
    if len(shapes) != 1:
        raise ValueError(f"All input arrays must have the same shape. Got "
                         f"{', '.join(str(a.shape) for a in arrs)}.")
    ax = canonical_axes((axis,), arrs[0].ndim + 1)[0]
    return concatenate([lax.expand_dims(a, (ax,)) for a in arrs], ax, dtype)


def atleast_1d(*arys: Any) -> Any:
    outs = [reshape(a, (1,)) if core.get_aval(a).ndim == 0 else util.ensure_array(a) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def atleast_2d(*arys: Any) -> Any:
    def one(a):
        a = util.ensure_array(a)
        return lax.reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a
    outs = [one(a) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def atleast_3d(*arys: Any) -> Any:
    def one(a):
        a = util.ensure_array(a)
        if a.ndim == 0:
            return lax.reshape(a, (1, 1, 1))
        if a.ndim == 1:
            return lax.reshape(a, (1, a.shape[0], 1))
        return lax.reshape(a, a.shape + (1,)) if a.ndim == 2 else a
    outs = [one(a) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def _as_list(tup: Any) -> list:
    return [tup[i] for i in range(tup.shape[0])] if hasattr(tup, "ndim") else list(tup)


def hstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    arrs = [atleast_1d(a) for a in _as_list(tup)]
    return concatenate(arrs, 0 if arrs and arrs[0].ndim == 1 else 1, dtype)


def vstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    return concatenate([atleast_2d(a) for a in _as_list(tup)], 0, dtype)


row_stack = vstack


def dstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    return concatenate([atleast_3d(a) for a in _as_list(tup)], 2, dtype)


def column_stack(tup: Sequence[Any]) -> Any:
    arrs = []
    for a in _as_list(tup):
        a = util.ensure_array(a)
        arrs.append(lax.reshape(a, (a.size, 1)) if a.ndim < 2 else a)
    return concatenate(arrs, 1)


# ---------------------------------------------------------------- splitting
def _split(name: str, ary: Any, indices_or_sections: Any, axis: int, equal: bool) -> list:
    a = _arr(ary, name)
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(indices_or_sections, (tuple, list)) or getattr(indices_or_sections, "ndim", 0) == 1:
        cuts = [operator.index(core.concrete_or_error(i, "split indices")) for i in _as_list(indices_or_sections)]
        bounds = [0] + [min(max(c + n if c < 0 else c, 0), n) for c in cuts] + [n]
    else:
        k = operator.index(core.concrete_or_error(indices_or_sections, "split sections"))
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and n % k:
            raise ValueError(f"array split does not result in an equal division: rest is {n % k}")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    return [lax.slice_in_dim(a, lo, max(lo, hi), 1, axis) for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """`jnp.split`: equal sections (an error otherwise) or split points."""
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """`jnp.array_split`: like split, sections may differ in size by one."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary: Any, indices_or_sections: Any) -> list:
    a = _arr(ary, "hsplit")
    return split(a, indices_or_sections, 0 if a.ndim == 1 else 1)


def vsplit(ary: Any, indices_or_sections: Any) -> list:
    return split(ary, indices_or_sections, 0)


def dsplit(ary: Any, indices_or_sections: Any) -> list:
    return split(ary, indices_or_sections, 2)


def unstack(x: Any, /, *, axis: int = 0) -> tuple:
    """`jnp.unstack`: the slices along `axis`, as a tuple."""
    x = _arr(x, "unstack")
    if x.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    axis = _axis(axis, x.ndim)
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(x.shape[axis]))


# ---------------------------------------------------------------- tiling
def tile(A: Any, reps: Any) -> Any:
    """`jnp.tile`: repeat the whole array `reps` times per axis (a broadcast view)."""
    a = _arr(A, "tile")
    reps = _shape_arg(reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"jnp.tile: reps must be non-negative, got {reps}")
    nd = max(len(reps), a.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    a = lax.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    inter = tuple(x for r, n in zip(reps, a.shape) for x in (1, n))
    full = tuple(x for r, n in zip(reps, a.shape) for x in (r, n))
    b = lax.broadcast_in_dim(lax.reshape(a, inter), full, tuple(range(2 * nd)))
    return lax.reshape(b, tuple(r * n for r, n in zip(reps, a.shape)))


def repeat(a: Any, repeats: Any, axis: int | None = None, *, total_repeat_length: int | None = None) -> Any:
    """`jnp.repeat`: repeat each element; `repeats` is a scalar or one count per element
    (concrete, or any with `total_repeat_length`)."""
    a = _arr(a, "repeat")
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    reps = repeats
    if total_repeat_length is not None and _is_traced(reps):
        return _repeat_traced(a, reps, axis, operator.index(total_repeat_length))
    if getattr(reps, "ndim", 0) == 0 and not isinstance(reps, (list, tuple)):
        r = operator.index(core.concrete_or_error(reps, "repeats"))
        if r < 0:
            raise ValueError(f"repeats may not contain negative values, got {r}")
        inter = a.shape[:axis + 1] + (1,) + a.shape[axis + 1:]
        full = a.shape[:axis + 1] + (r,) + a.shape[axis + 1:]
        b = lax.broadcast_in_dim(lax.reshape(a, inter), full, tuple(range(a.ndim + 1)))
        out = lax.reshape(b, a.shape[:axis] + (n * r,) + a.shape[axis + 1:])
        return out if total_repeat_length is None else _fit_length(out, axis, total_repeat_length)
    counts = [operator.index(c) for c in _concrete_list(reps, "repeats")]
    if len(counts) == 1:
        counts = counts * n
    if len(counts) != n:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: ({len(counts)},)  and requested shape ({n},)")
    index = [i for i, c in enumerate(counts) for _ in range(c)]
    if total_repeat_length is not None:
        index = (index + [max(n - 1, 0)] * total_repeat_length)[:total_repeat_length]
    return _indexing.take(a, _creation.asarray(index, dtype="int32"), axis=axis, mode="clip")


def _is_traced(x: Any) -> bool:
    return isinstance(x, core.Tracer) and x.to_concrete_value() is None


def _repeat_traced(a: Any, reps: Any, axis: int, length: int) -> Any:
    """repeat with traced counts and a static output length: output position j takes the
    element whose cumulative count first exceeds j (the last element pads, as in JAX)."""
    n = a.shape[axis]
    counts = broadcast_to(_creation.asarray(reps, dtype="int32"), (n,))
    ends = _reductions.cumsum(counts)
    from .sorting import searchsorted  # noqa: PLC0415  (sorting is a family loaded on first use)
    index = searchsorted(ends, _creation.arange(length, dtype="int32"), side="right")
    return _indexing.take(a, _ufuncs.clip(index, 0, max(n - 1, 0)), axis=axis, mode="clip")


def _concrete_list(x: Any, what: str) -> list:
    x = core.concrete_or_error(x, what)
    return list(x.tolist()) if hasattr(x, "tolist") else list(x)


def _fit_length(x: Any, axis: int, length: int) -> Any:
    n = x.shape[axis]
    if length <= n:
        return lax.slice_in_dim(x, 0, length, 1, axis)
    last = lax.slice_in_dim(x, n - 1, n, 1, axis)
    shp = list(x.shape)
    shp[axis] = length - n
    return lax.concatenate([x, lax.broadcast_in_dim(last, shp, tuple(range(x.ndim)))], axis)


def resize(a: Any, new_shape: Any) -> Any:
    """`jnp.resize`: the flattened array repeated or truncated to `new_shape`."""
    a = _arr(a, "resize")
    new_shape = _shape_arg(new_shape)
    total = prod(new_shape)
    flat = ravel(a)
    if total == 0 or flat.size == 0:
        return _creation.zeros(new_shape, a.dtype)
    reps = -(-total // flat.size)
    return lax.reshape(lax.slice(tile(flat, (reps,)), (0,), (total,)), new_shape)


# ---------------------------------------------------------------- flips and rolls
def flip(m: Any, axis: Any = None) -> Any:
    """`jnp.flip`: reverse along the given axes (all by default): a view."""
    m = _arr(m, "flip")
    axes = range(m.ndim) if axis is None else canonical_axes(_axes_list(axis), m.ndim)
    return lax.rev(m, tuple(axes))


def fliplr(m: Any) -> Any:
    m = _arr(m, "fliplr")
    if m.ndim < 2:
        raise ValueError(f"fliplr requires an array of at least 2 dimensions, got {m.ndim}")
    return flip(m, 1)


def flipud(m: Any) -> Any:
    m = _arr(m, "flipud")
    if m.ndim < 1:
        raise ValueError(f"flipud requires an array of at least 1 dimension, got {m.ndim}")
    return flip(m, 0)


def _roll_static(a: Any, shift: int, axis: int) -> Any:
    n = a.shape[axis]
    if n == 0:
        return a
    s = shift % n
    if s == 0:
        return a
    return lax.concatenate([lax.slice_in_dim(a, n - s, n, 1, axis), lax.slice_in_dim(a, 0, n - s, 1, axis)], axis)


def _roll_dynamic(a: Any, shift: Any, axis: int) -> Any:
    n = a.shape[axis]
    if n == 0:
        return a
    start = _ufuncs.remainder(_ufuncs.negative(_creation.asarray(shift, "int32")), n)
    return dynamic_slice_in_dim(lax.concatenate([a, a], axis), start, n, axis)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """`jnp.roll`: shift elements cyclically along axes (axis=None rolls the flat array)."""
    a = _arr(a, "roll")
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axes = _axes_list(axis)
    shifts = _as_list(shift) if isinstance(shift, (list, tuple)) or getattr(shift, "ndim", 0) else [shift]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"shift and axis must have the same length, got {len(shifts)} and {len(axes)}")
    for s, ax in zip(shifts, axes):
        ax = _axis(ax, a.ndim)
        if isinstance(s, core.Tracer) and s.to_concrete_value() is None:
            a = _roll_dynamic(a, s, ax)
        else:
            a = _roll_static(a, operator.index(core.concrete_or_error(s)), ax)
    return a


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """`jnp.rot90`: rotate by 90 degrees `k` times in the plane of `axes`."""
    m = _arr(m, "rot90")
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    a0, a1 = canonical_axes(axes, m.ndim)
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return lax.transpose(flip(m, a1), perm) if k == 1 else flip(lax.transpose(m, perm), a1)


# ---------------------------------------------------------------- differences
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """`jnp.diff`: n-th discrete difference along `axis` (not_equal for booleans)."""
    a = _arr(a, "diff")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if a.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    if n == 0:
        return a
    axis = _axis(axis, a.ndim)
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            parts.append(a if len(parts) == 1 else None)
            continue
        e = util.ensure_array(extra)
        if e.ndim == 0:
            shp = list(a.shape)
            shp[axis] = 1
            e = broadcast_to(e, shp)
        parts.append(e)
    parts = [p for p in parts if p is not None]
    if len(parts) > 1:
        a = concatenate(parts, axis)
    for _ in range(n):
        m = a.shape[axis]
        hi, lo = lax.slice_in_dim(a, 1, m, 1, axis), lax.slice_in_dim(a, 0, max(m - 1, 0), 1, axis)
        a = _ufuncs.not_equal(hi, lo) if a.dtype.kind == "b" else _ufuncs.subtract(hi, lo)
    return a


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """`jnp.ediff1d`: differences of the flattened array, with optional ends."""
    d = diff(ravel(_arr(ary, "ediff1d")))
    parts = [ravel(util.ensure_array(to_begin))] if to_begin is not None else []
    parts.append(d)
    if to_end is not None:
        parts.append(ravel(util.ensure_array(to_end)))
    return concatenate(parts) if len(parts) > 1 else d


# ---------------------------------------------------------------- diagonals
def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """`jnp.diagonal`: the `offset` diagonal of the (axis1, axis2) planes, as the last
    axis. A strided view of the flattened planes: no kernel."""
    a = _arr(a, "diagonal")
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    a1, a2 = canonical_axes((axis1, axis2), a.ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 must not be equal")
    rest = [i for i in range(a.ndim) if i not in (a1, a2)]
    a = lax.transpose(a, rest + [a1, a2])
    lead, (r, c) = a.shape[:-2], a.shape[-2:]
    offset = operator.index(offset)
    length = max(0, min(r, c - offset) if offset >= 0 else min(r + offset, c))
    start = offset if offset >= 0 else -offset * c
    flat = lax.reshape(a, lead + (r * c,))
    if length == 0:
        return lax.slice_in_dim(flat, 0, 0, 1, -1)
    stop = start + (length - 1) * (c + 1) + 1
    return lax.slice_in_dim(flat, start, stop, c + 1, len(lead))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: None = None) -> Any:
    """`jnp.trace`: the sum along a diagonal."""
    return _reductions.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(v: Any, k: int = 0) -> Any:
    """`jnp.diag`: a diagonal matrix from a vector (padding trick: a view), or the
    `k`-th diagonal of a matrix."""
    v = _arr(v, "diag")
    k = operator.index(k)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = v.shape[0]
    m = n + abs(k)
    start = k if k >= 0 else -k * m
    used = n + max(n - 1, 0) * m
    padded = lax.pad(v, lax_zero(v), [(start, m * m - start - used, m)]) if n else _creation.zeros((m * m,), v.dtype)
    return lax.reshape(padded, (m, m))


def lax_zero(x: Any) -> Any:
    return full((), 0, x.dtype)


def diagflat(v: Any, k: int = 0) -> Any:
    return diag(ravel(_arr(v, "diagflat")), k)

