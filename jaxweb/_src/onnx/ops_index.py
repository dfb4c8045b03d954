"""Indexing operators: Gather family, Scatter family, TopK, ArgMax/ArgMin, CumSum, OneHot,
NonZero, Compress, ReverseSequence. ONNX indices may be negative (counted from the end)."""
from __future__ import annotations

import math

import jaxweb.lax as lax
import jaxweb.numpy as jnp
from jaxweb._src import dtypes

from .registry import op, unsupported
from .tensors import HostTensor
from .util import arr, astype, axis, canon, dtype_of

INT64 = dtypes.int64


def _wrap(idx, dim):
    """Negative indices counted from the end of a dimension of size `dim`."""
    idx = arr(idx)
    return jnp.where(idx < 0, idx + dim, idx)


def _host_gather(node, x, idx):
    a = axis(node.attr("axis", 0), x.ndim)
    dim = x.shape[a]
    ids = [i + dim if i < 0 else i for i in idx.ints()]
    if any(not 0 <= i < dim for i in ids):
        return None
    outer, inner = math.prod(x.shape[:a]), math.prod(x.shape[a + 1:])
    vals = x.values
    out = [vals[(o * dim + i) * inner + j] for o in range(outer) for i in ids for j in range(inner)]
    return HostTensor(x.dtype, x.shape[:a] + idx.shape + x.shape[a + 1:], values=out)


@op("Gather", host=_host_gather)
def _gather(node, x, idx):
    x = arr(x)
    a = axis(node.attr("axis", 0), x.ndim)
    run = _static_run(idx, x.shape[a])
    if run is not None:  # a slice (or one row, repeated) read in place: no gather, no index checks
        start, step, n = run
        y = lax.slice_in_dim(x, start, start + (n if step else 1), axis=a)
        out = x.shape[:a] + idx.shape + x.shape[a + 1:]
        if step:
            return y.reshape(out)
        return jnp.broadcast_to(y.reshape(x.shape[:a] + (1,) * len(idx.shape) + x.shape[a + 1:]), out)
    return jnp.take(x, _wrap(idx, x.shape[a]), axis=a)


def _static_run(idx, dim: int):
    """(start, 1, n) when host-known indices are start, start + 1, ..., (start, 0, n) when
    they are all `start` (in range, negative ones counted from the end), else None. Exports
    gather attention masks and position embeddings with such index arrays (`Range`)."""
    if not isinstance(idx, HostTensor) or idx.size == 0 or idx.size > 1 << 16:
        return None
    ids = [i + dim if i < 0 else i for i in idx.ints()]
    start = ids[0]
    if not 0 <= start < dim:
        return None
    if ids == list(range(start, start + len(ids))) and start + len(ids) <= dim:
        return start, 1, len(ids)
    if ids.count(start) == len(ids):
        return start, 0, len(ids)
    return None


@op("GatherElements")
def _gather_elements(node, x, idx):
    x = arr(x)
    a = axis(node.attr("axis", 0), x.ndim)
    return jnp.take_along_axis(x, _wrap(idx, x.shape[a]), axis=a)


def _nd_index(x_shape: tuple, idx, b: int) -> tuple:
    """GatherND/ScatterND's index tuple: batch coordinates, then the k indexed dims."""
    idx = arr(idx)
    k = idx.shape[-1]
    batch = idx.shape[:b]
    comps = []
    for d in range(b):  # the batch dims, broadcast over the index grid
        shape = [1] * (idx.ndim - 1)
        shape[d] = batch[d]
        comps.append(jnp.arange(batch[d]).reshape(shape))
    for j in range(k):
        comps.append(_wrap(idx[..., j], x_shape[b + j]))
    return tuple(comps)


@op("GatherND")
def _gather_nd(node, x, idx):
    x = arr(x)
    return x[_nd_index(tuple(x.shape), idx, node.attr("batch_dims", 0))]


_REDUCE = {"none": "set", "add": "add", "mul": "multiply", "max": "max", "min": "min"}


def _scatter_at(node, x, index, updates):
    red = node.attr("reduction", "none")
    if red not in _REDUCE:
        raise unsupported(node, f"reduction {red!r}")
    return getattr(x.at[index], _REDUCE[red])(astype(updates, dtype_of(x)))


@op("ScatterND")
def _scatter_nd(node, x, idx, updates):
    x = arr(x)
    return _scatter_at(node, x, _nd_index(tuple(x.shape), idx, 0), updates)


@op("ScatterElements", "Scatter")
def _scatter_elements(node, x, idx, updates):
    x, idx = arr(x), arr(idx)
    a = axis(node.attr("axis", 0), x.ndim)
    grid = [jnp.arange(d).reshape([d if i == j else 1 for j in range(idx.ndim)]) for i, d in enumerate(idx.shape)]
    grid[a] = _wrap(idx, x.shape[a])
    return _scatter_at(node, x, tuple(jnp.broadcast_arrays(*grid)), updates)


@op("TopK", since=1)
def _topk1(node, x):
    return _topk_impl(arr(x), node.attr("k"), node.attr("axis", -1), 1)


@op("TopK", since=10, static=(1,))
def _topk(node, x, k):
    return _topk_impl(arr(x), k.ints()[0], node.attr("axis", -1), node.attr("largest", 1))


def _topk_impl(x, k: int, ax: int, largest: int):
    a = axis(ax, x.ndim)
    y = jnp.moveaxis(x, a, -1)
    if not largest:
        y = -y if dtypes.dtype(y.dtype).kind != "b" else ~y
    vals, idx = lax.top_k(y, k)
    if not largest:
        vals = -vals if dtypes.dtype(vals.dtype).kind != "b" else ~vals
    return jnp.moveaxis(vals, -1, a), jnp.moveaxis(idx, -1, a).astype(canon(INT64))


def _arg(fn):
    def impl(node, x):
        x = arr(x)
        a = axis(node.attr("axis", 0), x.ndim)
        keep = bool(node.attr("keepdims", 1))
        if node.attr("select_last_index", 0):
            r = (x.shape[a] - 1) - fn(jnp.flip(x, a), axis=a, keepdims=keep)
        else:
            r = fn(x, axis=a, keepdims=keep)
        return r.astype(canon(INT64))
    return impl


op("ArgMax")(_arg(jnp.argmax))
op("ArgMin")(_arg(jnp.argmin))


@op("CumSum", static=(1,))
def _cumsum(node, x, ax):
    x = arr(x)
    a = axis(ax.ints()[0], x.ndim)
    if node.attr("reverse", 0):
        x = jnp.flip(x, a)
    y = jnp.cumsum(x, axis=a, dtype=x.dtype)
    if node.attr("exclusive", 0):
        y = y - x
    return jnp.flip(y, a) if node.attr("reverse", 0) else y


@op("OneHot", static=(1,))
def _one_hot(node, idx, depth, values):
    depth = int(depth.values[0])
    values = arr(values)
    idx = arr(idx)
    idx = jnp.where(idx < 0, idx + depth, idx)
    a = node.attr("axis", -1)
    a = a + idx.ndim + 1 if a < 0 else a
    shape = [1] * (idx.ndim + 1)
    shape[a] = depth
    hot = jnp.expand_dims(idx, a).astype(canon(INT64)) == jnp.arange(depth).reshape(shape)
    return jnp.where(hot, values[1], values[0])


def _host_nonzero(node, x):
    strides = [math.prod(x.shape[i + 1:]) for i in range(x.ndim)]
    hits = [f for f, v in enumerate(x.values) if v]
    rows = [[(f // s) % d for f in hits] for s, d in zip(strides, x.shape)]
    return HostTensor(INT64, (x.ndim, len(hits)), values=[v for r in rows for v in r])


@op("NonZero", host=_host_nonzero)
def _nonzero(node, x):
    x = arr(x)
    return jnp.stack(jnp.nonzero(x)).astype(canon(INT64)) if x.ndim else jnp.zeros((0, int(bool(x))), canon(INT64))


@op("Compress", static=(1,))
def _compress(node, x, cond):
    x = arr(x)
    keep = [i for i, c in enumerate(cond.values) if c]
    a = node.attr("axis")
    if a is None:
        return jnp.take(x.reshape(-1), jnp.asarray(keep, jnp.int32))
    return jnp.take(x, jnp.asarray(keep, jnp.int32), axis=axis(a, x.ndim))


@op("ReverseSequence", static=(1,))
def _reverse_sequence(node, x, lens):
    x = arr(x)
    t_ax, b_ax = node.attr("time_axis", 0), node.attr("batch_axis", 1)
    steps = jnp.arange(x.shape[t_ax])
    shape_t = [1] * x.ndim
    shape_t[t_ax] = x.shape[t_ax]
    shape_b = [1] * x.ndim
    shape_b[b_ax] = x.shape[b_ax]
    n = jnp.asarray(lens.ints(), jnp.int32).reshape(shape_b)
    t = steps.reshape(shape_t)
    src = jnp.where(t < n, n - 1 - t, t)
    return jnp.take_along_axis(x, jnp.broadcast_to(src, x.shape), axis=t_ax)


def _unique_rows(x: HostTensor, a):
    """Unique's keys: the flat values (axis None) or the slices along `a`, as tuples."""
    if a is None:
        return [(v,) for v in x.values], None
    a = axis(a, x.ndim)
    outer, dim, inner = math.prod(x.shape[:a]), x.shape[a], math.prod(x.shape[a + 1:])
    vals = x.values
    return [tuple(vals[(o * dim + i) * inner + j] for o in range(outer) for j in range(inner))
            for i in range(dim)], a


def _unique(node, x):
    """Unique's four outputs; the output shape depends on the values, so the input must be
    concrete (a static value, or an array outside jit)."""
    x = x if isinstance(x, HostTensor) else HostTensor(dtypes.dtype(x.dtype), x.shape, values=x.reshape(-1).tolist())
    rows, a = _unique_rows(x, node.attr("axis"))
    first: dict = {}
    for i, r in enumerate(rows):
        first.setdefault(r, i)
    keys = sorted(first) if node.attr("sorted", 1) else list(first)
    where = {k: j for j, k in enumerate(keys)}
    counts = [0] * len(keys)
    for r in rows:
        counts[where[r]] += 1
    idx = [first[k] for k in keys]
    if a is None:
        y = HostTensor(x.dtype, (len(keys),), values=[k[0] for k in keys])
    else:
        y = jnp.take(x.array(), jnp.asarray(idx, jnp.int32), axis=a)
    ints = [HostTensor(INT64, (len(v),), values=v) for v in (idx, [where[r] for r in rows], counts)]
    return (y, *ints)


op("Unique", since=11, host=_unique)(_unique)


@op("MaxUnpool", since=9, static=(2,))
def _max_unpool(node, x, idx, shape=None):
    """Indices address the unpooled tensor of the default size (what MaxPool saw); with an
    output_shape the values land at the same coordinates of the larger output."""
    x, idx = arr(x), arr(idx)
    kernel, k = node.attr("kernel_shape"), len(node.attr("kernel_shape"))
    strides = node.attr("strides") or [1] * k
    pads = node.attr("pads") or [0] * (2 * k)
    default = tuple(x.shape[:2]) + tuple((n - 1) * s + kk - pads[i] - pads[i + k] for i, (n, s, kk) in
                                         enumerate(zip(x.shape[2:], strides, kernel)))
    out = tuple(shape.ints()) if shape is not None else default
    flat_idx = idx.reshape(-1)
    if out != default:
        coords, rem = [], flat_idx
        for d in reversed(default):
            coords.append(rem % d)
            rem = rem // d
        flat_idx = 0
        for c, d in zip(reversed(coords), out):
            flat_idx = flat_idx * d + c
    flat = jnp.zeros((math.prod(out),), x.dtype).at[flat_idx].set(x.reshape(-1))
    return flat.reshape(out)
