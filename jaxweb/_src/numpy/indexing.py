"""NumPy indexing: `x[idx]`, `x.at[idx].set/add/...`, take, take_along_axis, nonzero.

`getitem` parses an index into entries (one per indexed dimension): static ints
and slices become free views (lax.slice/rev/squeeze), integer arrays become one
`gather`, placed where numpy puts advanced-index dimensions. Boolean masks must be
concrete: they become integer arrays. Out-of-bounds integers are clamped (JAX's
default), or filled with `mode='fill'`.

`.at[idx]` updates through static indices only (ints, slices, None, Ellipsis) place
the values with the adjoint movement of the slicing (a view) and select: O(size).
Integer arrays on the leading dims (embedding-style) are one windowed scatter.
Other updates index a flat iota of the operand's positions with the getitem
machinery (fill value -1 marks out-of-bounds positions), then scatter the values
into the flattened operand: every index form numpy allows works for updates too,
and out-of-bounds updates are dropped (JAX's default). Helpers such as insert,
delete and put live in index_tricks.py and are re-exported here.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

from .. import config, core, dtypes
from ..array import Array
from ..compiler.shapetracker import prod
from ..lax import elementwise as lax_ew, gather_scatter as gs, structural as lax
from ..lax.indexing import normalize_index
from . import util, creation as _creation, reductions as _reductions, shape as _shape, ufuncs as _ufuncs
from .index_tricks import *  # noqa: F401,F403  (re-exported jnp names)
from .index_tricks import __all__ as _tricks_all
from ..lax.base import canonical_axes

__all__ = ["take", "take_along_axis", "nonzero", "argwhere", "flatnonzero"] + _tricks_all


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask index was traced: its result shape would depend on values."""


# ---------------------------------------------------------------- parsing
class _Adv:
    """An advanced (integer array) index entry, possibly from a static int."""

    __slots__ = ("arr",)

    def __init__(self, arr: Any):
        self.arr = arr


def _is_int_scalar(i: Any) -> bool:
    return not isinstance(i, (bool, Array, core.Tracer)) and hasattr(i, "__index__") and \
        getattr(i, "ndim", 0) == 0 and getattr(getattr(i, "dtype", None), "kind", "i") in "iu"


def _check_entry(i: Any, top_level: bool = False) -> None:
    """Reject non-integer indexers; a bare list is an error only as the whole index
    (inside a tuple, JAX treats a list as an index array)."""
    if isinstance(i, str):
        raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
    if isinstance(i, float) or (hasattr(i, "dtype") and dtypes.dtype(i.dtype).kind not in "iub"):
        name = "float64" if isinstance(i, float) else dtypes.dtype(i.dtype).name
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {name}")
    if top_level and isinstance(i, (list, tuple)):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        "use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")


def _concrete_mask(m: Any) -> list:
    if isinstance(m, core.Tracer) and m.to_concrete_value() is None:
        raise NonConcreteBooleanIndexError(f"Array boolean indices must be concrete; got {m.aval.str_short()}")
    return m.to_concrete_value().tolist() if isinstance(m, core.Tracer) else m.tolist()


def _mask_to_arrays(mask: Any, pos: int, shape: tuple[int, ...]) -> list:
    """Integer index arrays (one per mask dim) equivalent to a concrete boolean mask."""
    mshape = tuple(mask.shape)
    if mshape != shape[pos:pos + len(mshape)]:
        raise IndexError(f"boolean index did not match shape of indexed array in index {pos}: "
                         f"got {mshape}, expected {list(shape[pos:pos + len(mshape)])}")
    flat = _flatten(_concrete_mask(mask))
    hits = [k for k, v in enumerate(flat) if v]
    cols = [[] for _ in mshape]
    for k in hits:
        for d in reversed(range(len(mshape))):
            cols[d].append(k % mshape[d])
            k //= mshape[d]
    return [_Adv(_creation.asarray(c if c else [], dtype=dtypes.int32)) for c in cols]


def _flatten(v: Any) -> list:
    if isinstance(v, list):
        return [e for x in v for e in _flatten(x)]
    return [v]


def _parse(x_shape: tuple[int, ...], idx: Any) -> tuple[list, tuple[int, ...], list[int]]:
    """Entries (slice / int / _Adv, one per dim of the expanded operand), the operand
    shape with size-1 dims inserted for None/True, and each entry's position in the
    index tuple (numpy decides where advanced dims go by those positions: an Ellipsis
    separates advanced indices even when it expands to no dimension)."""
    if not isinstance(idx, tuple):
        if isinstance(idx, list):
            _check_entry(idx, top_level=True)
        idx = (idx,)
    entries: list = []
    for i in idx:
        if i is None or i is Ellipsis or isinstance(i, slice):
            entries.append(i)
        elif isinstance(i, bool) or _is_bool_scalar(i):
            entries.append(None if bool(_concrete_mask(i) if hasattr(i, "tolist") else i) else "empty")
        elif _is_int_scalar(i):
            entries.append(operator.index(i))
        else:
            _check_entry(i)
            if not isinstance(i, (Array, core.Tracer)):
                if hasattr(i, "__jax_array__"):
                    i = i.__jax_array__()
                i = _creation.asarray(i)
            entries.append(i)
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(e.ndim if _is_bool_array(e) else 1 for e in entries
                   if e is not None and e is not Ellipsis and not (isinstance(e, str)))
    if consumed > len(x_shape):
        raise IndexError(f"Too many indices: array is {len(x_shape)}-dimensional, but {consumed} were indexed")
    out, shape, pos, dim = [], [], [], 0
    for k, e in enumerate(entries):
        if e is Ellipsis:
            n = len(x_shape) - consumed
            out.extend([slice(None)] * n)
            shape.extend(x_shape[dim:dim + n])
            dim += n
        elif e is None or isinstance(e, str):
            out.append(slice(None) if e is None else slice(0, 0))
            shape.append(1)
        elif _is_bool_array(e):
            out.extend(_mask_to_arrays(e, dim, x_shape))
            shape.extend(x_shape[dim:dim + e.ndim])
            dim += e.ndim
        else:
            out.append(e if isinstance(e, (int, slice)) else _Adv(e))
            shape.append(x_shape[dim])
            dim += 1
        pos.extend([k] * (len(out) - len(pos)))
    out.extend([slice(None)] * (len(x_shape) - dim))
    shape.extend(x_shape[dim:])
    pos.extend([len(entries)] * (len(out) - len(pos)))
    return out, tuple(shape), pos


def _is_bool_scalar(i: Any) -> bool:
    return getattr(i, "ndim", None) == 0 and dtypes.dtype(i.dtype).kind == "b"


def _is_bool_array(e: Any) -> bool:
    return isinstance(e, (Array, core.Tracer)) and e.dtype.kind == "b"


# ---------------------------------------------------------------- getitem
def _static_int(i: int, n: int, axis: int) -> int:
    if n == 0:
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")
    i = i + n if i < 0 else i
    return min(max(i, 0), n - 1)


def _apply_slices(x: Any, entries: list) -> tuple[Any, list]:
    """Apply every slice entry as a view; int entries are kept (size-1 slices if static)."""
    start, limit, step, flips = [], [], [], []
    for d, (e, n) in enumerate(zip(entries, x.shape)):
        if isinstance(e, slice):
            lo, hi, st = e.indices(n)
            if st > 0:
                m = max(0, -(-(hi - lo) // st))
                start.append(lo), limit.append(lo + (m - 1) * st + 1 if m else lo), step.append(st)
            else:
                m = max(0, -(-(lo - hi) // -st))
                first = lo - (m - 1) * -st if m else 0
                start.append(first), limit.append(lo + 1 if m else 0), step.append(-st)
                flips.append(d)
        else:
            start.append(0), limit.append(n), step.append(1)
    x = lax.slice(x, start, limit, step)
    return lax.rev(x, tuple(flips)), entries


def _normalize_index_array(i: Any, n: int) -> Any:
    """Negative indices count from the end (once); the dtype becomes int32 (or int64)."""
    i = util.ensure_array(i)
    dt = i.dtype
    target = dtypes.int64 if dt.itemsize == 8 and dtypes.int64 is dtypes.canonicalize_dtype(dtypes.int64) else dtypes.int32
    if dt.kind == "u":
        return lax_ew.convert_element_type(i, target)
    return normalize_index(lax_ew.convert_element_type(i, target), n)


def getitem(x: Any, idx: Any, mode: Any = None, fill_value: Any = None,
            indices_are_sorted: bool = False, unique_indices: bool = False) -> Any:
    """`x[idx]` with numpy's basic and advanced indexing rules."""
    x = util.ensure_array(x)
    fill = gs.GatherScatterMode.from_any(mode) is gs.GatherScatterMode.FILL_OR_DROP if mode is not None else False
    entries, shape, pos = _parse(x.shape, idx)
    if shape != x.shape:
        x = lax.reshape(x, shape)
    has_adv = any(isinstance(e, _Adv) for e in entries)
    in_bounds = all(-n <= e < n for e, n in zip(entries, x.shape) if isinstance(e, int))
    if not has_adv and (not fill or in_bounds):
        return _basic(x, entries)
    entries = [(_Adv(_const_int(e)) if isinstance(e, int) else e) for e in entries]
    x, entries = _apply_slices(x, entries)
    if not any(isinstance(e, _Adv) for e in entries):
        return x
    return _advanced(x, entries, pos, mode, fill_value, indices_are_sorted, unique_indices)


def _const_int(i: int) -> Any:
    return _creation.asarray(i, dtype=dtypes.int32)


def _basic(x: Any, entries: list) -> Any:
    ints = [d for d, e in enumerate(entries) if isinstance(e, int)]
    entries = [slice(_static_int(e, x.shape[d], d), _static_int(e, x.shape[d], d) + 1) if isinstance(e, int) else e
               for d, e in enumerate(entries)]
    x, _ = _apply_slices(x, entries)
    return lax.squeeze(x, ints) if ints else x


def _index_vectors(shape: tuple[int, ...], entries: list, adv: list[int]) -> tuple[Any, tuple[int, ...]]:
    """The advanced index arrays (negatives normalized) broadcast together and stacked
    into index vectors along a new last axis, and their broadcast shape."""
    arrays = [_normalize_index_array(entries[d].arr, shape[d]) for d in adv]
    bshape = util.broadcast_shapes(*[a.shape for a in arrays], name="indexing")
    idt = dtypes.result_type(*[a.dtype for a in arrays])
    cols = [lax.broadcast_in_dim(lax_ew.convert_element_type(a, idt), bshape + (1,),
                                 tuple(range(len(bshape) - a.ndim, len(bshape))))
            for a in arrays]
    return (lax.concatenate(cols, len(bshape)) if len(cols) > 1 else cols[0]), bshape


def _advanced(x: Any, entries: list, pos: list[int], mode: Any, fill_value: Any, sorted_: bool,
              unique: bool) -> Any:
    adv = [d for d, e in enumerate(entries) if isinstance(e, _Adv)]
    rest = [d for d in range(x.ndim) if d not in adv]
    indices, bshape = _index_vectors(x.shape, entries, adv)
    xt = lax.transpose(x, adv + rest)
    k, nb = len(adv), len(bshape)
    dn = gs.GatherDimensionNumbers(offset_dims=tuple(range(nb, nb + len(rest))),
                                   collapsed_slice_dims=tuple(range(k)), start_index_map=tuple(range(k)))
    out = gs.gather(xt, indices, dn, (1,) * k + tuple(x.shape[d] for d in rest),
                    indices_are_sorted=sorted_, unique_indices=unique, mode=mode, fill_value=fill_value)
    tuple_pos = sorted({pos[d] for d in adv})
    adjacent = tuple_pos == list(range(tuple_pos[0], tuple_pos[0] + len(tuple_pos)))
    if not adjacent or adv[0] == 0:
        return out
    at = adv[0]  # the number of sliced dims before the advanced block
    perm = list(range(nb, nb + at)) + list(range(nb)) + list(range(nb + at, out.ndim))
    return lax.transpose(out, perm)


# ---------------------------------------------------------------- .at[] updates
def _values_for(x: Any, target_shape: tuple[int, ...], values: Any) -> Any:
    v = lax_ew.convert_element_type(_creation.asarray(values), x.dtype) if not core.is_python_scalar(values) \
        else _creation.asarray(values, dtype=x.dtype)
    if v.ndim > len(target_shape):
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={v.shape} "
                         f"shape={target_shape}")
    return util.broadcast_to_shape(v, target_shape) if v.shape != target_shape else v


def _positions(x: Any, idx: Any, mode: Any) -> Any:
    """Flat operand positions addressed by `idx` (-1 where out of bounds, unless clipping)."""
    grid = gs.flat_iota(x.shape)
    clip = gs.GatherScatterMode.from_any(mode) is gs.GatherScatterMode.CLIP
    return getitem(grid, idx, mode="clip" if clip else "fill", fill_value=None if clip else -1)


# How each scatter combines with the old value on the static (basic-index) path:
# a lax function name, per dtype kind ("b" for booleans); None replaces.
_BASIC_COMBINE = {gs.scatter: (None, None), gs.scatter_add: ("add", "bitwise_or"),
                  gs.scatter_sub: ("sub", None), gs.scatter_mul: ("mul", "bitwise_and"),
                  gs.scatter_min: ("min", "bitwise_and"), gs.scatter_max: ("max", "bitwise_or")}


def _basic_update(x: Any, idx: Any, values: Any, prim: Callable) -> Any | None:
    """An update through static ints/slices/None/Ellipsis only: the values are placed by
    the adjoint movement of the slicing (pad with interior for steps, rev for negative
    steps: a free view), then one select. None if the index needs the scatter path."""
    entries, shape, _ = _parse(x.shape, idx)
    combine = _BASIC_COMBINE.get(prim)
    if combine is None or x.dtype.kind == "b" and prim is gs.scatter_sub:
        return None
    if any(isinstance(e, _Adv) or isinstance(e, int) and not -n <= e < n for e, n in zip(entries, shape)):
        return None
    xe = lax.reshape(x, shape) if shape != x.shape else x
    vals = _values_for(x, _basic(xe, entries).shape, values)
    config, flips, kept = [], [], []
    for d, (e, n) in enumerate(zip(entries, shape)):
        if isinstance(e, int):
            i = e % n
            config.append((i, n - i - 1, 0))
            kept.append(1)
            continue
        lo, hi, st = e.indices(n)
        m = len(range(lo, hi, st))
        if m == 0:
            return x
        first = lo if st > 0 else lo + (m - 1) * st
        if st < 0:
            flips.append(d)
        config.append((first, n - first - (m - 1) * abs(st) - 1, abs(st) - 1))
        kept.append(m)
    vals = lax.rev(lax.reshape(vals, tuple(kept)), tuple(flips))
    zero = lax.broadcast_in_dim(lax_ew.convert_element_type(0, x.dtype), (), ())
    placed = lax.pad(vals, zero, config)
    mask = lax.pad(lax.broadcast_in_dim(True, tuple(kept), ()), False, config)
    name = combine[1] if x.dtype.kind == "b" else combine[0]
    new = placed if name is None else getattr(lax_ew, name)(xe, placed)
    out = lax_ew.select_n(mask, xe, new)
    return lax.reshape(out, x.shape) if shape != x.shape else out


def _scatter_update(x: Any, idx: Any, values: Any, prim: Callable, mode: Any,
                    indices_are_sorted: bool, unique_indices: bool) -> Any:
    """JAX's typing of `x.at[idx].op(y)`: a Python int in x's integer range takes x's dtype;
    otherwise a y that x's dtype cannot hold safely warns (FutureWarning) and the update
    runs in the promoted dtype, the result cast back to x's (3 .mul(1.5) gives 4)."""
    x = util.ensure_array(x)
    xa = core.get_aval(x)
    if type(values) is int and xa.dtype.kind in "iu" and \
            dtypes.iinfo(xa.dtype).min <= values <= dtypes.iinfo(xa.dtype).max:
        values = _creation.asarray(values, dtype=xa.dtype)
    else:
        values = util.ensure_array(values)
    va = core.get_aval(values)
    if va.dtype == xa.dtype:
        return _scatter_same(x, idx, values, prim, mode, indices_are_sorted, unique_indices)
    joined, weak = dtypes.result_type(values, x, return_weak_type_flag=True)
    if joined != xa.dtype:
        import warnings
        warnings.warn("scatter inputs have incompatible types: cannot safely cast value from "
                      f"dtype={va.dtype.name} to dtype={xa.dtype.name} with jax_numpy_dtype_promotion="
                      f"{config.read('jax_numpy_dtype_promotion')}. In future JAX releases this will "
                      "result in an error.", FutureWarning, stacklevel=4)
    xp, vp = (lax_ew.convert_element_type(v, joined, weak) for v in (x, values))
    out = _scatter_same(xp, idx, vp, prim, mode, indices_are_sorted, unique_indices)
    return lax_ew.convert_element_type(out, xa.dtype, xa.weak_type)


def _scatter_same(x: Any, idx: Any, values: Any, prim: Callable, mode: Any,
                  indices_are_sorted: bool, unique_indices: bool) -> Any:
    basic = _basic_update(x, idx, values, prim)
    if basic is not None:
        return basic
    scatter_mode = gs.GatherScatterMode.CLIP if mode == "clip" else gs.GatherScatterMode.FILL_OR_DROP
    kw = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=scatter_mode)
    front = _front_advanced_update(x, idx, values, prim, kw)
    if front is not None:
        return front
    pos = _positions(x, idx, mode)
    vals = _values_for(x, pos.shape, values)
    m = prod(pos.shape)
    flat_x = lax.reshape(x, (prod(x.shape),))
    dn = gs.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    out = prim(flat_x, lax.reshape(pos, (m, 1)), lax.reshape(vals, (m,)), dn, **kw)
    return lax.reshape(out, x.shape)


def _front_advanced_update(x: Any, idx: Any, values: Any, prim: Callable, kw: dict) -> Any | None:
    """`x.at[i, j, ...]` with integer arrays/ints on the leading dims and whole slices
    after them (embedding-style updates): one windowed scatter whose reduction runs
    over the index vectors only. None for other index forms."""
    entries, shape, _ = _parse(x.shape, idx)
    k = next((d for d, e in enumerate(entries) if not isinstance(e, (_Adv, int))), len(entries))
    if shape != x.shape or k == 0 or not any(isinstance(e, _Adv) for e in entries[:k]) or \
            any(e != slice(None) for e in entries[k:]):
        return None
    entries = [_Adv(_const_int(e)) if isinstance(e, int) else e for e in entries]
    indices, bshape = _index_vectors(x.shape, entries, list(range(k)))
    nb, window = len(bshape), x.shape[k:]
    vals = _values_for(x, bshape + window, values)
    dn = gs.ScatterDimensionNumbers(update_window_dims=tuple(range(nb, nb + len(window))),
                                    inserted_window_dims=tuple(range(k)),
                                    scatter_dims_to_operand_dims=tuple(range(k)))
    return prim(x, indices, vals, dn, **kw)


class _IndexUpdateRef:
    """`x.at[idx]`: functional updates of the indexed elements."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any):
        self.array, self.index = array, index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: Any = None, fill_value: Any = None, out_sharding: Any = None) -> Any:
        return getitem(self.array, self.index, mode=mode, fill_value=fill_value,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)

    def _update(self, values, prim, indices_are_sorted=False, unique_indices=False, mode=None):
        return _scatter_update(self.array, self.index, values, prim, mode, indices_are_sorted, unique_indices)

    def set(self, values: Any, **kw: Any) -> Any:
        return self._update(values, gs.scatter, **_kw(kw))

    def add(self, values: Any, **kw: Any) -> Any:
        return self._update(values, gs.scatter_add, **_kw(kw))

    def subtract(self, values: Any, **kw: Any) -> Any:
        return self._update(values, gs.scatter_sub, **_kw(kw))

    def multiply(self, values: Any, **kw: Any) -> Any:
        return self._update(values, gs.scatter_mul, **_kw(kw))

    mul = multiply

    def min(self, values: Any, **kw: Any) -> Any:
        return self._update(values, gs.scatter_min, **_kw(kw))

    def max(self, values: Any, **kw: Any) -> Any:
        return self._update(values, gs.scatter_max, **_kw(kw))

    def _ones_scaled(self, values: Any, kw: dict) -> Any:
        ones = _creation.ones_like(self.array)
        return _scatter_update(ones, self.index, values, gs.scatter_mul, kw.get("mode"),
                               kw.get("indices_are_sorted", False), kw.get("unique_indices", False))

    def divide(self, values: Any, **kw: Any) -> Any:
        return _ufuncs.divide(self.array, self._ones_scaled(values, _kw(kw)))

    def power(self, values: Any, **kw: Any) -> Any:
        return _ufuncs.power(self.array, self._ones_scaled(values, _kw(kw)))

    def apply(self, func: Callable, **kw: Any) -> Any:
        kw = _kw(kw)
        x = util.ensure_array(self.array)
        hit = _scatter_update(lax.broadcast_in_dim(False, x.shape, ()), self.index, True, gs.scatter,
                              kw.get("mode"), False, False)
        return _ufuncs.where(hit, lax_ew.convert_element_type(func(x), x.dtype), x)


def _kw(kw: dict) -> dict:
    kw = dict(kw)
    kw.pop("out_sharding", None)
    allowed = {"indices_are_sorted", "unique_indices", "mode"}
    bad = set(kw) - allowed
    if bad:
        raise TypeError(f"unexpected keyword arguments: {sorted(bad)}")
    return kw


class _IndexUpdateHelper:
    """The `.at` property: `x.at[idx]` gives an `_IndexUpdateRef`."""

    __slots__ = ("array",)

    def __init__(self, array: Any):
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


# ---------------------------------------------------------------- take
_TAKE_MODES = ("fill", "clip", "wrap", "promise_in_bounds", "drop")


def take(a: Any, indices: Any, axis: int | None = None, out: None = None, mode: str | None = None,
         unique_indices: bool = False, indices_are_sorted: bool = False, fill_value: Any = None) -> Any:
    """`jnp.take`: elements of `a` at `indices` along `axis` (flattened if None).
    Out-of-bounds indices give `fill_value` (NaN for floats) unless mode='clip'/'wrap'."""
    util.check_arraylike("take", a, indices)
    a = util.ensure_array(a)
    idx = util.ensure_array(indices)
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if mode is not None and mode not in _TAKE_MODES:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    if idx.dtype.kind not in "iu":
        raise ValueError("indices must have an integer type")
    if axis is None:
        a, axis = lax.reshape(a, (a.size,)), 0
    axis = util_axis(axis, a.ndim)
    n = a.shape[axis]
    if mode == "wrap":
        idx = _ufuncs.mod(idx, n) if n else idx
        mode = "clip"
    if n == 0 and idx.size:
        raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    idx = idx if mode == "clip" else _normalize_index_array(idx, n)  # clip: -1 clamps to 0, as in JAX
    out_nd = a.ndim - 1 + idx.ndim
    dn = gs.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + idx.ndim, out_nd)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    sizes = tuple(1 if d == axis else s for d, s in enumerate(a.shape))
    return gs.gather(a, lax.reshape(idx, idx.shape + (1,)), dn, sizes, mode=mode or "fill",
                     fill_value=fill_value, unique_indices=unique_indices, indices_are_sorted=indices_are_sorted)


def util_axis(axis: int, ndim: int) -> int:
    return canonical_axes((operator.index(axis),), ndim)[0]


def take_along_axis(arr: Any, indices: Any, axis: int | None, mode: str | None = None,
                    fill_value: Any = None) -> Any:
    """`jnp.take_along_axis`: out[..., j, ...] = arr[..., indices[..., j, ...], ...]
    (other dims broadcast); out-of-bounds indices fill by default."""
    util.check_arraylike("take_along_axis", arr, indices)
    a = util.ensure_array(arr)
    idx = util.ensure_array(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {idx.dtype.name}")
    if axis is None:
        a, axis = lax.reshape(a, (a.size,)), 0
        idx = lax.reshape(idx, (idx.size,))
    if a.ndim != idx.ndim:
        raise ValueError(f"indices and arr must have the same number of dimensions; {idx.ndim} vs. {a.ndim}")
    axis = util_axis(axis, a.ndim)
    others = [d for d in range(a.ndim) if d != axis]
    common = [max(a.shape[d], idx.shape[d]) if 1 in (a.shape[d], idx.shape[d]) else a.shape[d] for d in others]
    for d, c in zip(others, common):
        if a.shape[d] not in (1, c) or idx.shape[d] not in (1, c):
            raise ValueError(f"operands could not be broadcast together: arr shape {a.shape}, "
                             f"indices shape {idx.shape}")
    a_shape, i_shape = list(a.shape), list(idx.shape)
    for d, c in zip(others, common):
        a_shape[d], i_shape[d] = c, c
    a = util.broadcast_to_shape(a, tuple(a_shape))
    idx = _normalize_index_array(util.broadcast_to_shape(idx, tuple(i_shape)), a.shape[axis])
    dn = gs.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
                                   operand_batching_dims=tuple(others), start_indices_batching_dims=tuple(others))
    return gs.gather(a, lax.reshape(idx, idx.shape + (1,)), dn, (1,) * a.ndim, mode=mode or "fill",
                     fill_value=fill_value)


# ---------------------------------------------------------------- nonzero
def _concrete_flat(a: Any, what: str) -> list:
    if isinstance(a, core.Tracer):
        v = a.to_concrete_value()
        if v is None:
            raise core.ConcretizationTypeError(
                core.concretization_message(a, what) +
                f"\nThe size argument of jnp.{what} must be statically specified to use jnp.{what} "
                "within JAX transformations.")
        a = v
    return _flatten(util.ensure_array(a).tolist())


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple:
    """`jnp.nonzero`: index arrays of the non-zero elements (needs a concrete input,
    or `size` under transformations)."""
    util.check_arraylike("nonzero", a)
    a = util.ensure_array(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead.")
    if size is not None and isinstance(a, core.Tracer) and a.to_concrete_value() is None:
        return _nonzero_traced(a, size, fill_value)
    flat = _concrete_flat(a, "nonzero")
    hits = [k for k, v in enumerate(flat) if v]
    if size is not None:
        hits = hits[:size]
    cols = [[] for _ in a.shape]
    for k in hits:
        for d in reversed(range(a.ndim)):
            cols[d].append(k % a.shape[d])
            k //= a.shape[d]
    out = []
    for d, c in enumerate(cols):
        if size is not None and len(c) < size:
            fv = fill_value[d] if isinstance(fill_value, (tuple, list)) else (0 if fill_value is None else fill_value)
            c = c + [fv] * (size - len(c))
        out.append(_creation.asarray(c, dtype=dtypes.int32))
    return tuple(out)


def _nonzero_traced(a: Any, size: int, fill_value: Any) -> tuple:
    """Traced input with a static size: rank each non-zero by a cumulative sum, then
    scatter the flat positions of the first `size` of them."""
    flat = lax.reshape(a, (a.size,))
    mask = _ufuncs.not_equal(flat, 0) if flat.dtype.kind != "b" else flat
    rank = _reductions.cumsum(lax_ew.convert_element_type(mask, dtypes.int32)) - 1
    target = _ufuncs.where(mask, rank, size)
    positions = _creation.asarray(list(range(a.size)), dtype=dtypes.int32)
    dn = gs.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    found = gs.scatter(_creation.asarray([-1] * size, dtype=dtypes.int32), lax.reshape(target, (a.size, 1)),
                       positions, dn)
    valid = _ufuncs.greater_equal(found, 0)
    out, rest = [], _ufuncs.maximum(found, 0)
    strides = [prod(a.shape[d + 1:]) for d in range(a.ndim)]
    for d in range(a.ndim):
        coord = (rest // strides[d]) % a.shape[d]
        fv = fill_value[d] if isinstance(fill_value, (tuple, list)) else (0 if fill_value is None else fill_value)
        out.append(_ufuncs.where(valid, coord, fv))
    return tuple(out)


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """`jnp.flatnonzero`: flat indices of the non-zero elements."""
    return nonzero(lax.reshape(util.ensure_array(a), (util.ensure_array(a).size,)), size=size,
                   fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """`jnp.argwhere`: one row of indices per non-zero element."""
    a = util.ensure_array(a)
    if a.ndim == 0:  # one (empty) row when the scalar is nonzero, as numpy and JAX
        (col,) = nonzero(lax.reshape(a, (1,)), size=size, fill_value=fill_value)
        return lax.broadcast_in_dim(col[:0], (col.shape[0], 0), (1,))
    cols = nonzero(a, size=size, fill_value=fill_value)
    return _shape.stack(cols, axis=1)

