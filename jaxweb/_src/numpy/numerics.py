"""Sampled functions: `interp` (piecewise-linear), `gradient` (central differences),
`trapezoid` (integration) and `unwrap` (phase unwrapping).

All are slices, arithmetic and (for interp) a `searchsorted` gather, so they are
differentiable in the sample values and positions where numpy's formulas are, and
batch. interp guards the division by a zero-width interval (repeated xp) so that its
gradient stays finite there, as JAX does.
"""
from __future__ import annotations

__all__ = ["interp", "gradient", "trapezoid", "unwrap"]

import math
from typing import Any, Sequence

from .. import core, dtypes
from ..lax import elementwise as lax
from ..lax import structural as lax_st
from ..lax.base import canonical_axes
from .util import check_arraylike, ensure_array, promote_dtypes
from . import reductions as _reductions
from . import shape as _shape
from . import sorting as _sorting
from . import ufuncs as _ufuncs


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def _inexact(*args: Any) -> list:
    args = promote_dtypes(*[ensure_array(a) for a in args])
    if _aval(args[0]).dtype.kind in "biu":
        args = [lax.convert_element_type(a, dtypes.default_float(), _aval(a).weak_type) for a in args]
    return args


def _extrapolates(side: Any, name: str) -> bool:
    if isinstance(side, str):
        if side != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but got: {side!r}")
        return True
    return False


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Any:
    """`jnp.interp`: piecewise-linear interpolation of (xp, fp) at x; outside [xp[0], xp[-1]]
    fp's end values (or `left`/`right`, or 'extrapolate'); `period` wraps x and xp."""
    check_arraylike("interp", x, xp, fp)
    x, xp, fp = ensure_array(x), ensure_array(xp), ensure_array(fp)
    if _aval(xp).shape != _aval(fp).shape or _aval(xp).ndim != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = _inexact(x, xp)
    (fp,) = _inexact(fp)
    ext_left, ext_right = _extrapolates(left, "left"), _extrapolates(right, "right")
    if period is not None:
        if getattr(period, "ndim", 0) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = _ufuncs.abs(period)
        x, xp = _ufuncs.remainder(x, period), _ufuncs.remainder(xp, period)
        order = _sorting.argsort(xp)
        xp, fp = xp[order], fp[order]
        xp = _shape.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = _shape.concatenate([fp[-1:], fp, fp[:1]])
    n = _aval(xp).shape[0]
    i = _ufuncs.clip(_sorting.searchsorted(xp, x, side="right"), 1, n - 1)
    lo_x, hi_x, lo_f, hi_f = xp[i - 1], xp[i], fp[i - 1], fp[i]
    dx = hi_x - lo_x
    eps = float(dtypes.finfo(_aval(xp).dtype).eps)
    tiny = _float_ulp(eps, _aval(xp).dtype)
    flat = _ufuncs.abs(dx) <= tiny
    f = _ufuncs.where(flat, lo_f, lo_f + ((x - lo_x) / _ufuncs.where(flat, 1, dx)) * (hi_f - lo_f))
    if not ext_left and period is None:
        f = _ufuncs.where(x < xp[0], fp[0] if left is None else left, f)
    if not ext_right and period is None:
        f = _ufuncs.where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


def _float_ulp(v: float, dt: dtypes.DType) -> float:
    """The spacing of dtype `dt` at the (power of two) value v."""
    return v * 2.0 ** -dtypes.finfo(dt).nmant


def gradient(f: Any, *varargs: Any, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Any:
    """`jnp.gradient`: second-order central differences inside, first-order at the edges;
    spacing per axis as a scalar or as the sample coordinates. One array per axis (a list
    when several)."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    a, *spacing = _inexact(f, *varargs)
    nd = _aval(a).ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(canonical_axes((axis,) if isinstance(axis, int) else tuple(axis), nd))
    if not axes:
        return []
    if min(_aval(a).shape[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least 2 elements are required.")
    if not spacing:
        hs: list = [1.0] * len(axes)
    elif len(spacing) == 1:
        hs = spacing * len(axes)
    elif len(spacing) == len(axes):
        hs = list(spacing)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, hs)]
    return grads[0] if len(axes) == 1 else grads


def _gradient_along(a: Any, h: Any, axis: int) -> Any:

    def cut(v: Any, start: int | None, stop: int | None) -> Any:
        return lax_st.slice_in_dim(v, start, stop, axis=axis)

    upper = cut(a, 1, 2) - cut(a, 0, 1)
    lower = cut(a, -1, None) - cut(a, -2, -1)
    if _aval(h).ndim == 0:
        inner = (cut(a, 2, None) - cut(a, None, -2)) * 0.5 / h
        upper, lower = upper / h, lower / h
    elif _aval(h).ndim == 1:
        if _aval(h).shape[0] != _aval(a).shape[axis]:
            raise ValueError("Spacing arrays must have the same length as the dimension along "
                             "which the gradient is calculated.")
        shape = [1] * _aval(a).ndim
        shape[axis] = _aval(h).shape[0]
        h = _shape.reshape(h, shape)
        upper = upper / (cut(h, 1, 2) - cut(h, 0, 1))
        lower = lower / (cut(h, -1, None) - cut(h, -2, -1))
        dx1 = cut(h, 1, -1) - cut(h, 0, -2)
        dx2 = cut(h, 2, None) - cut(h, 1, -1)
        wa = -dx2 / (dx1 * (dx1 + dx2))
        wb = (dx2 - dx1) / (dx1 * dx2)
        wc = dx1 / (dx2 * (dx1 + dx2))
        inner = wa * cut(a, 0, -2) + wb * cut(a, 1, -1) + wc * cut(a, 2, None)
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return _shape.concatenate([upper, inner, lower], axis=axis)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """`jnp.trapezoid`: the integral of y along `axis` by the trapezoidal rule, with sample
    points x (any shape broadcasting with y) or a constant spacing dx."""
    if x is None:
        check_arraylike("trapezoid", y)
        (ya,) = _inexact(y)
        dxa = ensure_array(dx)
        if _aval(dxa).ndim > 0:
            dxa = _shape.expand_dims(dxa, tuple(range(_aval(ya).ndim - _aval(dxa).ndim)))
            dxa = _shape.moveaxis(dxa, axis, -1)
    else:
        check_arraylike("trapezoid", y, x)
        ya, xa = _inexact(y, x)
        dxa = _shape.diff(xa) if _aval(xa).ndim == 1 else _shape.moveaxis(_shape.diff(xa, axis=axis), axis, -1)
    ya = _shape.moveaxis(ya, axis, -1)
    if _aval(dxa).ndim == 0 or _aval(dxa).shape[-1] == 1:
        d = dxa if _aval(dxa).ndim == 0 else dxa[..., 0]
        return d * (ya.sum(-1) - 0.5 * (ya[..., 0] + ya[..., -1]))
    return 0.5 * (dxa * (ya[..., 1:] + ya[..., :-1])).sum(-1)


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * math.pi) -> Any:
    """`jnp.unwrap`: remove jumps larger than `discont` (default period/2) along `axis` by
    adding multiples of `period`."""
    check_arraylike("unwrap", p)
    p, period = promote_dtypes(ensure_array(p), period)
    (ax,) = canonical_axes((axis,), max(_aval(p).ndim, 1))
    if _aval(p).shape[ax] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if _aval(p).dtype.kind in "iu" else period / 2
    dd = _shape.diff(p, axis=ax)
    ddmod = _ufuncs.remainder(dd + interval, period) - interval
    ddmod = _ufuncs.where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = _ufuncs.where(_ufuncs.abs(dd) < discont, 0, ddmod - dd)
    head = lax_st.slice_in_dim(p, 0, 1, axis=ax)
    rest = lax_st.slice_in_dim(p, 1, None, axis=ax) + _reductions.cumsum(correction, axis=ax)
    return _shape.concatenate([head, rest], axis=ax)
