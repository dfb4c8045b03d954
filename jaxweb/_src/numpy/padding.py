"""`jnp.pad`: constant, edge, wrap, reflect, symmetric, statistic and linear_ramp modes.

Constant padding is `lax.pad` (a masked view, or one select kernel for a non-zero
value). The other modes are periodic extensions of a base sequence per axis
(wrap: the axis itself; reflect: x and its mirror without the end points;
symmetric: x and its mirror; edge: the end element), built from slices, flips and
one concatenation, so no gather is needed.
"""
from __future__ import annotations

__all__ = ["pad"]

import operator
from typing import Any, Callable

from .. import core, dtypes
from ..lax import structural as lax
from . import util, creation as _creation, reductions as _reductions, shape as _shape, ufuncs as _ufuncs
from ..lax.elementwise import convert_element_type


def _nested(value: Any) -> Any:
    """An array's entries as nested lists of 0-d arrays (traced values stay traced)."""
    if getattr(value, "ndim", 0) == 0:
        return value
    return [_nested(value[i]) for i in range(value.shape[0])]


def _pairs(value: Any, nd: int, name: str, static: bool = True) -> list[tuple[Any, Any]]:
    """numpy's broadcasting of pad_width/constant_values to one (before, after) per axis.
    Static values (pad widths) must be concrete; others may be traced."""
    if hasattr(value, "shape") and not isinstance(value, (int, float)):
        value = core.concrete_or_error(value, name).tolist() if static else _nested(value)
    if not isinstance(value, (list, tuple)):
        return [(value, value)] * nd
    rows = [list(r) if isinstance(r, (list, tuple)) else r for r in value]
    if all(not isinstance(r, list) for r in rows):
        if len(rows) == 1:
            return [(rows[0], rows[0])] * nd
        if len(rows) == 2:
            return [(rows[0], rows[1])] * nd
    elif all(isinstance(r, list) for r in rows):
        if len(rows) == 1 and len(rows[0]) in (1, 2):
            r = rows[0]
            return [(r[0], r[-1])] * nd
        if len(rows) == nd and all(len(r) in (1, 2) for r in rows):
            return [(r[0], r[-1]) for r in rows]
    shape = (len(rows),) + ((len(rows[0]),) if rows and isinstance(rows[0], list) else ())
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {shape}. Valid shapes are "
                     f"({nd}, 2), (1, 2), (2,), (1,), or ().")


def _periodic(base: Any, axis: int, lo: int, hi: int, n: int) -> Any:
    """Elements [-lo, n + hi) of the periodic extension of `base` along `axis`."""
    period = base.shape[axis]
    start = (-lo) % period
    total = lo + n + hi
    copies = -(-(start + total) // period)
    tiled = lax.concatenate([base] * copies, axis) if copies > 1 else base
    return lax.slice_in_dim(tiled, start, start + total, 1, axis)


def _wrap_base(x: Any, axis: int) -> Any:
    return x


def _symmetric_base(x: Any, axis: int) -> Any:
    return lax.concatenate([x, lax.rev(x, (axis,))], axis)


def _reflect_base(x: Any, axis: int) -> Any:
    n = x.shape[axis]
    if n == 1:
        return x
    inner = lax.slice_in_dim(lax.rev(x, (axis,)), 1, n - 1, 1, axis)
    return lax.concatenate([x, inner], axis) if n > 2 else x


_PERIODIC: dict[str, Callable[[Any, int], Any]] = {
    "wrap": _wrap_base, "symmetric": _symmetric_base, "reflect": _reflect_base}


def _edge(x: Any, axis: int, lo: int, hi: int) -> Any:
    n = x.shape[axis]
    parts = []
    for count, at in ((lo, 0), (None, None), (hi, n - 1)):
        if count is None:
            parts.append(x)
        elif count:
            shp = list(x.shape)
            shp[axis] = count
            end = lax.slice_in_dim(x, at, at + 1, 1, axis)
            parts.append(lax.broadcast_in_dim(end, tuple(shp), tuple(range(x.ndim))))
    return lax.concatenate(parts, axis)


_STATS = {"maximum": "max", "minimum": "min", "mean": "mean", "median": "median"}


def _fill_side(x: Any, value: Any, axis: int, width: int) -> Any:
    shp = list(x.shape)
    shp[axis] = width
    return _shape.broadcast_to(value, tuple(shp))


def _stat(x: Any, axis: int, lo: int, hi: int, mode: str, lengths: tuple[Any, Any]) -> Any:
    """Pad with a statistic (max/min/mean/median) of the first/last `lengths` entries."""
    n = x.shape[axis]
    if mode == "median":  # statistics is a family loaded on first use
        from .sorting import median as fn  # noqa: PLC0415
    else:
        fn = getattr(_reductions, _STATS[mode])

    def side(start: int, stop: int) -> Any:
        v = fn(lax.slice_in_dim(x, start, stop, 1, axis), axis=axis, keepdims=True)
        if x.dtype.kind in "iub" and mode in ("mean", "median"):
            v = _ufuncs.round(v)
        return v.astype(x.dtype)
    lo_len, hi_len = (n if k is None else min(max(operator.index(k), 1), n) for k in lengths)
    parts = [_fill_side(x, side(0, lo_len), axis, lo)] if lo else []
    parts.append(x)
    if hi:
        parts.append(_fill_side(x, side(n - hi_len, n), axis, hi))
    return lax.concatenate(parts, axis)


def _linear_ramp(x: Any, axis: int, lo: int, hi: int, ends: tuple[Any, Any]) -> Any:
    """Pad with linear ramps from `ends` (outer edges) towards the edge values."""
    n = x.shape[axis]
    ft = x.dtype if x.dtype.kind == "f" else dtypes.float32
    shape = [1] * x.ndim

    def ramp(edge_at: int, width: int, end: Any, rising: bool) -> Any:
        shape[axis] = width
        k = lax.reshape(_creation.arange(width, dtype=ft), tuple(shape))
        frac = k / width if rising else (width - 1 - k) / width
        edge = lax.slice_in_dim(x, edge_at, edge_at + 1, 1, axis).astype(ft)
        end = _creation.asarray(end, dtype=ft)
        return (end + (edge - end) * frac).astype(x.dtype)
    parts = [ramp(0, lo, ends[0], True)] if lo else []
    parts.append(x)
    if hi:
        parts.append(ramp(n - 1, hi, ends[1], False))
    return lax.concatenate(parts, axis)


def _constant(x: Any, widths, values) -> Any:
    for axis, ((lo, hi), (vlo, vhi)) in enumerate(zip(widths, values)):
        for w, v in (((lo, 0, 0), vlo), ((0, hi, 0), vhi)):
            if w[0] or w[1]:
                cfg = [(0, 0, 0)] * x.ndim
                cfg[axis] = w
                x = lax.pad(x, convert_element_type(v, x.dtype), cfg)
    return x


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """`jnp.pad`: pad each axis by (before, after) widths in the given mode."""
    util.check_arraylike("pad", array)
    x = util.ensure_array(array)
    nd = x.ndim
    widths = [(operator.index(lo), operator.index(hi)) for lo, hi in _pairs(pad_width, nd, "pad_width")]
    if any(w < 0 for p in widths for w in p):
        raise ValueError("index can't contain negative values")
    if callable(mode):  # numpy's pad_func(vector, iaxis_pad_width, iaxis, kwargs) per axis,
        # returning the new vector (JAX arrays are immutable), over a zero-padded array
        padded = _constant(x, widths, [(0, 0)] * nd)
        for axis in range(nd):
            padded = _shape.apply_along_axis(mode, axis, padded, widths[axis], axis, kwargs)
        return padded
    if mode == "constant":
        values = _pairs(kwargs.get("constant_values", 0), nd, "constant_values", static=False)
        return _constant(x, widths, values)
    if mode == "empty":
        return _constant(x, widths, [(0, 0)] * nd)
    if mode == "reflect" and kwargs.get("reflect_type", "even") != "even":
        raise NotImplementedError("jnp.pad: reflect_type='odd' is not supported")
    if mode not in _PERIODIC and mode not in _STATS and mode not in ("edge", "linear_ramp"):
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    lengths = _pairs(kwargs.get("stat_length"), nd, "stat_length")
    ends = _pairs(kwargs.get("end_values", 0), nd, "end_values", static=False)
    for axis, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        n = x.shape[axis]
        if n == 0:
            raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
        if mode == "edge":
            x = _edge(x, axis, lo, hi)
        elif mode in _STATS:
            x = _stat(x, axis, lo, hi, mode, lengths[axis])
        elif mode == "linear_ramp":
            x = _linear_ramp(x, axis, lo, hi, ends[axis])
        else:
            x = _periodic(_PERIODIC[mode](x, axis), axis, lo, hi, n)
    return x
