"""Set operations over sorting: unique, isin, union1d, intersect1d, setdiff1d, setxor1d.

Results have data-dependent sizes, so (as in JAX) they need concrete inputs unless
`size=` is given; then results are truncated or padded with `fill_value` (by
default the smallest unique value). Everything is 1-d (flattened), like numpy
without `axis`. The one primitive idea: `_compact` keeps the elements of a mask,
in order, by locating the j-th kept element with a searchsorted over the running
count of kept elements.
"""
from __future__ import annotations

__all__ = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all", "isin",
           "union1d", "intersect1d", "setdiff1d", "setxor1d"]

from typing import Any, NamedTuple

from .. import core, dtypes
from ..lax import base as lax_base
from ..lax import cumulative as lax_cum
from ..lax import sorting as lax_sort
from .util import check_arraylike, ensure_array
from ..lax import elementwise as lax_ew
from ..lax import structural as lax_st
from . import reductions as _reductions
from . import shape as _shape
from . import ufuncs as _ufuncs

_I32 = dtypes.int32


def _flat(x: Any) -> Any:
    x = ensure_array(x)
    return lax_st.reshape(x, (core.get_aval(x).size,))


def _count(mask: Any, size: int | None, what: str) -> int:
    if size is not None:
        return int(size)
    total = _reductions.sum(mask, dtype=_I32)
    return int(core.concrete_or_error(total, f"the size of {what} (pass size= to use it under jit)"))


def _compact(mask: Any, size: int | None, what: str) -> tuple[Any, Any, int]:
    """(positions of the first `k` True entries of 1-d `mask`, validity of each, k)."""
    n = core.get_aval(mask).shape[0]
    k = _count(mask, size, what)
    ids = _ufuncs.subtract(lax_cum.cumsum(lax_ew.convert_element_type(mask, _I32), 0), lax_base.constant((), 1, _I32))
    j = lax_ew.broadcasted_iota(_I32, (k,), 0)
    pos = _search(ids, j, "left")
    valid = _ufuncs.less(pos, lax_base.constant((), n, _I32))
    return _ufuncs.clip(pos, 0, max(n - 1, 0)), valid, k


def _search(sorted_ids: Any, values: Any, side: str) -> Any:
    from .sorting import searchsorted
    return lax_ew.convert_element_type(searchsorted(sorted_ids, values, side=side), _I32)


def _take(x: Any, pos: Any) -> Any:
    return lax_sort.gather_along(x, pos, 0)


def _fill(values: Any, valid: Any, fill_value: Any, default: Any) -> Any:
    dt = core.get_aval(values).dtype
    fill = default if fill_value is None else lax_st.full((), fill_value, dt)
    return _ufuncs.where(valid, values, fill)


class _Unique(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueAllResult(NamedTuple):
    """What `unique_all` returns, under JAX's name and fields."""
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    """What `unique_counts` returns: `.values`, `.counts`."""
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    """What `unique_inverse` returns: `.values`, `.inverse_indices`."""
    values: Any
    inverse_indices: Any


def _unique_parts(ar: Any, equal_nan: bool, size: int | None, fill_value: Any, axis: int | None = None) -> _Unique:
    """Sort the slices along `axis` (elements if None) lexicographically, mark the first
    of each run of equal ones, and compact."""
    x = ensure_array(ar)
    shape = core.get_aval(x).shape
    if axis is None:
        rows = _flat(x)
        keys = [rows]
    else:
        (axis,) = lax_base.canonical_axes([axis], len(shape))
        moved = lax_st.transpose(x, (axis,) + tuple(i for i in range(len(shape)) if i != axis))
        rest = core.get_aval(moved).shape[1:]
        rows = lax_st.reshape(moved, (shape[axis], core.get_aval(moved).size // max(shape[axis], 1)))
        keys = [lax_st.index_in_dim(rows, c, 1, keepdims=False) for c in range(core.get_aval(rows).shape[1])]
    n = core.get_aval(rows).shape[0]
    iota = lax_ew.broadcasted_iota(_I32, (n,), 0)
    if n == 0 or not keys:
        empty = lax_base.constant((0,), 0, _I32)
        return _Unique(rows if axis is None else x, empty, empty if axis is not None else lax_st.reshape(empty, shape),
                       empty)
    *sorted_keys, perm = lax_sort.sort(tuple(keys) + (iota,), dimension=0, num_keys=len(keys))
    differs = None
    for s in sorted_keys:
        d = _ufuncs.not_equal(s[1:], s[:-1])
        if equal_nan and core.get_aval(s).dtype.kind == "f":
            both_nan = _ufuncs.logical_and(_ufuncs.isnan(s[1:]), _ufuncs.isnan(s[:-1]))
            d = _ufuncs.logical_and(d, _ufuncs.logical_not(both_nan))
        differs = d if differs is None else _ufuncs.logical_or(differs, d)
    first = _shape.concatenate([lax_base.constant((1,), True, dtypes.bool_), differs])
    pos, valid, k = _compact(first, size, "unique")
    # padding entries (size= beyond the count) repeat the smallest slice unless fill_value is given
    src = _ufuncs.where(valid, _take(perm, pos), _take(perm, lax_base.constant((k,), 0, _I32)))
    picked = lax_sort.gather_along(rows, lax_st.broadcast_in_dim(src, (k,) + core.get_aval(rows).shape[1:], (0,)), 0)
    if fill_value is not None:
        picked = _ufuncs.where(lax_st.broadcast_in_dim(valid, core.get_aval(picked).shape, (0,)), picked,
                           lax_st.full((), fill_value, core.get_aval(picked).dtype))
    if axis is None:
        values = picked
    else:
        picked = lax_st.reshape(picked, (k,) + rest)
        values = lax_st.transpose(picked, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, len(shape))))
    ids = _ufuncs.subtract(lax_cum.cumsum(lax_ew.convert_element_type(first, _I32), 0), lax_base.constant((), 1, _I32))
    ends = _search(ids, lax_ew.broadcasted_iota(_I32, (k,), 0), "right")
    counts = _ufuncs.where(valid, _ufuncs.subtract(ends, pos), lax_base.constant((), 0, _I32))
    inverse = _take(ids, lax_sort.sort((perm, iota), dimension=0, num_keys=1)[1])
    return _Unique(values, _ufuncs.where(valid, _take(perm, pos), lax_base.constant((), 0, _I32)),
                   lax_st.reshape(inverse, shape) if axis is None else inverse, counts)


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None,
           fill_value: Any = None, sorted: bool = True) -> Any:
    """`jnp.unique`: the sorted distinct elements (or slices along `axis`); NaNs merge if equal_nan."""
    check_arraylike("unique", ar)
    u = _unique_parts(ar, equal_nan, size, fill_value, axis)
    extra = [v for flag, v in ((return_index, u.indices), (return_inverse, u.inverse_indices),
                               (return_counts, u.counts)) if flag]
    return tuple([u.values] + extra) if extra else u.values


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """`jnp.unique_values` (array API): every NaN is distinct (equal_nan=False), as the standard
    and JAX have it; likewise the three below."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueCountsResult:
    """`jnp.unique_counts` (array API): (values, counts) as a named tuple."""
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value))


def unique_inverse(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueInverseResult:
    """`jnp.unique_inverse` (array API): (values, inverse_indices) as a named tuple."""
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                        fill_value=fill_value))


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueAllResult:
    """`jnp.unique_all` (array API): values, indices, inverse_indices, counts."""
    check_arraylike("unique_all", x)
    return _UniqueAllResult(*_unique_parts(x, False, size, fill_value))


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto") -> Any:
    """`jnp.isin`: whether each element occurs in `test_elements` (NaN never does)."""
    check_arraylike("isin", element, test_elements)
    e, t = ensure_array(element), _flat(test_elements)
    shape = core.get_aval(e).shape
    m = core.get_aval(t).shape[0]
    eb = lax_st.broadcast_in_dim(e, shape + (m,), tuple(range(len(shape))))
    hit = _reductions.any(_ufuncs.equal(eb, lax_st.broadcast_in_dim(t, shape + (m,), (len(shape),))), axis=-1)
    return _ufuncs.logical_not(hit) if invert else hit


def _masked_unique(values: Any, mask: Any, size: int | None, fill_value: Any, what: str) -> Any:
    pos, valid, _ = _compact(mask, size, what)
    default = values[0] if core.get_aval(values).shape[0] else lax_base.constant((), 0, core.get_aval(values).dtype)
    return _fill(_take(values, pos), valid, fill_value, default)


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """`jnp.union1d`: the sorted distinct values of both arrays."""
    return unique(_shape.concatenate([_flat(ar1), _flat(ar2)]), size=size, fill_value=fill_value)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value: Any = None) -> Any:
    """`jnp.intersect1d`: sorted values in both arrays (and their first indices in each)."""
    u1, i1 = unique(ar1, return_index=True)
    u2, i2 = unique(ar2, return_index=True)
    keep = isin(u1, u2)
    values = _masked_unique(u1, keep, size, fill_value, "intersect1d")
    if not return_indices:
        return values
    pos, valid, _ = _compact(keep, size, "intersect1d")
    zero = lax_base.constant((), 0, _I32)
    idx1 = _ufuncs.where(valid, _take(i1, pos), zero)
    at2 = _ufuncs.clip(_search(u2, values, "left"), 0, max(core.get_aval(u2).shape[0] - 1, 0))
    idx2 = _ufuncs.where(valid, _take(i2, at2), zero)
    return values, idx1, idx2


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
              fill_value: Any = None) -> Any:
    """`jnp.setdiff1d`: sorted distinct values of ar1 that are not in ar2 (with a static `size`,
    also under jit: the sorted ar1 masked to each value's first occurrence)."""
    if size is None:
        u1 = unique(ar1)
        return _masked_unique(u1, isin(u1, ar2, invert=True), size, fill_value, "setdiff1d")
    if fill_value is None:  # JAX 0.10 pads setdiff1d with 0 (its docstring says the minimum)
        fill_value = 0
    s = lax_sort.sort(_flat(ar1))
    n = core.get_aval(s).shape[0]
    first = _shape.concatenate([lax_base.constant((min(n, 1),), True, dtypes.bool_),
                                _ufuncs.not_equal(s[1:], s[:-1])]) if n else lax_base.constant((0,), True, dtypes.bool_)
    return _masked_unique(s, _ufuncs.logical_and(first, isin(s, ar2, invert=True)), size, fill_value, "setdiff1d")


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Any:
    """`jnp.setxor1d`: sorted values in exactly one of the arrays."""
    both = _shape.concatenate([unique(ar1), unique(ar2)])
    values, counts = unique(both, return_counts=True)
    return _masked_unique(values, _ufuncs.equal(counts, 1), size, fill_value, "setxor1d")
