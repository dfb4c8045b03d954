"""numpy reductions: sum, prod, max, min, mean, var, std, all, any, argmax, cumsum, nan*, ...

Every reduction goes through `_reduce`, which handles numpy's arguments the same
way for all of them: `axis` (None, int, tuple, negative), `keepdims`, `where=`
(masked elements become the reduction's identity), `initial=`, `dtype=` and JAX's
default result dtypes (sums and products of bools and small ints accumulate in the
default int; means of integers are floats).
"""
from __future__ import annotations

__all__ = ["sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "all", "any",
           "argmax", "argmin", "ptp", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod",
           "nancumsum", "nancumprod", "count_nonzero", "average", "nansum", "nanprod",
           "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "nanargmax", "nanargmin"]

import builtins
from typing import Any, Callable, Sequence

from .. import core, dtypes
from ..lax import base as lax_base
from ..lax import reductions as lax_red  # (before cumulative: reductions re-exports it)
from ..lax import cumulative as lax_cum
from .util import check_arraylike, ensure_array

Axis = int | Sequence[int] | None


def canonical_axis(axis: Axis, ndim: int) -> tuple[int, ...]:
    """numpy `axis` as sorted non-negative axes; JAX's messages for bad ones."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    axes = tuple(core.concrete_or_error(a, "axis") for a in axes)
    out = lax_base.canonical_axes(axes, ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in reduction: {tuple(axes)}")
    return tuple(sorted(out))


def check_no_out(name: str, out: Any) -> None:
    """JAX arrays are immutable: numpy's `out=` is rejected as JAX does."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def _keepdims(x: Any, axes: tuple[int, ...], shape: tuple[int, ...]) -> Any:
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return lax_st.reshape(x, kept)


def _sum_dtype(dt: dtypes.DType) -> dtypes.DType:
    """JAX's default accumulation dtype for sum/prod: small ints and bools widen."""
    if dt.kind == "b":
        return dtypes.default_int()
    if dt.kind in "iu" and dt.itemsize < dtypes.default_int().itemsize:
        bits = dtypes.default_int().itemsize * 8
        return dtypes.canonicalize_dtype(f"uint{bits}") if dt.kind == "u" else dtypes.default_int()
    return dt


def _float_dtype(dt: dtypes.DType) -> dtypes.DType:
    return dt if dt.kind in "fc" else dtypes.default_float()


def _cast(x: Any, dt: Any) -> Any:
    return lax_ew.convert_element_type(x, dt) if core.get_aval(x).dtype != dt else x


#: the jnp function folding `initial=` into a reduction's result
_COMBINE = {"add": "add", "mul": "multiply", "max": "maximum", "min": "minimum"}
#: sum and prod in dtype bool, as JAX computes them: logical or / and
_BOOL_REDUCTIONS = {"add": lambda: lax_red.reduce_or, "mul": lambda: lax_red.reduce_and}


def _reduce(name: str, a: Any, axis: Axis, dtype: Any, keepdims: bool, initial: Any, where: Any,
            lax_fn: Callable, monoid: str, result_dtype: Callable[[dtypes.DType], dtypes.DType],
            has_identity: bool = True) -> Any:
    """The shared reduction driver (see the module docstring)."""
    check_arraylike(name, a)
    x = ensure_array(a)
    aval = core.get_aval(x)
    axes = canonical_axis(axis, aval.ndim)
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else result_dtype(aval.dtype)
    x = _cast(x, dt)
    if dt is dtypes.bool_ and monoid in _BOOL_REDUCTIONS:  # sum(dtype=bool) is any, prod all
        lax_fn = _BOOL_REDUCTIONS[monoid]()
    if dt.kind == "c" and monoid in ("max", "min"):
        lax_fn = _lexicographic_extreme(lax_fn, monoid)
    if not has_identity and initial is None:
        if where is not None:
            raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                             f"where mask one has to specify 'initial'")
        if builtins.any(aval.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if where is not None:
        ident = REDUCE_IDENTITY[monoid](dt)
        x = _ufuncs.where(where, x, lax_base.constant((), ident, dt))
        aval = core.get_aval(x)
        axes = canonical_axis(axis, aval.ndim)
    out = lax_fn(x, axes)
    if initial is not None:
        out = getattr(_ufuncs, _COMBINE[monoid])(out, _cast(ensure_array(initial), dt))
        out = _cast(out, dt)
    return _keepdims(out, axes, aval.shape) if keepdims else out


def _lexicographic_extreme(lax_fn: Callable, monoid: str) -> Callable:
    """max/min of complex numbers in numpy's order: the extreme real part, then among the
    elements that have it, the extreme imaginary part (two real reductions)."""
    def reduce(x: Any, axes: tuple) -> Any:
        re, im = _ufuncs.real(x), _ufuncs.imag(x)
        best = lax_fn(re, axes)
        hit = _ufuncs.equal(re, _shape.expand_dims(best, axes))
        fill = float("-inf") if monoid == "max" else float("inf")
        return lax_complex.complex(best, lax_fn(_ufuncs.where(hit, im, fill), axes))
    return reduce


def sum(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    """`jnp.sum`."""
    check_no_out("sum", out)
    rd = _sum_dtype if promote_integers else (lambda d: d)
    return _reduce("sum", a, axis, dtype, keepdims, initial, where, lax_red.reduce_sum, "add", rd)


def prod(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    """`jnp.prod`."""
    check_no_out("prod", out)
    rd = _sum_dtype if promote_integers else (lambda d: d)
    return _reduce("prod", a, axis, dtype, keepdims, initial, where, lax_red.reduce_prod, "mul", rd)


def max(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, initial: Any = None,
        where: Any = None) -> Any:
    """`jnp.max` (NaN propagates)."""
    check_no_out("max", out)
    return _reduce("max", a, axis, None, keepdims, initial, where, lax_red.reduce_max, "max",
                   lambda d: d, has_identity=False)


def min(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, initial: Any = None,
        where: Any = None) -> Any:
    """`jnp.min` (NaN propagates)."""
    check_no_out("min", out)
    return _reduce("min", a, axis, None, keepdims, initial, where, lax_red.reduce_min, "min",
                   lambda d: d, has_identity=False)


amax, amin = max, min


def _bool_reduce(name: str, lax_fn: Callable, monoid: str):
    def fn(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, *,
           where: Any = None) -> Any:
        check_no_out(name, out)
        return _reduce(name, a, axis, dtypes.bool_, keepdims, None, where, lax_fn, monoid,
                       lambda d: dtypes.bool_)
    fn.__name__ = name
    fn.__doc__ = f"`jnp.{name}`: logical reduction (nonzero counts as True)."
    return fn


all = _bool_reduce("all", lax_red.reduce_and, "min")
any = _bool_reduce("any", lax_red.reduce_or, "max")


def count_nonzero(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
    """`jnp.count_nonzero`: the number of nonzero elements, as the default int."""
    x = ensure_array(a)
    nz = _ufuncs.not_equal(x, lax_base.constant((), 0, core.get_aval(x).dtype))
    return sum(nz, axis=axis, dtype=dtypes.default_int(), keepdims=keepdims)


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    n = 1
    for i in axes:
        n *= shape[i]
    return n


def _mean_dtype(a: Any, dtype: Any) -> dtypes.DType:
    if dtype is not None:
        return dtypes.canonicalize_dtype(dtype)
    return _float_dtype(core.get_aval(a).dtype)


def mean(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False, *,
         where: Any = None) -> Any:
    """`jnp.mean`: integers average as the default float; float16 accumulates in float32."""
    check_no_out("mean", out)
    check_arraylike("mean", a)
    x = ensure_array(a)
    dt = _mean_dtype(x, dtype)
    acc = dtypes.float32 if dt in lax_base.LOW_FLOATS else dt
    total = sum(x, axis=axis, dtype=acc, keepdims=keepdims, where=where)
    if where is None:
        n = _count(core.get_aval(x).shape, canonical_axis(axis, core.get_aval(x).ndim))
        out_ = _ufuncs.true_divide(total, lax_base.constant((), n, acc))
    else:
        mask = _shape.broadcast_to(where, core.get_aval(x).shape)
        n = sum(mask, axis=axis, dtype=acc, keepdims=keepdims)
        out_ = _ufuncs.true_divide(total, n)
    return _cast(out_, dt)


def var(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Any:
    """`jnp.var`: mean squared deviation, divided by N - ddof."""
    check_no_out("var", out)
    if correction is not None:
        ddof = correction
    check_arraylike("var", a)
    x = ensure_array(a)
    dt = _mean_dtype(x, dtype)
    acc = dtypes.float32 if dt in lax_base.LOW_FLOATS else dt
    x = _cast(x, acc)
    centered = _ufuncs.subtract(x, mean(x, axis=axis, keepdims=True, where=where))
    if dtypes.dtype(centered).kind == "c":  # |x - mean|^2: a real variance, as numpy
        re, im = _ufuncs.real(centered), _ufuncs.imag(centered)
        centered, dt, acc = None, dtypes.real_part_dtype(dt), dtypes.real_part_dtype(acc)
        sq = _ufuncs.add(_ufuncs.multiply(re, re), _ufuncs.multiply(im, im))
    else:
        sq = _ufuncs.multiply(centered, centered)
    total = sum(sq, axis=axis, keepdims=keepdims, where=where)
    if where is None:
        n = _count(core.get_aval(x).shape, canonical_axis(axis, core.get_aval(x).ndim))
        if n - ddof <= 0:  # no degrees of freedom left: NaN, as in JAX
            return _cast(_creation.full_like(total, float("nan")), dt)
        denom: Any = lax_base.constant((), n - ddof, acc)
    else:
        mask = _shape.broadcast_to(where, core.get_aval(x).shape)
        denom = _ufuncs.subtract(sum(mask, axis=axis, dtype=acc, keepdims=keepdims), ddof)
        denom = _ufuncs.where(denom > 0, denom, float("nan"))
    return _cast(_ufuncs.true_divide(total, denom), dt)


def std(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Any:
    """`jnp.std`: the square root of `var`."""
    check_no_out("std", out)
    return _ufuncs.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, correction=correction))


def ptp(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False) -> Any:
    """`jnp.ptp`: max - min."""
    check_no_out("ptp", out)
    return _ufuncs.subtract(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def _arg(name: str, lax_fn: Callable):
    def fn(a: Any, axis: int | None = None, out: None = None, keepdims: bool = False) -> Any:
        check_no_out(name, out)
        check_arraylike(name, a)
        x = ensure_array(a)
        if axis is None:
            if core.get_aval(x).size == 0:
                raise ValueError(f"attempt to get {name} of an empty sequence")
            res = lax_fn(lax_st.reshape(x, (core.get_aval(x).size,)), 0, dtypes.default_int())
            return lax_st.reshape(res, (1,) * core.get_aval(x).ndim) if keepdims else res
        (ax,) = canonical_axis(axis, core.get_aval(x).ndim)
        if core.get_aval(x).shape[ax] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        res = lax_fn(x, ax, dtypes.default_int())
        return _keepdims(res, (ax,), core.get_aval(x).shape) if keepdims else res
    fn.__name__ = name
    fn.__doc__ = f"`jnp.{name}`: index of the first extremum (NaN counts as one)."
    return fn


argmax = _arg("argmax", lax_red.argmax)
argmin = _arg("argmin", lax_red.argmin)


# ---------------------------------------------------------------- cumulative
def _cumulative(name: str, lax_fn: Callable, nan_fill: Any = None):
    def fn(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
        check_no_out(name, out)
        check_arraylike(name, a)
        x = ensure_array(a)
        if nan_fill is not None:
            x = _nan_to(x, nan_fill)
        if axis is None:
            x = lax_st.reshape(x, (core.get_aval(x).size,))
            axis = 0
        (ax,) = lax_base.canonical_axes([axis], core.get_aval(x).ndim)
        # as JAX: cumsum/cumprod keep small integer types (bool -> the default int)
        src = core.get_aval(x).dtype
        default = dtypes.default_int() if src.kind == "b" else src
        dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else default
        if dt is dtypes.bool_:  # a running or (cumsum) / and (cumprod), as JAX computes it
            run = lax_cum.cummax if lax_fn is lax_cum.cumsum else lax_cum.cummin
            return _cast(run(_cast(_cast(x, dt), dtypes.int32), ax), dt)
        return lax_fn(_cast(x, dt), ax)
    fn.__name__ = name
    fn.__doc__ = f"`jnp.{name}` along `axis` (flattened if None)."
    return fn


cumsum = _cumulative("cumsum", lax_cum.cumsum)
cumprod = _cumulative("cumprod", lax_cum.cumprod)
nancumsum = _cumulative("nancumsum", lax_cum.cumsum, 0)
nancumprod = _cumulative("nancumprod", lax_cum.cumprod, 1)


def _cumulative_with_initial(name: str, lax_fn: Callable, ident: int, promote: bool):
    """An array API cumulative function. As in JAX, cumulative_sum promotes small integers as
    `sum` does; cumulative_prod keeps them (only bool becomes the default int)."""
    what = "sum" if ident == 0 else "product"

    def fn(x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False) -> Any:
        check_arraylike(name, x)
        x = ensure_array(x)
        nd = core.get_aval(x).ndim
        if nd == 0:
            raise ValueError(f"The input must be non-scalar to take a cumulative {what}, however a "
                             "scalar value or scalar array was given.")
        if axis is None:
            if nd > 1:
                raise ValueError(f"The input array has rank {nd}, however axis was not set to an explicit "
                                 "value. The axis argument is only optional for one-dimensional arrays.")
            axis = 0
        (ax,) = lax_base.canonical_axes([axis], nd)
        src = core.get_aval(x).dtype
        default = _sum_dtype(src) if promote else (dtypes.default_int() if src.kind == "b" else src)
        dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else default
        out = lax_fn(_cast(x, dt), ax)
        if include_initial:
            pad = [(0, 0, 0)] * nd
            pad[ax] = (1, 0, 0)
            out = lax_st.pad(out, lax_base.constant((), ident, dt), pad)
        return out
    fn.__name__ = name
    fn.__doc__ = f"`jnp.{name}` (array API): optionally with the identity prepended."
    return fn


cumulative_sum = _cumulative_with_initial("cumulative_sum", lax_cum.cumsum, 0, promote=True)
cumulative_prod = _cumulative_with_initial("cumulative_prod", lax_cum.cumprod, 1, promote=False)


# ---------------------------------------------------------------- nan-ignoring
def _nan_to(x: Any, value: Any) -> Any:
    if core.get_aval(x).dtype.kind != "f":
        return x
    return _ufuncs.where(_ufuncs.isnan(x), lax_base.constant((), value, core.get_aval(x).dtype), x)


def nansum(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
    """`jnp.nansum`: NaNs count as zero."""
    check_no_out("nansum", out)
    return sum(_nan_to(ensure_array(a), 0), axis, dtype, None, keepdims, initial, where)


def nanprod(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False,
            initial: Any = None, where: Any = None) -> Any:
    """`jnp.nanprod`: NaNs count as one."""
    check_no_out("nanprod", out)
    return prod(_nan_to(ensure_array(a), 1), axis, dtype, None, keepdims, initial, where)


def _nan_extremum(name: str, fn: Callable, fill: float):
    def nanfn(a: Any, axis: Axis = None, out: None = None, keepdims: bool = False, initial: Any = None,
              where: Any = None) -> Any:
        check_no_out(name, out)
        x = ensure_array(a)
        res = fn(_nan_to(x, fill), axis, None, keepdims, initial, where)
        if core.get_aval(x).dtype.kind != "f":
            return res
        all_nan = all(_ufuncs.isnan(x), axis=axis, keepdims=keepdims)
        return _ufuncs.where(all_nan, lax_base.constant((), float("nan"), core.get_aval(res).dtype), res)
    nanfn.__name__ = name
    nanfn.__doc__ = f"`jnp.{name}`: ignores NaNs (NaN only where every element is NaN)."
    return nanfn


nanmax = _nan_extremum("nanmax", max, float("-inf"))
nanmin = _nan_extremum("nanmin", min, float("inf"))


def _nan_mask(x: Any, where: Any) -> Any:
    ok = _ufuncs.logical_not(_ufuncs.isnan(x))
    return ok if where is None else _ufuncs.logical_and(ok, where)


def nanmean(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, keepdims: bool = False, *,
            where: Any = None) -> Any:
    """`jnp.nanmean`: the mean of the non-NaN elements."""
    check_no_out("nanmean", out)
    x = ensure_array(a)
    if core.get_aval(x).dtype.kind != "f":
        return mean(x, axis, dtype, None, keepdims, where=where)
    return mean(x, axis, dtype, None, keepdims, where=_nan_mask(x, where))


def nanvar(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, *, where: Any = None) -> Any:
    """`jnp.nanvar`: the variance of the non-NaN elements."""
    check_no_out("nanvar", out)
    x = ensure_array(a)
    if core.get_aval(x).dtype.kind != "f":
        return var(x, axis, dtype, None, ddof, keepdims, where=where)
    return var(_nan_to(x, 0), axis, dtype, None, ddof, keepdims, where=_nan_mask(x, where))


def nanstd(a: Any, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, *, where: Any = None) -> Any:
    """`jnp.nanstd`."""
    check_no_out("nanstd", out)
    return _ufuncs.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where=where))


def _nanarg(name: str, fn: Callable, fill: float):
    def nanfn(a: Any, axis: int | None = None, out: None = None, keepdims: bool = False) -> Any:
        check_no_out(name, out)
        x = ensure_array(a)
        return fn(_nan_to(x, fill), axis, None, keepdims)
    nanfn.__name__ = name
    nanfn.__doc__ = f"`jnp.{name}`: ignores NaNs."
    return nanfn


nanargmax = _nanarg("nanargmax", argmax, float("-inf"))
nanargmin = _nanarg("nanargmin", argmin, float("inf"))


# ---------------------------------------------------------------- average
def average(a: Any, axis: Axis = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:
    """`jnp.average`: the (weighted) mean; with `returned`, also the sum of weights."""
    x = ensure_array(a)
    if weights is None:
        avg = mean(x, axis, keepdims=keepdims)
        if not returned:
            return avg
        n = _count(core.get_aval(x).shape, canonical_axis(axis, core.get_aval(x).ndim))
        return avg, lax_base.constant(core.get_aval(avg).shape, n, core.get_aval(avg).dtype)
    w = ensure_array(weights)
    xs, ws = core.get_aval(x).shape, core.get_aval(w).shape
    if xs != ws:
        if axis is None:
            raise ValueError("Axis must be specified when shapes of a and weights differ.")
        axes = canonical_axis(axis, len(xs))
        if len(ws) != 1 or len(axes) != 1 or ws[0] != xs[axes[0]]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = lax_st.broadcast_in_dim(w, xs, axes)
    dt = dtypes.result_type(_float_dtype(core.get_aval(x).dtype), core.get_aval(w).dtype)
    x, w = _cast(x, dt), _cast(w, dt)
    wsum = sum(w, axis, keepdims=keepdims)
    avg = _ufuncs.true_divide(sum(_ufuncs.multiply(x, w), axis, keepdims=keepdims), wsum)
    return (avg, _shape.broadcast_to(wsum, core.get_aval(avg).shape)) if returned else avg


from .statistics import *  # noqa: E402,F401,F403  (cov, histogram & co., listed in jaxweb.numpy)
from .statistics import __all__ as _statistics_all  # noqa: E402
from ..lax import complex as lax_complex
from ..lax import elementwise as lax_ew
from ..lax import structural as lax_st
from . import creation as _creation
from . import shape as _shape
from . import ufuncs as _ufuncs
from ..compiler.kernel import REDUCE_IDENTITY

__all__ = __all__ + _statistics_all
