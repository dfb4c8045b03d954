"""Structural primitives: broadcasting, reshapes, transposes, slices, padding.

Their lowerings are movement ops on Syms, which fold into ShapeTrackers: run
eagerly on an Array they return a view of the same buffer and launch no kernel
(padding with a non-zero value and concatenation are one elementwise kernel).
Each primitive is linear; its JVP applies it to the tangent and its transpose is
the adjoint movement (slice <-> pad, broadcast <-> sum, concatenate -> slices).
"""
from __future__ import annotations

__all__ = ["full", "broadcast_in_dim", "broadcast", "broadcast_to_rank", "reshape", "transpose",
           "squeeze", "expand_dims", "rev", "slice", "slice_in_dim", "index_in_dim", "pad",
           "concatenate", "collapse", "copy", "copy_p", "broadcast_in_dim_p", "reshape_p",
           "transpose_p", "squeeze_p", "rev_p", "slice_p", "pad_p", "concatenate_p"]

import math
from typing import Any, Callable, Sequence

from .. import core, dtypes
from ..compiler import graph
from ..compiler.graph import Node
from ..compiler.shapetracker import prod
from ..dispatch import def_lowering
from ..interpreters import rules as R
from ..interpreters.batching import bdim_at_front, moveaxis_to_front
from ..interpreters.rules import UndefinedPrimal, Zero
from .elementwise import convert_element_type, select_n, sub, _weak_scalar
from ..array import Array
from . import base as _base

# ---------------------------------------------------------------- rule helpers


def linear_transpose(fn: Callable[..., Any]) -> Callable[..., list]:
    """Wrap a transpose rule `fn(ct, *args, **params) -> list` so a symbolic-zero
    cotangent gives symbolic-zero cotangents without calling `fn`."""
    def rule(ct, *args, **params):
        if isinstance(ct, Zero):
            return [Zero(a.aval) if isinstance(a, UndefinedPrimal) else None for a in args]
        return fn(ct, *args, **params)
    return rule


def batch_size(args: Sequence[Any], dims: Sequence[int | None]) -> int:
    return next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)


def _shape_str(shapes) -> str:
    return ", ".join(str(tuple(s)) for s in shapes)


# ---------------------------------------------------------------- broadcast_in_dim
broadcast_in_dim_p = core.Primitive("broadcast_in_dim")


@core.def_abstract_eval(broadcast_in_dim_p)
def _broadcast_in_dim_abstract(x, *, shape, broadcast_dimensions):
    if any(d < 0 for d in shape):
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got {tuple(shape)}.")
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to operand "
                        f"ndim; got broadcast_dimensions {broadcast_dimensions} for operand ndim {x.ndim}.")
    for i, d in enumerate(broadcast_dimensions):
        if not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d]):
            raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or be equal "
                            f"to their corresponding dimensions in the target broadcast shape; got "
                            f"operand of shape {x.shape}, target broadcast shape {shape}, "
                            f"broadcast_dimensions {broadcast_dimensions} ")
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must be strictly increasing; "
                        f"got broadcast_dimensions {broadcast_dimensions}")
    return x.update(shape=shape)


@def_lowering(broadcast_in_dim_p)
def _broadcast_in_dim_lower(x, *, shape, broadcast_dimensions):
    inter = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        inter[d] = x.shape[i]
    return x.reshape(tuple(inter)).expand(tuple(shape))


@linear_transpose
def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    in_shape = x.aval.shape
    kept = {d: in_shape[i] for i, d in enumerate(broadcast_dimensions)}
    axes = [d for d in range(len(shape)) if d not in kept or kept[d] != shape[d]]
    from .reductions import reduce_sum  # noqa: PLC0415  (reductions builds on this module)
    summed = reduce_sum(ct, axes) if axes else ct
    return [reshape(summed, in_shape)]


def _broadcast_in_dim_batch(args, dims, *, shape, broadcast_dimensions):
    (x,), (d,) = args, dims
    x = moveaxis_to_front(x, d)
    n = core.get_aval(x).shape[0]
    return broadcast_in_dim(x, (n,) + tuple(shape), (0,) + tuple(b + 1 for b in broadcast_dimensions)), 0


R.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)
R.primitive_batchers[broadcast_in_dim_p] = _broadcast_in_dim_batch


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """`lax.broadcast_in_dim`: operand dim i becomes output dim broadcast_dimensions[i]."""
    shape, bd = tuple(int(d) for d in shape), tuple(int(d) for d in broadcast_dimensions)
    aval = core.get_aval(x)
    if aval.shape == shape and bd == tuple(range(len(shape))) and not core.is_python_scalar(x):
        return x
    if core.is_python_scalar(x):
        return _base.constant(shape, x) if not bd else broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=bd)
    if len(set(bd)) == len(bd) == aval.ndim and list(bd) != sorted(bd):
        # JAX accepts dimensions in any order: permute the operand so they increase
        # (the primitive keeps its increasing invariant), after checking sizes as JAX does
        for i, d in enumerate(bd):
            if not 0 <= d < len(shape) or aval.shape[i] not in (1, shape[d]):
                _broadcast_in_dim_abstract(aval, shape=shape, broadcast_dimensions=bd)
        perm = tuple(sorted(range(len(bd)), key=lambda i: bd[i]))
        x, bd = transpose(x, perm), tuple(sorted(bd))
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=bd)


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """`lax.full`: a host scalar fill is a constant (`base.constant`, no device memory until it
    is needed); a traced or array fill is converted and broadcast."""
    if isinstance(fill_value, core.Tracer) or hasattr(fill_value, "shape") and getattr(fill_value, "ndim", 0):
        shape = core.canonicalize_shape(shape)
        if any(d < 0 for d in shape):
            raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got {shape}.")
        v = convert_element_type(fill_value, dtype) if dtype is not None else fill_value
        return broadcast_in_dim(v, shape, ())
    return _base.constant(shape, fill_value, dtype)


R.array_ops["full"] = full


def broadcast(x: Any, sizes: Sequence[int]) -> Any:
    """`lax.broadcast`: add leading dimensions of the given sizes."""
    sizes = tuple(int(s) for s in sizes)
    nd = core.get_aval(x).ndim
    return broadcast_in_dim(x, sizes + core.get_aval(x).shape, tuple(range(len(sizes), len(sizes) + nd)))


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """`lax.broadcast_to_rank`: add leading size-1 dimensions up to `rank`."""
    nd = core.get_aval(x).ndim
    return x if nd == rank else broadcast(x, (1,) * (rank - nd))


# ---------------------------------------------------------------- reshape
reshape_p = core.Primitive("reshape")


@core.def_abstract_eval(reshape_p)
def _reshape_abstract(x, *, new_sizes, dimensions=None):
    if prod(new_sizes) != x.size or any(d < 0 for d in new_sizes):
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {tuple(new_sizes)} "
                        f"(of total size {prod(new_sizes)}) for shape {x.shape} (of total size {x.size}).")
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise TypeError(f"reshape dimensions must be a permutation of operand dimensions, got "
                        f"dimensions {tuple(dimensions)} for shape {x.shape}.")
    return x.update(shape=tuple(new_sizes))


@def_lowering(reshape_p)
def _reshape_lower(x, *, new_sizes, dimensions=None):
    if dimensions is not None:
        x = x.permute(dimensions)
    return x.reshape(tuple(new_sizes))


@linear_transpose
def _reshape_transpose(ct, x, *, new_sizes, dimensions=None):
    if dimensions is None:
        return [reshape(ct, x.aval.shape)]
    permuted = tuple(x.aval.shape[d] for d in dimensions)
    return [transpose(reshape(ct, permuted), _inverse(dimensions))]


def _reshape_batch(args, dims, *, new_sizes, dimensions=None):
    x = moveaxis_to_front(args[0], dims[0])
    if dimensions is not None:
        x = transpose(x, (0,) + tuple(d + 1 for d in dimensions))
    return reshape(x, (core.get_aval(x).shape[0],) + tuple(new_sizes)), 0


R.deflinear(reshape_p, _reshape_transpose)
R.primitive_batchers[reshape_p] = _reshape_batch


def reshape(x: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None) -> Any:
    """`lax.reshape`: row-major reshape, after permuting by `dimensions` if given."""
    new_sizes = tuple(int(d) for d in new_sizes)
    dims = None if dimensions is None or tuple(dimensions) == tuple(range(len(dimensions))) else tuple(dimensions)
    if core.get_aval(x).shape == new_sizes and dims is None:
        return x
    return reshape_p.bind(x, new_sizes=new_sizes, dimensions=dims)


def collapse(x: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """`lax.collapse`: merge dimensions [start, stop) into one."""
    shape = core.get_aval(x).shape
    nd = len(shape)
    stop = nd if stop_dimension is None else stop_dimension
    start, stop = (start_dimension % nd if nd else 0), (stop % (nd + 1) if stop < 0 else stop)
    return reshape(x, shape[:start] + (prod(shape[start:stop]),) + shape[stop:])


# ---------------------------------------------------------------- transpose
transpose_p = core.Primitive("transpose")


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


@core.def_abstract_eval(transpose_p)
def _transpose_abstract(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {tuple(permutation)} for operand shape {x.shape}.")
    return x.update(shape=tuple(x.shape[p] for p in permutation))


@def_lowering(transpose_p)
def _transpose_lower(x, *, permutation):
    return x.permute(permutation)


def _transpose_batch(args, dims, *, permutation):
    (x,), (b,) = args, dims
    perm = (b,) + tuple(p + (p >= b) for p in permutation)
    return transpose(x, perm), 0


R.deflinear(transpose_p, linear_transpose(lambda ct, x, *, permutation: [transpose(ct, _inverse(permutation))]))
R.primitive_batchers[transpose_p] = _transpose_batch


def transpose(x: Any, permutation: Sequence[int]) -> Any:
    """`lax.transpose`: output dim i is operand dim permutation[i]."""
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))) and core.get_aval(x).ndim == len(permutation):
        return x
    return transpose_p.bind(x, permutation=permutation)


R.array_ops.update(transpose=transpose, broadcast_in_dim=broadcast_in_dim, broadcast_in_dim_p=broadcast_in_dim_p)


# ---------------------------------------------------------------- squeeze / expand_dims
squeeze_p = core.Primitive("squeeze")


@core.def_abstract_eval(squeeze_p)
def _squeeze_abstract(x, *, dimensions):
    if any(x.shape[d] != 1 for d in dimensions):
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to one, "
                         f"got shape={x.shape} and dimensions={tuple(dimensions)}")
    return x.update(shape=tuple(n for i, n in enumerate(x.shape) if i not in dimensions))


@def_lowering(squeeze_p)
def _squeeze_lower(x, *, dimensions):
    return x.reshape(tuple(n for i, n in enumerate(x.shape) if i not in dimensions))


def _squeeze_batch(args, dims, *, dimensions):
    x = moveaxis_to_front(args[0], dims[0])
    return squeeze(x, tuple(d + 1 for d in dimensions)), 0


R.deflinear(squeeze_p, linear_transpose(lambda ct, x, *, dimensions: [reshape(ct, x.aval.shape)]))
R.primitive_batchers[squeeze_p] = _squeeze_batch


def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
    """`lax.squeeze`: remove the given size-1 dimensions."""
    dims = tuple(sorted(set(_base.canonical_axes(dimensions, core.get_aval(array).ndim))))
    return array if not dims else squeeze_p.bind(array, dimensions=dims)


def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
    """`lax.expand_dims`: insert size-1 dimensions at the given output positions."""
    shape = core.get_aval(array).shape
    nd_out = len(shape) + len(dimensions)
    dims = _base.canonical_axes(dimensions, nd_out)
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {tuple(dimensions)}")
    it = iter(shape)
    out = tuple(1 if i in dims else next(it) for i in range(nd_out))
    return reshape(array, out)


# ---------------------------------------------------------------- rev
rev_p = core.Primitive("rev")


@core.def_abstract_eval(rev_p)
def _rev_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {tuple(dimensions)}.")
    if any(not 0 <= d < x.ndim for d in dimensions):
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                        f"{tuple(dimensions)} for operand ndim {x.ndim}.")
    return x


@def_lowering(rev_p)
def _rev_lower(x, *, dimensions):
    return x.flip(dimensions)


R.deflinear(rev_p, linear_transpose(lambda ct, x, *, dimensions: [rev(ct, dimensions)]))
R.primitive_batchers[rev_p] = lambda args, dims, *, dimensions: (
    rev(args[0], tuple(d + (d >= dims[0]) for d in dimensions)), dims[0])


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """`lax.rev`: reverse the order of elements along the given dimensions."""
    dims = tuple(int(d) for d in dimensions)
    return operand if not dims else rev_p.bind(operand, dimensions=dims)


# ---------------------------------------------------------------- slice
slice_p = core.Primitive("slice")


@core.def_abstract_eval(slice_p)
def _slice_abstract(x, *, start_indices, limit_indices, strides):
    return x.update(shape=_slice_shape(x.shape, start_indices, limit_indices, strides), weak_type=x.weak_type)


def _slice_shape(shape, start, limit, strides) -> tuple[int, ...]:
    nd = len(shape)
    if len(start) != nd:
        raise TypeError(f"slice start_indices must have length equal to the number of dimensions "
                        f"of the operand, got indices {tuple(start)} for operand shape {shape}.")
    if len(limit) != nd:
        raise TypeError(f"slice limit_indices must have the same length as start_indices, got "
                        f"start_indices {tuple(start)} and limit_indices {tuple(limit)}.")
    if any(lim > n for lim, n in zip(limit, shape)):
        raise TypeError(f"slice limit_indices must be less than or equal to operand shape, got "
                        f"limit_indices {tuple(limit)} for operand shape {shape}.")
    if any(s < 0 for s in start):
        raise TypeError(f"slice start_indices must be greater than or equal to zero, got "
                        f"start_indices of {tuple(start)}.")
    if any(lim < s for s, lim in zip(start, limit)):
        raise TypeError(f"slice limit_indices must be greater than or equal to start_indices, got "
                        f"start_indices {tuple(start)} and limit_indices {tuple(limit)}.")
    if strides is None:
        return tuple(lim - s for s, lim in zip(start, limit))
    if len(strides) != nd:
        raise TypeError(f"slice strides must have length equal to the number of dimensions of the "
                        f"operand, got strides {tuple(strides)} for operand shape {shape}.")
    if any(s <= 0 for s in strides):
        raise TypeError(f"slice strides must be positive, got {tuple(strides)}")
    return tuple((lim - s + st - 1) // st for s, lim, st in zip(start, limit, strides))


@def_lowering(slice_p)
def _slice_lower(x, *, start_indices, limit_indices, strides):
    out = x.shrink(tuple(zip(start_indices, limit_indices)))
    if strides is not None and any(s != 1 for s in strides):
        out = out.stride(strides)
    return out


@linear_transpose
def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    shape = x.aval.shape
    out_shape = core.get_aval(ct).shape
    strides = strides or (1,) * len(shape)
    config = []
    for n, s, m, st in zip(shape, start_indices, out_shape, strides):
        real_limit = s + (m - 1) * st + 1 if m else s
        config.append((s, n - real_limit, st - 1 if m else 0))
    return [pad(ct, _zero_scalar(ct), config)]


def _zero_scalar(like: Any) -> Any:
    return _base.constant((), 0, core.get_aval(like).dtype)


def _slice_batch(args, dims, *, start_indices, limit_indices, strides):
    (x,), (b,) = args, dims
    n = core.get_aval(x).shape[b]
    start = tuple(start_indices[:b]) + (0,) + tuple(start_indices[b:])
    limit = tuple(limit_indices[:b]) + (n,) + tuple(limit_indices[b:])
    st = None if strides is None else tuple(strides[:b]) + (1,) + tuple(strides[b:])
    return slice(x, start, limit, st), b


R.deflinear(slice_p, _slice_transpose)
R.primitive_batchers[slice_p] = _slice_batch


def slice(operand: Any, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Any:
    """`lax.slice`: the static box [start, limit) of `operand`, every `strides`-th element."""
    start = tuple(int(i) for i in start_indices)
    limit = tuple(int(i) for i in limit_indices)
    st = None if strides is None else tuple(int(s) for s in strides)
    if st is not None and len(st) == len(start) and all(s == 1 for s in st):
        st = None
    shape = core.get_aval(operand).shape
    if st is None and start == (0,) * len(shape) and limit == shape:
        return operand
    return slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=st)


def slice_in_dim(operand: Any, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Any:
    """`lax.slice_in_dim`: `lax.slice` along one axis (None and negative bounds as in Python)."""
    shape = core.get_aval(operand).shape
    axis = int(axis) % len(shape)
    n = shape[axis]
    start = 0 if start_index is None else int(start_index)
    limit = n if limit_index is None else int(limit_index)
    start = start + n if start < 0 else start
    limit = limit + n if limit < 0 else limit
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """`lax.index_in_dim`: element `index` along `axis` (negative counts from the end)."""
    shape = core.get_aval(operand).shape
    axis = int(axis) % len(shape)
    n, index = shape[axis], int(index)
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    index = index + n if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


# ---------------------------------------------------------------- pad
pad_p = core.Primitive("pad")


@core.def_abstract_eval(pad_p)
def _pad_abstract(x, pv, *, padding_config):
    if pv.ndim != 0:
        raise ValueError(f"padding_value must be a scalar; got np.shape(padding_value)={pv.shape}")
    if x.dtype != pv.dtype:
        raise TypeError(f"pad operand and padding_value must be same dtype: got {x.dtype.name} "
                        f"and {pv.dtype.name}.")
    cfg = tuple(tuple(c) for c in padding_config)
    if len(cfg) != x.ndim:
        raise ValueError(f"length of padding_config must equal the number of axes of operand, got "
                         f"padding_config {cfg} for operand shape {x.shape}")
    if any(i < 0 for _, _, i in cfg):
        raise ValueError(f"interior padding in padding_config must be nonnegative, got "
                         f"padding_config {cfg}")
    out = tuple(lo + hi + n + max(n - 1, 0) * i for n, (lo, hi, i) in zip(x.shape, cfg))
    if any(d < 0 for d in out):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape {out}, "
                         f"for padding_config {cfg} and operand shape {x.shape}")
    return x.update(shape=out, weak_type=x.weak_type and pv.weak_type)


def _pad_movement(s: Node, config) -> Node:
    """Zero-pad `s` per (lo, hi, interior) config using only movement ops."""
    for ax, (lo, hi, interior) in enumerate(config):
        n = s.shape[ax]
        if interior and n > 1:
            pre, post = s.shape[:ax], s.shape[ax + 1:]
            s = s.reshape(pre + (n, 1) + post)
            s = s.pad([(0, 0)] * (ax + 1) + [(0, interior)] + [(0, 0)] * len(post))
            s = s.reshape(pre + (n * (interior + 1),) + post)
            s = s.shrink([(0, d) for d in pre] + [(0, n + (n - 1) * interior)] + [(0, d) for d in post])
        widths = [(0, 0)] * s.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        s = s.pad(widths)
        if lo < 0 or hi < 0:
            m = s.shape[ax]
            bounds = [(0, d) for d in s.shape]
            bounds[ax] = (-min(lo, 0), m + min(hi, 0))
            s = s.shrink(bounds)
    return s


@def_lowering(pad_p)
def _pad_lower(x, pv, *, padding_config):
    padded = _pad_movement(x, padding_config)
    if graph.is_const(pv) and pv.value == 0 and not _is_neg_zero(pv.value):
        return padded
    mask = _pad_movement(graph.const(True, dtypes.bool_, x.shape), padding_config)
    return graph.where(mask, padded, pv.expand_to(padded.shape))


def _is_neg_zero(v: Any) -> bool:
    return isinstance(v, float) and v == 0 and math.copysign(1.0, v) < 0


@linear_transpose
def _pad_transpose(ct, x, pv, *, padding_config):
    unpad = [(-lo, -hi, 0) for lo, hi, _ in padding_config]
    t = pad(ct, _zero_scalar(ct), unpad)
    t_x = slice(t, (0,) * len(padding_config), core.get_aval(t).shape,
                tuple(i + 1 for _, _, i in padding_config))
    t_pv = None
    if isinstance(pv, UndefinedPrimal):
        nd = len(padding_config)
        from .reductions import reduce_sum  # noqa: PLC0415  (reductions builds on this module)
        t_pv = sub(reduce_sum(ct, range(nd)), reduce_sum(t_x, range(nd)))
    return [t_x if isinstance(x, UndefinedPrimal) else None, t_pv]


def _pad_batch(args, dims, *, padding_config):
    (x, pv), (bx, bpv) = args, dims
    n = batch_size(args, dims)
    x = bdim_at_front(x, bx, n)
    cfg = ((0, 0, 0),) + tuple(tuple(c) for c in padding_config)
    if bpv is None:
        return pad(x, pv, cfg), 0
    zero = _zero_scalar(x)
    out = pad(x, zero, cfg)
    mask = pad(broadcast_in_dim(True, core.get_aval(x).shape, ()), False, cfg)
    fill = broadcast_in_dim(moveaxis_to_front(pv, bpv), core.get_aval(out).shape, (0,))
    return select_n(mask, fill, out), 0


R.deflinear(pad_p, _pad_transpose)
R.primitive_batchers[pad_p] = _pad_batch


def _is_host_scalar(x: Any) -> bool:
    return not isinstance(x, (Array, core.Tracer)) and getattr(x, "ndim", None) == 0 and hasattr(x, "item")


def pad(operand: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """`lax.pad`: (low, high, interior) padding per dimension; low/high may be negative."""
    if core.is_python_scalar(padding_value):
        padding_value = _weak_scalar(padding_value, core.get_aval(operand).dtype)
    elif _is_host_scalar(padding_value):  # a constant: the padding stays a free view
        padding_value = _base.constant((), padding_value.item(), core.get_aval(padding_value).dtype)
    cfg = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=cfg)


# ---------------------------------------------------------------- concatenate
concatenate_p = core.Primitive("concatenate")


@core.def_abstract_eval(concatenate_p)
def _concatenate_abstract(*xs, dimension):
    shapes = [x.shape for x in xs]
    if len({x.ndim for x in xs}) != 1:
        raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: got "
                        f"{_shape_str(shapes)}.")
    if not 0 <= dimension < xs[0].ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes "
                        f"{_shape_str(shapes)}.")
    if len({s[:dimension] + s[dimension + 1:] for s in shapes}) != 1:
        raise TypeError(f"Cannot concatenate arrays with shapes that differ in dimensions other than "
                        f"the one being concatenated: concatenating along dimension {dimension} for "
                        f"shapes {_shape_str(shapes)}.")
    if len({x.dtype for x in xs}) != 1:
        raise TypeError(f"lax.concatenate requires arguments to have the same dtypes, got "
                        f"{', '.join(x.dtype.name for x in xs)}. (Tip: jnp.concatenate is a similar "
                        f"function that does automatic type promotion on inputs).")
    shape = list(shapes[0])
    shape[dimension] = sum(s[dimension] for s in shapes)
    return xs[0].update(shape=tuple(shape), weak_type=all(x.weak_type for x in xs))


@def_lowering(concatenate_p)
def _concatenate_lower(*xs, dimension):
    parts = [x for x in xs if x.shape[dimension]]
    total = sum(x.shape[dimension] for x in xs)
    if len(parts) <= 1:
        return parts[0] if parts else xs[0]
    shape = list(parts[0].shape)
    shape[dimension] = total
    shape = tuple(shape)
    pos = graph.iota(dtypes.int32, shape, dimension)
    starts, views, start = [], [], 0
    for x in parts:
        widths = [(0, 0)] * len(shape)
        widths[dimension] = (start, total - start - x.shape[dimension])
        starts.append(start)
        views.append(x.pad(widths))
        start += x.shape[dimension]

    def select(lo: int, hi: int) -> Node:  # a balanced tree of selects: depth log2(parts)
        if hi - lo == 1:
            return views[lo]
        mid = (lo + hi) // 2
        left = graph.alu("lt", pos, graph.const(starts[mid], dtypes.int32, shape))
        return graph.where(left, select(lo, mid), select(mid, hi))
    return select(0, len(views))


@linear_transpose
def _concatenate_transpose(ct, *xs, dimension):
    outs, start = [], 0
    for x in xs:
        undefined = isinstance(x, UndefinedPrimal)
        n = (x.aval if undefined else core.get_aval(x)).shape[dimension]
        outs.append(slice_in_dim(ct, start, start + n, 1, dimension) if undefined else None)
        start += n
    return outs


def _concatenate_batch(args, dims, *, dimension):
    n = batch_size(args, dims)
    return concatenate([bdim_at_front(x, d, n) for x, d in zip(args, dims)], dimension + 1), 0


R.deflinear(concatenate_p, _concatenate_transpose)
R.primitive_batchers[concatenate_p] = _concatenate_batch


def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """`lax.concatenate`: join same-dtype arrays along `dimension` (a balanced tree of
    selects in the graph, so a backend's binding limit can cut it into kernels)."""
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1:
        return operands[0]
    return concatenate_p.bind(*operands, dimension=int(dimension))


# ---------------------------------------------------------------- copy
copy_p = core.Primitive("copy")
core.def_abstract_eval(copy_p)(lambda x: x)
def_lowering(copy_p)(lambda x: x)
R.deflinear(copy_p, linear_transpose(lambda ct, x: [ct]))
R.defvectorized(copy_p)


def copy(x: Any) -> Any:
    """`lax.copy`: the same values (arrays are immutable, so views suffice)."""
    return copy_p.bind(x)
