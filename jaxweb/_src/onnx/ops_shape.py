"""Shape and layout operators: Reshape, Transpose, Squeeze/Unsqueeze, Concat, Split, Slice,
Expand, Tile, Pad, Shape, Size, ConstantOfShape, Constant, Range, Flatten, DepthToSpace,
SpaceToDepth, Trilu, EyeLike, Dropout. Those that only move data keep HostTensors on the
host (static shape arithmetic); the rest are jnp calls on device arrays."""
from __future__ import annotations

import math

import jaxweb.numpy as jnp
from jaxweb._src import dtypes

from .registry import op, unsupported
from .tensors import HostTensor
from .util import arr, astype, axes, axis, broadcast_flat, broadcast_shapes, canon, dtype_of, to_dtype

INT64 = dtypes.int64


def _relabel(x, shape: tuple):
    """`x` with a new shape and the same elements (host tensors stay on the host)."""
    if isinstance(x, HostTensor):
        return HostTensor(x.dtype, shape, data=x._data, values=x._values)
    return jnp.reshape(x, shape)


def _reshape_target(node, shape: tuple, target: list[int]) -> tuple:
    allow_zero = node.attr("allowzero", 0)
    out = [shape[i] if (d == 0 and not allow_zero and i < len(shape)) else d for i, d in enumerate(target)]
    if out.count(-1) > 1:
        raise ValueError(f"Reshape: more than one -1 in {target}")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        out[out.index(-1)] = math.prod(shape) // known if known else 0
    if math.prod(out) != math.prod(shape):
        raise ValueError(f"Reshape: cannot reshape {shape} to {target}")
    return tuple(out)


@op("Reshape", since=1)
def _reshape_v1(node, x):
    return _relabel(x, _reshape_target(node, tuple(x.shape), node.attr("shape")))


@op("Reshape", since=5, static=(1,))
def _reshape(node, x, shape):
    return _relabel(x, _reshape_target(node, tuple(x.shape), shape.ints()))


@op("Flatten")
def _flatten(node, x):
    a = node.attr("axis", 1)
    a = a + len(x.shape) if a < 0 else a
    return _relabel(x, (math.prod(x.shape[:a]), math.prod(x.shape[a:])))


def _squeeze_axes(node, x, ax) -> tuple:
    rank = len(x.shape)
    sel = axes(ax, rank) if ax is not None else [i for i, d in enumerate(x.shape) if d == 1]
    return tuple(d for i, d in enumerate(x.shape) if i not in sel)


def _unsqueeze_shape(x, ax) -> tuple:
    rank = len(x.shape) + len(ax)
    sel = sorted(axes(ax, rank))
    shape, it = [], iter(x.shape)
    for i in range(rank):
        shape.append(1 if i in sel else next(it))
    return tuple(shape)


op("Squeeze", since=1)(lambda node, x: _relabel(x, _squeeze_axes(node, x, node.attr("axes"))))
op("Squeeze", since=13, static=(1,))(
    lambda node, x, ax=None: _relabel(x, _squeeze_axes(node, x, None if ax is None else ax.ints())))
op("Unsqueeze", since=1)(lambda node, x: _relabel(x, _unsqueeze_shape(x, node.attr("axes"))))
op("Unsqueeze", since=13, static=(1,))(lambda node, x, ax: _relabel(x, _unsqueeze_shape(x, ax.ints())))


def _host_concat(node, *xs):
    xs = [x for x in xs if x is not None]
    rank = len(xs[0].shape)
    a = axis(node.attr("axis", 0), rank)
    outer = math.prod(xs[0].shape[:a])
    vals = []
    for o in range(outer):
        for x in xs:
            inner = math.prod(x.shape[a:])
            vals.extend(x.values[o * inner:(o + 1) * inner])
    shape = list(xs[0].shape)
    shape[a] = sum(x.shape[a] for x in xs)
    return HostTensor(xs[0].dtype, shape, values=vals)


@op("Concat", host=_host_concat)
def _concat(node, *xs):
    xs = [x for x in xs if x is not None]
    dt = dtype_of(xs[0])
    parts = [astype(x, dt) for x in xs]
    parts = [p for p in parts if p.size or len(parts) == 1] or parts[:1]
    return jnp.concatenate(parts, axis=axis(node.attr("axis", 0), len(xs[0].shape)))


def _split_sizes(node, dim: int, split) -> list[int]:
    n = len(node.outputs)
    if split is not None:
        return list(split)
    num = node.attr("num_outputs", n)
    chunk = -(-dim // num)
    return [min(chunk, dim - i * chunk) for i in range(num)]


def _split(node, x, split=None):
    x = arr(x)
    a = axis(node.attr("axis", 0), x.ndim)
    sizes = _split_sizes(node, x.shape[a], split)
    out, start = [], 0
    for s in sizes:
        idx = [slice(None)] * x.ndim
        idx[a] = slice(start, start + s)
        out.append(x[tuple(idx)])
        start += s
    return tuple(out)


op("Split", since=1)(lambda node, x, split=None: _split(
    node, x, node.attr("split") if split is None else split.ints()))
op("Split", since=2)(lambda node, x: _split(node, x, node.attr("split")))
op("Split", since=13, static=(1,))(lambda node, x, split=None: _split(
    node, x, None if split is None else split.ints()))


def _slices(shape: tuple, starts, ends, ax, steps) -> tuple:
    rank = len(shape)
    ax = axes(ax, rank) if ax is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    idx = [slice(None)] * rank
    for s, e, a, st in zip(starts, ends, ax, steps):
        if st == 0:
            raise ValueError("Slice: steps must not be 0")
        s, e = max(min(s, 2**62), -2**62), max(min(e, 2**62), -2**62)
        idx[a] = slice(*slice(s, e, st).indices(shape[a]))
    return tuple(idx)


def _host_slice(x: HostTensor, idx: tuple) -> HostTensor:
    ranges = [range(*sl.indices(d)) for sl, d in zip(idx, x.shape)]
    shape = tuple(len(r) for r in ranges)
    strides = [math.prod(x.shape[i + 1:]) for i in range(x.ndim)]
    offsets = [0]
    for r, st in zip(ranges, strides):
        offsets = [o + i * st for o in offsets for i in r]
    vals = x.values
    return HostTensor(x.dtype, shape, values=[vals[o] for o in offsets])


def _slice(x, idx):
    return _host_slice(x, idx) if isinstance(x, HostTensor) else arr(x)[idx]


op("Slice", since=1)(lambda node, x: _slice(x, _slices(
    tuple(x.shape), node.attr("starts"), node.attr("ends"), node.attr("axes"), None)))


@op("Slice", since=10, static=(1, 2, 3, 4))
def _slice10(node, x, starts, ends, ax=None, steps=None):
    idx = _slices(tuple(x.shape), starts.ints(), ends.ints(), None if ax is None else ax.ints(),
                  None if steps is None else steps.ints())
    return _slice(x, idx)


# ---------------------------------------------------------------- shapes as values
@op("Shape")
def _shape(node, x):
    dims = list(x.shape)
    start, end = node.attr("start", 0), node.attr("end", len(dims))
    sel = dims[slice(*slice(start, end).indices(len(dims)))]
    return HostTensor(INT64, (len(sel),), values=sel)


op("Size")(lambda node, x: HostTensor(INT64, (), values=[math.prod(x.shape)]))


@op("ConstantOfShape", static=(0,))
def _constant_of_shape(node, shape):
    value = node.attr("value")
    dt, v = (value.dtype, value.values[0]) if value is not None else (dtypes.float32, 0.0)
    dims = tuple(shape.ints())
    if math.prod(dims) <= 4096:
        return HostTensor.of([v] * math.prod(dims), dt, dims)
    return jnp.full(dims, v, canon(dt))


_CONSTANT_FIELDS = {"value_float": (dtypes.float32, False), "value_floats": (dtypes.float32, True),
                    "value_int": (INT64, False), "value_ints": (INT64, True)}


@op("Constant")
def _constant(node):
    if "value" in node.attrs:
        return node.attrs["value"]
    if "sparse_value" in node.attrs:
        raise unsupported(node, "sparse_value constants")
    for name, (dt, many) in _CONSTANT_FIELDS.items():
        if name in node.attrs:
            v = node.attrs[name]
            return HostTensor.of(v, dt, (len(v),)) if many else HostTensor.of([v], dt, ())
    raise unsupported(node, f"attributes {sorted(node.attrs)}")


@op("Range", static=(0, 1, 2))
def _range(node, start, limit, delta):
    s, l, d = start.values[0], limit.values[0], delta.values[0]
    n = max(int(math.ceil((l - s) / d)), 0)
    vals = [s + i * d for i in range(n)]
    if n <= 4096:
        return HostTensor.of(vals, start.dtype, (n,))
    return jnp.arange(n, dtype=canon(start.dtype)) * d + s


def _host_expand(node, x, shape):
    out = broadcast_shapes(x.shape, tuple(shape.ints()))
    if math.prod(out) > 4096:
        return None
    return HostTensor(x.dtype, out, values=broadcast_flat(x, out))


@op("Expand", static=(1,), host=_host_expand)
def _expand(node, x, shape):
    x = arr(x)
    return jnp.broadcast_to(x, broadcast_shapes(tuple(x.shape), tuple(shape.ints())))


op("Tile", static=(1,))(lambda node, x, reps: jnp.tile(arr(x), tuple(reps.ints())))


@op("Transpose")
def _transpose(node, x):
    x = arr(x)
    perm = node.attr("perm")
    return jnp.transpose(x, None if perm is None else tuple(perm))


# ---------------------------------------------------------------- padding
def _pad(x, pads: list[int], mode: str, value, ax=None):
    x = arr(x)
    rank = x.ndim
    ax = list(range(rank)) if ax is None else axes(ax, rank)
    k = len(ax)
    widths = [[0, 0] for _ in range(rank)]
    for i, a in enumerate(ax):
        widths[a] = [pads[i], pads[i + k]]
    crop = tuple(slice(max(-b, 0), x.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(widths))
    x = x[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in widths]
    if mode == "constant":
        return jnp.pad(x, widths, mode="constant", constant_values=value)
    if mode not in ("reflect", "edge", "wrap"):
        raise ValueError(f"Pad: unknown mode {mode!r}")
    return jnp.pad(x, widths, mode=mode)


op("Pad", since=1)(lambda node, x: _pad(x, node.attr("pads", node.attr("paddings")), node.attr("mode", "constant"),
                                          node.attr("value", 0.0)))


@op("Pad", since=11, static=(1, 3))
def _pad11(node, x, pads, value=None, ax=None):
    v = 0 if value is None else (value.values[0] if isinstance(value, HostTensor) else arr(value))
    return _pad(x, pads.ints(), node.attr("mode", "constant"), v, None if ax is None else ax.ints())


# ---------------------------------------------------------------- rearrangements
@op("DepthToSpace")
def _depth_to_space(node, x):
    x = arr(x)
    b = node.attr("blocksize")
    n, c, h, w = x.shape
    if node.attr("mode", "DCR") == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


@op("SpaceToDepth")
def _space_to_depth(node, x):
    x = arr(x)
    b = node.attr("blocksize")
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b)
    y = y.transpose(0, 1, 3, 5, 2, 4) if node.attr("mode", "DCR") == "CRD" else y.transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


@op("Trilu", static=(1,))
def _trilu(node, x, k=None):
    k = 0 if k is None else k.ints()[0]
    x = arr(x)
    return jnp.triu(x, k) if node.attr("upper", 1) else jnp.tril(x, k)


@op("EyeLike")
def _eye_like(node, x):
    dt = to_dtype(node.attr("dtype")) if node.attr("dtype") is not None else dtype_of(x)
    return jnp.eye(x.shape[0], x.shape[1], k=node.attr("k", 0), dtype=canon(dt))


@op("Dropout", static=(1, 2))
def _dropout(node, x, ratio=None, training=None):
    if training is not None and training.values[0] and (ratio is None or ratio.values[0] != 0):
        raise unsupported(node, "training_mode=True (random dropout)")
    x = arr(x)
    return x, jnp.ones(x.shape, bool)
