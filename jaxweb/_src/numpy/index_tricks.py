"""Index helpers of jnp built on static slicing, joins, gather and scatter: append,
insert, delete, compress/extract, put/put_along_axis, fill_diagonal, choose, block,
ix_, indices, (un)ravel_index and the diagonal/triangle index generators.

Functions whose result shape depends on index values (insert, delete, compress)
need those values concrete, as in JAX.
"""
from __future__ import annotations

__all__ = ["append", "insert", "delete", "compress", "extract", "place", "trim_zeros", "put", "put_along_axis",
           "fill_diagonal", "choose", "block", "ix_", "indices", "unravel_index",
           "ravel_multi_index", "diag_indices", "diag_indices_from", "tril_indices",
           "triu_indices", "tril_indices_from", "triu_indices_from", "mask_indices", "mgrid", "ogrid",
           "r_", "c_", "s_", "index_exp"]

import operator
from typing import Any, Sequence

from .. import core, dtypes
from ..compiler.shapetracker import prod
from ..lax import gather_scatter as gs, structural as lax
from ..lax.base import canonical_axes
from . import (util, creation as _creation, indexing as _indexing, reductions as _reductions,
    shape as _shape, ufuncs as _ufuncs, ufuncs_math as _ufuncs_math)
from ..lax.indexing import normalize_index


def _ints(x: Any, what: str) -> list[int]:
    """Concrete integer values of a scalar/sequence/array, flattened."""
    x = core.concrete_or_error(x, what)
    if hasattr(x, "tolist"):
        x = x.tolist()
    if not isinstance(x, (list, tuple)):
        return [operator.index(x)]
    out: list[int] = []
    for v in x:
        out.extend(_ints(v, what) if isinstance(v, (list, tuple)) else [operator.index(v)])
    return out


def _i32(values: Sequence[int]) -> Any:
    return _creation.asarray(list(values), dtype=dtypes.int32)


def _take_static(a: Any, positions: Sequence[int], axis: int) -> Any:
    """Elements at static `positions` along `axis`: runs of consecutive positions become
    slices, joined once (no gather)."""
    runs: list[list[int]] = []
    for p in positions:
        if runs and p == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([p, p + 1])
    if not runs:
        return lax.slice_in_dim(a, 0, 0, 1, axis)
    parts = [lax.slice_in_dim(a, lo, hi, 1, axis) for lo, hi in runs]
    return lax.concatenate(parts, axis) if len(parts) > 1 else parts[0]


def _flat_or_axis(arr: Any, axis: int | None) -> tuple[Any, int]:
    a = util.ensure_array(arr)
    if axis is None:
        return lax.reshape(a, (a.size,)), 0
    return a, canonical_axes((axis,), a.ndim)[0]


# ---------------------------------------------------------------- append / insert / delete
def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """`jnp.append`: `values` joined after `arr` (both flattened if axis is None)."""
    util.check_arraylike("append", arr, values)
    cat = _shape.concatenate
    if axis is None:
        return cat([_shape.ravel(arr), _shape.ravel(values)])
    return cat([arr, values], axis=axis)


def delete(arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False) -> Any:
    """`jnp.delete`: `arr` without the entries `obj` (int, slice or concrete indices) on `axis`."""
    util.check_arraylike("delete", arr)
    a, axis = _flat_or_axis(arr, axis)
    n = a.shape[axis]
    if isinstance(obj, slice):
        drop = set(range(*obj.indices(n)))
    elif assume_unique_indices and isinstance(obj, core.Tracer) and obj.to_concrete_value() is None:
        return _delete_traced(a, obj, axis)
    else:
        drop = set()
        for i in _ints(obj, "jnp.delete indices"):
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            drop.add(i % n)
    return _take_static(a, [i for i in range(n) if i not in drop], axis)


def _delete_traced(a: Any, obj: Any, axis: int) -> Any:
    """delete with traced, unique indices (static count): the k-th kept position is k plus
    the number of deleted positions at or before it."""
    n = a.shape[axis]
    obj = _shape.ravel(_creation.asarray(obj))
    from .sorting import sort  # noqa: PLC0415  (sorting is a family loaded on first use)
    obj = sort(_ufuncs.where(obj < 0, obj + n, obj))
    m = obj.shape[0]
    shifted = obj - _creation.arange(m, dtype=obj.dtype)
    keep = _creation.arange(n - m, dtype=obj.dtype)
    keep = keep + _reductions.sum(keep[None, :] >= shifted[:, None], axis=0, dtype=obj.dtype)
    return _indexing.take(a, keep, axis=axis)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """`jnp.insert`: `values` inserted before the (concrete) indices `obj` on `axis`;
    out-of-range indices clamp to the ends, as in JAX."""
    util.check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    a, axis = _flat_or_axis(arr, axis)
    n = a.shape[axis]
    scalar = not isinstance(obj, slice) and getattr(obj, "ndim", 0) == 0 and not isinstance(obj, (list, tuple))
    idx = list(range(*obj.indices(n))) if isinstance(obj, slice) else _ints(obj, "jnp.insert indices")
    idx = [min(max(i + n if i < 0 else i, 0), n) for i in idx]
    v = _creation.asarray(values, dtype=a.dtype)
    if scalar:
        v = lax.reshape(v, (1,) * (a.ndim - v.ndim) + v.shape) if v.ndim < a.ndim else v
        v = _shape.moveaxis(v, 0, axis) if v.ndim else v
        count = v.shape[axis] if v.ndim else 1
    else:
        count = len(idx)
    shape = list(a.shape)
    shape[axis] = count
    v = _shape.broadcast_to(v, tuple(shape))
    if scalar:
        idx = idx * count
    order = sorted(range(count), key=lambda k: idx[k])
    parts, prev = [], 0
    for k in order:
        if idx[k] > prev:
            parts.append(lax.slice_in_dim(a, prev, idx[k], 1, axis))
        parts.append(lax.slice_in_dim(v, k, k + 1, 1, axis))
        prev = idx[k]
    if prev < n or not parts:
        parts.append(lax.slice_in_dim(a, prev, n, 1, axis))
    return lax.concatenate(parts, axis)


def compress(condition: Any, a: Any, axis: int | None = None, *, size: int | None = None,
             fill_value: Any = 0, out: None = None) -> Any:
    """`jnp.compress`: the slices along `axis` where `condition` holds.

    Without `size` the condition must be concrete (the result's shape depends on it);
    with `size` it may be traced (under jit or vmap): the kept slices come first, in
    order, then `fill_value`. As in JAX, a condition shorter than the axis ignores the
    slices past it, and one longer must be False past the axis."""
    util.check_arraylike("compress", condition, a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond = _creation.asarray(condition).astype(bool)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1D array")
    arr, axis = _flat_or_axis(a, axis)
    n = arr.shape[axis]
    k = min(cond.shape[0], n)
    extra, cond = lax.slice_in_dim(cond, k, cond.shape[0], 1, 0), lax.slice_in_dim(cond, 0, k, 1, 0)
    arr = lax.slice_in_dim(arr, 0, cond.shape[0], 1, axis)
    if size is None:
        flags = _ints(_shape.concatenate([cond, extra]).astype("int32"), "jnp.compress condition")
        if any(flags[cond.shape[0]:]):
            raise ValueError("condition contains entries that are out of bounds")
        return _take_static(arr, [i for i, c in enumerate(flags[:cond.shape[0]]) if c], axis)
    if not 0 <= size <= arr.shape[axis]:
        raise ValueError("size must be positive and not greater than the size of the array axis;"
                         f" got {size=} for a.shape[axis]={arr.shape[axis]}")
    mask = lax.broadcast_in_dim(cond, arr.shape, (axis,))
    arr = _ufuncs_math.where(mask, arr, _creation.asarray(fill_value, dtype=arr.dtype))
    from .sorting import argsort  # noqa: PLC0415  (sorting is a family loaded on first use)
    order = argsort(_ufuncs.logical_not(cond), stable=True)  # kept slices first, in order
    return lax.slice_in_dim(_indexing.take(arr, order, axis=axis), 0, size, 1, axis)


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """`jnp.extract`: the flattened elements of `arr` where `condition` holds."""
    return compress(_shape.ravel(condition), _shape.ravel(arr), size=size, fill_value=fill_value)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """`jnp.trim_zeros`: the array without its leading ('f') / trailing ('b') all-zero slices
    along `axis` (every axis when None); needs concrete values, as the shape depends on them."""
    a = util.ensure_array(filt)
    if a.ndim == 0:
        return a
    axes = range(a.ndim) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    nonzero = _ufuncs.not_equal(a, 0)
    out = a
    for ax in sorted(int(x) % a.ndim for x in axes):
        others = tuple(i for i in range(a.ndim) if i != ax)
        hit = _reductions.any(nonzero, axis=others) if others else nonzero
        nz = [i for i, v in enumerate(_ints(hit.astype("int32"), "jnp.trim_zeros")) if v]
        lo = (nz[0] if nz else 0) if "f" in trim.lower() else 0
        hi = (nz[-1] + 1 if nz else 0) if "b" in trim.lower() else a.shape[ax]
        if not nz and "f" in trim.lower():
            hi = 0
        out = lax.slice_in_dim(out, lo, max(hi, lo), 1, ax)
    return out


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
    """`jnp.place(..., inplace=False)`: `arr` with the (concrete) masked positions set to
    `vals`, cycled in order."""
    _no_inplace("place", inplace)
    a = util.ensure_array(arr)
    flat_mask = _shape.ravel(_creation.asarray(mask)).astype("int32")
    hits = [i for i, v in enumerate(_ints(flat_mask, "jnp.place mask")) if v]
    if not hits:
        return a
    v = _shape.resize(_shape.ravel(_creation.asarray(vals, dtype=a.dtype)), (len(hits),))
    return lax.reshape(_shape.ravel(a).at[_i32(hits)].set(v), a.shape)


# ---------------------------------------------------------------- functional puts
def _no_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
    """`jnp.put(..., inplace=False)`: the flattened `a` with `v` (repeated as needed)
    written at `ind`; out-of-bounds indices are dropped (mode=None), clipped or wrapped."""
    _no_inplace("put", inplace)
    arr = util.ensure_array(a)
    flat = _shape.ravel(arr)
    idx = _shape.ravel(_creation.asarray(ind))
    vals = (_shape.resize(_creation.asarray(v, dtype=arr.dtype), idx.shape) if idx.size
            else _creation.zeros((0,), arr.dtype))
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    if mode == "wrap":
        idx, mode = _ufuncs.mod(idx, flat.size), "clip"
    dn = gs.ScatterDimensionNumbers((), (0,), (0,))
    if mode != "clip":
        idx = normalize_index(idx.astype(dtypes.int32), flat.size)
    out = gs.scatter(flat, lax.reshape(idx, (idx.size, 1)), vals, dn, mode="clip" if mode == "clip" else None)
    return lax.reshape(out, arr.shape)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None, inplace: bool = True,
                   *, mode: str | None = None) -> Any:
    """`jnp.put_along_axis(..., inplace=False)`: the scatter counterpart of take_along_axis."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arrays"
                         "are immutable. Pass inplace=False to instead return an updated array.")
    a = util.ensure_array(arr)
    idx = util.ensure_array(indices)
    if axis is None:
        flat_values = _shape.ravel(_creation.asarray(values))
        return lax.reshape(put_along_axis(_shape.ravel(a), _shape.ravel(idx), flat_values, 0,
                                          inplace=False, mode=mode), a.shape)
    axis = canonical_axes((axis,), a.ndim)[0]
    shape = tuple(idx.shape[d] if d == axis else a.shape[d] for d in range(a.ndim))
    idx = _shape.broadcast_to(idx, shape)
    vals = _shape.broadcast_to(_creation.asarray(values, dtype=a.dtype), shape)
    idx = normalize_index(idx.astype(dtypes.int32), a.shape[axis])
    others = tuple(d for d in range(a.ndim) if d != axis)
    dn = gs.ScatterDimensionNumbers((), (axis,), (axis,), others, others)
    return gs.scatter(a, lax.reshape(idx, shape + (1,)), vals, dn, mode=mode)


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    """`jnp.fill_diagonal(..., inplace=False)`: `a` with its main diagonal set to `val`."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    arr = util.ensure_array(a)
    if arr.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if arr.ndim > 2 and len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(arr.shape)
    step = sum(prod(arr.shape[d + 1:]) for d in range(arr.ndim))
    vals = _shape.resize(_shape.ravel(_creation.asarray(val, dtype=arr.dtype)), (n,))
    flat = _shape.ravel(arr).at[_i32([i * step for i in range(n)])].set(vals)
    return lax.reshape(flat, arr.shape)


def choose(a: Any, choices: Sequence[Any], out: None = None, mode: str = "raise") -> Any:
    """`jnp.choose`: out[i] = choices[a[i]][i], all broadcast together."""
    util.check_arraylike("choose", a, *choices)
    arrs = _shape.broadcast_arrays(a, *choices)
    idx, cs = arrs[0], arrs[1:]
    n = len(cs)
    if mode == "wrap":
        idx = _ufuncs.mod(idx, n)
    elif mode == "raise":
        if not isinstance(idx, core.Tracer) and any(not 0 <= i < n for i in _ints(idx, "jnp.choose")):
            raise ValueError("invalid entry in choice array")
    elif mode != "clip":
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    stacked = _shape.stack(cs)
    got = _indexing.take_along_axis(stacked, lax.expand_dims(idx.astype(dtypes.int32), (0,)), 0, mode="clip")
    return lax.squeeze(got, (0,))


def block(arrays: Any) -> Any:
    """`jnp.block`: assemble an array from nested lists of blocks (innermost on the last axis)."""

    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) and x else (1 if isinstance(x, list) else 0)

    def max_ndim(x):
        return max((max_ndim(e) for e in x), default=0) if isinstance(x, list) else _shape.ndim(x)
    d = depth(arrays)
    nd = max(d, max_ndim(arrays))

    def build(x, level):
        if not isinstance(x, list):
            v = util.ensure_array(x)
            return lax.reshape(v, (1,) * (nd - v.ndim) + v.shape) if v.ndim < nd else v
        if not x:
            raise ValueError("Lists cannot be empty")
        return _shape.concatenate([build(e, level + 1) for e in x], axis=nd - d + level)
    if isinstance(arrays, tuple):
        raise TypeError("jnp.block does not allow tuples")
    return build(arrays, 0)


# ---------------------------------------------------------------- index generators
def ix_(*args: Any) -> tuple:
    """`jnp.ix_`: open-mesh index arrays from 1-D integer sequences."""
    out = []
    for k, a in enumerate(args):
        a = util.ensure_array(a)
        if a.ndim != 1:
            raise ValueError(f"Cross index must be 1 dimensional, got shape {a.shape}")
        if a.dtype.kind == "b":
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[k] = a.shape[0]
        out.append(lax.reshape(a, tuple(shape)))
    return tuple(out)


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
    """`jnp.indices`: grids of each dimension's index."""
    dims = tuple(operator.index(d) for d in dimensions)
    dtype = dtype or dtypes.int32
    grids = []
    for k, n in enumerate(dims):
        shape = [1] * len(dims)
        shape[k] = n
        g = lax.reshape(_creation.arange(n, dtype=dtype), tuple(shape))
        grids.append(g if sparse else _shape.broadcast_to(g, dims))
    if sparse:
        return tuple(grids)
    return _shape.stack(grids) if grids else _creation.zeros((0,), dtype)


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple:
    """`jnp.unravel_index`: coordinates of flat indices (clipped to [-size, size), then
    negatives counted from the end)."""
    shape = tuple(operator.index(d) for d in shape)
    size = prod(shape)
    idx = _creation.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    idx = _ufuncs.clip(idx, -size, max(size - 1, 0))
    idx = _ufuncs.where(idx < 0, idx + size, idx)
    out = []
    for d in range(len(shape)):
        stride = prod(shape[d + 1:])
        out.append((idx // stride) % shape[d] if shape[d] else idx * 0)
    return tuple(out)


def ravel_multi_index(multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise",
                      order: str = "C") -> Any:
    """`jnp.ravel_multi_index`: flat indices of coordinates ('raise' needs concrete input)."""
    dims = tuple(operator.index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    idxs = [_creation.asarray(i) for i in multi_index]
    if mode == "raise":
        for i, n in zip(idxs, dims):
            if any(not 0 <= v < n for v in _ints(i, "jnp.ravel_multi_index")):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        idxs = [_ufuncs.clip(i, 0, n - 1) for i, n in zip(idxs, dims)]
    elif mode == "wrap":
        idxs = [_ufuncs.mod(i, n) for i, n in zip(idxs, dims)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
    order_dims = range(len(dims)) if order == "C" else reversed(range(len(dims)))
    out, stride = None, 1
    for d in reversed(list(order_dims)):
        term = idxs[d] * stride
        out = term if out is None else out + term
        stride *= dims[d]
    return out


def diag_indices(n: int, ndim: int = 2) -> tuple:
    """`jnp.diag_indices`: index arrays of the main diagonal of an n^ndim array."""
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    return tuple(_i32(range(n)) for _ in range(ndim))


def diag_indices_from(arr: Any) -> tuple:
    a = util.ensure_array(arr)
    if a.ndim < 2 or len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(a.shape[0], a.ndim)


def _tri_indices(n: int, k: int, m: int | None, lower: bool) -> tuple:
    m = n if m is None else m
    pairs = [(i, j) for i in range(n) for j in range(m) if (j - i <= k if lower else j - i >= k)]
    return _i32([p[0] for p in pairs]), _i32([p[1] for p in pairs])


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """`jnp.tril_indices`: (row, col) indices of the lower triangle."""
    return _tri_indices(operator.index(n), operator.index(k), m, True)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """`jnp.triu_indices`: (row, col) indices of the upper triangle."""
    return _tri_indices(operator.index(n), operator.index(k), m, False)


def tril_indices_from(arr: Any, k: int = 0) -> tuple:
    s = core.get_aval(arr).shape
    if len(s) != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(s[0], k, s[1])


def triu_indices_from(arr: Any, k: int = 0) -> tuple:
    s = core.get_aval(arr).shape
    if len(s) != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(s[0], k, s[1])


def mask_indices(n: int, mask_func: Any, k: int = 0, *, size: int | None = None) -> tuple:
    """`jnp.mask_indices`: indices where `mask_func(ones((n, n)), k)` is non-zero."""
    return _indexing.nonzero(mask_func(_creation.ones((n, n), dtype=dtypes.int32), k), size=size)


# ---------------------------------------------------------------- index expression objects
def _range_of(s: slice) -> Any:
    """A slice as numpy's grid/concatenation helpers read it: arange, or linspace for
    a complex (imaginary) step giving the number of points."""
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        return _creation.linspace(start, s.stop, int(abs(step)))
    return _creation.arange(start, s.stop, step)


class _Grid:
    """`jnp.mgrid` (dense) / `jnp.ogrid` (open, broadcastable) from slices."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return _range_of(key)
        axes = [_range_of(k) for k in key]
        dt = dtypes.result_type(*[a.dtype for a in axes])
        axes = [a.astype(dt) for a in axes]
        nd = len(axes)
        shaped = []
        for i, a in enumerate(axes):
            shape = [1] * nd
            shape[i] = a.shape[0]
            shaped.append(lax.reshape(a, tuple(shape)))
        if self.sparse:
            return shaped
        full = tuple(a.shape[0] for a in axes)
        return _shape.stack([_shape.broadcast_to(a, full) for a in shaped])


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


class _Concatenator:
    """`jnp.r_` / `jnp.c_`: concatenate slices (ranges), scalars and arrays; a leading
    "axis[,ndmin[,trans1d]]" string sets how items are upgraded and joined."""

    def __init__(self, axis: int, ndmin: int, trans1d: int):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key: Any) -> Any:
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if key and isinstance(key[0], str):
            spec = [int(v) for v in key[0].split(",")]
            axis, ndmin, trans1d = spec + [axis, ndmin, trans1d][len(spec):]
            key = key[1:]
        items = []
        for item in key:
            a = _range_of(item) if isinstance(item, slice) else _creation.asarray(item)
            items.append(self._upgrade(_shape.atleast_1d(a), ndmin, trans1d))
        items = util.promote_dtypes(*items) if len(items) > 1 else items
        return _shape.concatenate(items, axis=axis)

    @staticmethod
    def _upgrade(a: Any, ndmin: int, trans1d: int) -> Any:
        k = a.ndim
        if k >= ndmin:
            return a
        a = lax.reshape(a, (1,) * (ndmin - k) + a.shape)
        if trans1d == -1:
            return a
        k2 = ndmin - k
        k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
        axes = list(range(ndmin))
        return lax.transpose(a, axes[:k1] + axes[k2:] + axes[k1:k2])


r_ = _Concatenator(0, 1, -1)
c_ = _Concatenator(-1, 2, 0)


class _IndexExpression:
    """`jnp.s_` / `jnp.index_exp`: build index tuples with slice syntax."""

    def __init__(self, maketuple: bool):
        self.maketuple = maketuple

    def __getitem__(self, item: Any) -> Any:
        return (item,) if self.maketuple and not isinstance(item, tuple) else item


s_ = _IndexExpression(maketuple=False)
index_exp = _IndexExpression(maketuple=True)
