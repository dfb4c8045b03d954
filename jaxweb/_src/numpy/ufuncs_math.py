"""Floating-point numpy functions: exponentials, logs, trigonometry, float
classification, composite functions (hypot, logaddexp, sinc, heaviside), selection
(where, clip, nan_to_num) and closeness tests (isclose, allclose, array_equal).

Integer and bool inputs are promoted to the default float type first, as numpy's
(and JAX's) rules say. Re-exported by `ufuncs.py`.
"""
from __future__ import annotations

__all__ = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
    "arctanh", "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh", "deg2rad", "rad2deg",
    "degrees", "radians", "hypot", "logaddexp", "logaddexp2", "isfinite", "isinf", "isnan",
    "isposinf", "isneginf", "signbit", "copysign", "nextafter", "heaviside", "sinc", "where",
    "clip", "nan_to_num", "isclose", "allclose", "array_equal", "array_equiv",
]

import math
from typing import Any, Callable

from .. import core, dtypes
from ..custom_derivatives import custom_jvp
from ..lax import complex as lax_complex, elementwise as lax
from .util import broadcast_shapes, check_arraylike, promote_args, promote_args_inexact, broadcast_to_shape
from . import _modules
from .ufuncs import maximum, minimum, equal
from ..lax.reductions import reduce_sum


def _dtype(x: Any) -> dtypes.DType:
    return core.get_aval(x).dtype


def _inexact_unary(name: str, fn: Callable[[Any], Any]) -> Callable:
    def f(x: Any, /) -> Any:
        (x,) = promote_args_inexact(name, x)
        return fn(x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`jnp.{name}`: elementwise, in floating point (integers are promoted)."
    return f


def _inexact_binary(name: str, fn: Callable[[Any, Any], Any]) -> Callable:
    def f(x: Any, y: Any, /) -> Any:
        x, y = promote_args_inexact(name, x, y)
        return fn(x, y)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`jnp.{name}`: elementwise, in floating point (integers are promoted)."
    return f


_LAX_UNARY = {  # jnp name -> lax function
    "exp": lax.exp, "exp2": lax.exp2, "expm1": lax.expm1, "log": lax.log, "log1p": lax.log1p,
    "sqrt": lax.sqrt, "cbrt": lax.cbrt, "sin": lax.sin, "cos": lax.cos, "tan": lax.tan,
    "arcsin": lax.asin, "arccos": lax.acos, "arctan": lax.atan, "sinh": lax.sinh,
    "cosh": lax.cosh, "tanh": lax.tanh, "arcsinh": lax.asinh, "arccosh": lax.acosh,
    "arctanh": lax.atanh,
    "log2": lambda x: lax.div(lax.log(x), math.log(2)),
    "log10": lambda x: lax.div(lax.log(x), math.log(10)),
    "deg2rad": lambda x: lax.mul(x, math.pi / 180), "rad2deg": lambda x: lax.mul(x, 180 / math.pi),
}
_f = {name: _inexact_unary(name, fn) for name, fn in _LAX_UNARY.items()}
(exp, exp2, expm1, log, log1p, sqrt, cbrt, sin, cos, tan, arcsin, arccos, arctan, sinh, cosh,
 tanh, arcsinh, arccosh, arctanh, log2, log10, deg2rad, rad2deg) = _f.values()
asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh
radians, degrees = deg2rad, rad2deg

arctan2 = atan2 = _inexact_binary("arctan2", lax.atan2)
nextafter = _inexact_binary("nextafter", lax.nextafter)


def _hypot(x: Any, y: Any) -> Any:
    """sqrt(x² + y²) without overflow: scale by the larger magnitude; inf wins over NaN."""
    x, y = lax.abs(x), lax.abs(y)
    big, small = lax.max(x, y), lax.min(x, y)
    safe = lax.select(lax.eq(big, 0), lax.full_like(big, 1), big)
    r = lax.div(small, safe)
    out = lax.mul(big, lax.sqrt(lax.add(1, lax.mul(r, r))))
    return lax.select(lax.bitwise_or(isinf(x), isinf(y)), lax.full_like(out, math.inf), out)


def _logaddexp(x: Any, y: Any, log_base: float, exp_fn: Callable) -> Any:
    """log(exp(x) + exp(y)) computed as max + log1p(exp(min - max)), whose derivative is
    right at ties (max and min split it evenly); equal infinities (x - y is NaN) give x + y."""
    big = lax.max(x, y)
    delta = lax.sub(x, y)
    out = lax.add(big, lax.div(lax.log1p(exp_fn(lax.sub(lax.min(x, y), big))), log_base))
    return lax.select(lax.ne(delta, delta), lax.add(x, y), out)


hypot = _inexact_binary("hypot", _hypot)
logaddexp = _inexact_binary("logaddexp", lambda x, y: _logaddexp(x, y, 1.0, lax.exp))
logaddexp2 = _inexact_binary("logaddexp2", lambda x, y: _logaddexp(x, y, math.log(2), lax.exp2))


def _sinc(x: Any) -> Any:
    """sin(pi x)/(pi x), with the value at 0 from `_sinc_at_zero` so that every derivative
    there is right (differentiating the safe-division branch would give zeros)."""
    zero = lax.eq(x, 0)
    pix = lax.mul(x, math.pi)
    safe = lax.select(zero, lax.full_like(x, 1), pix)
    return lax.select(zero, _sinc_at_zero(0, pix), lax.div(lax.sin(safe), safe))


def _sinc_at_zero_impl(k: int, y: Any) -> Any:
    """The k-th derivative of sin(y)/y at y = 0, shaped like y: 0 for odd k and
    (-1)^(k/2) / (k + 1) for even k (from the Maclaurin series sum (-1)^n y^2n/(2n+1)!)."""
    value = 0.0 if k % 2 else (-1.0) ** (k // 2) / (k + 1)
    return lax.add(lax.mul(y, 0.0), value)


_sinc_at_zero = custom_jvp(_sinc_at_zero_impl, nondiff_argnums=(0,))


@_sinc_at_zero.defjvp
def _sinc_at_zero_jvp(k: int, primals: tuple, tangents: tuple) -> tuple:
    (y,), (t,) = primals, tangents
    return _sinc_at_zero(k, y), lax.mul(_sinc_at_zero(k + 1, y), t)


sinc = _inexact_unary("sinc", _sinc)


def _heaviside(x: Any, h0: Any) -> Any:
    """0 for x < 0, 1 for x > 0, h0 at zero; NaN stays NaN."""
    zeros, ones = lax.zeros_like(x), lax.full_like(x, 1)
    sided = lax.select(lax.lt(x, 0), zeros, lax.select(lax.gt(x, 0), ones, x))
    return lax.select(lax.eq(x, 0), h0, sided)


def heaviside(x1: Any, x2: Any, /) -> Any:
    """`jnp.heaviside`: 0 for x1 < 0, 1 for x1 > 0, x2 where x1 == 0 (NaN stays NaN).
    Weakly typed only when both inputs are (JAX builds it from typed constants)."""
    check_arraylike("heaviside", x1, x2)
    weak = all(core.get_aval(v).weak_type for v in (x1, x2))
    x, h0 = promote_args_inexact("heaviside", x1, x2)
    out = _heaviside(x, h0)
    return lax.convert_element_type(out, _dtype(out), weak)


def _copysign(x: Any, y: Any) -> Any:
    ax = lax.abs(x)
    return lax.select(signbit(y), lax.neg(ax), ax)


copysign = _inexact_binary("copysign", _copysign)


# ---------------------------------------------------------------- classification
# Weak types follow JAX's constructions: a test against a typed constant (isinf, isposinf,
# isneginf, signbit, an integer's constant answer) is strongly typed; x != x (isnan, for
# every dtype) and lax.is_finite keep a weakly typed input's weak type.
def _strong(x: Any) -> Any:
    """x with its weak type dropped (the result of a comparison with a typed constant)."""
    return lax.convert_element_type(x, _dtype(x))


def _float_test(name: str, fn: Callable[[Any], Any], int_value: bool, complex_ok: bool = True,
                doc: str = "elementwise float classification (constant for integers)") -> Callable:
    """jnp.`name`: `fn` on floats, `int_value` for integers and bools, and on complex numbers
    `fn` of both parts (and-ed for True on integers, else or-ed), or a ValueError where JAX
    refuses complex inputs (`complex_ok` False)."""
    def f(x: Any, /) -> Any:
        (x,) = promote_args(name, x)
        if _dtype(x).kind == "c":  # finite: both parts; inf: either part
            if not complex_ok:
                raise ValueError("isposinf/isneginf are not well defined for complex types")
            parts = fn(lax_complex.real(x)), fn(lax_complex.imag(x))
            return (lax.bitwise_and if int_value else lax.bitwise_or)(*parts)
        if _dtype(x).kind != "f":
            return lax.full_like(x, int_value, dtypes.bool_)
        return fn(x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`jnp.{name}`: {doc}."
    return f


def isnan(x: Any, /) -> Any:
    """`jnp.isnan`: x != x, for every dtype (so a weakly typed input gives a weak bool)."""
    (x,) = promote_args("isnan", x)
    return lax.ne(x, x)


def _isposneginf(name: str, inf: float) -> Callable:
    return _float_test(name, lambda x: _strong(lax.eq(x, inf)), False, complex_ok=False,
                       doc=f"whether x is {inf} (False for integers; complex inputs are refused, as in JAX)")


isfinite = _float_test("isfinite", lax.is_finite, True)
isinf = _float_test("isinf", lambda x: _strong(lax.eq(lax.abs(x), math.inf)), False)
isposinf = _isposneginf("isposinf", math.inf)
isneginf = _isposneginf("isneginf", -math.inf)
_SAME_WIDTH_INT = {2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


def signbit(x: Any, /) -> Any:
    """`jnp.signbit`: whether the sign bit is set (True for -0.0 and negative NaN)."""
    (x,) = promote_args("signbit", x)
    dt = _dtype(x)
    if dt.kind == "c":
        raise ValueError(f"jax.numpy.signbit is not well defined for {dt.name}")
    if dt.kind == "f":
        return lax.lt(lax.bitcast_convert_type(x, _SAME_WIDTH_INT[dt.itemsize]), 0)
    if dt.kind == "i":
        return _strong(lax.lt(x, 0))
    return lax.full_like(x, False, dtypes.bool_)


# ---------------------------------------------------------------- selection
def where(condition: Any, x: Any = None, y: Any = None, /, *, size: Any = None,
          fill_value: Any = None) -> Any:
    """`jnp.where`: x where condition (nonzero), else y; one argument means nonzero()."""
    if x is None and y is None:
        return _modules.nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:  # JAX checks the operands first: None is not array-like
        raise TypeError(f"where requires ndarray or scalar arguments, got {type(None)} at position "
                        f"{1 if x is None else 2}.")
    check_arraylike("where", condition, x, y)
    x, y = promote_args("where", x, y)
    (c,) = promote_args("where", condition)
    shape = broadcast_shapes(core.get_aval(c).shape, core.get_aval(x).shape, name="where")
    c = c if _dtype(c).kind == "b" else lax.ne(c, 0)
    c, x, y = (broadcast_to_shape(v, shape) for v in (c, x, y))
    return lax.select(c, x, y)


def clip(arr: Any = None, /, min: Any = None, max: Any = None, *, a: Any = None,
         a_min: Any = None, a_max: Any = None) -> Any:
    """`jnp.clip`: limit values to [min, max] (either bound may be None); NaN stays NaN."""
    arr = a if arr is None else arr
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    check_arraylike("clip", arr)
    if any(v is not None and dtypes.dtype(v).kind == "c" for v in (arr, lo, hi)):
        raise ValueError("Clip received a complex value either through the input or the min/max keywords. "
                         "Complex values have no ordering and cannot be clipped. Please convert to a real "
                         "value or array by taking the real or imaginary components via "
                         "jax.numpy.real/imag respectively.")
    if lo is not None:
        arr = maximum(lo, arr)
    if hi is not None:
        arr = minimum(hi, arr)
    (arr,) = promote_args("clip", arr)
    return arr


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Any:
    """`jnp.nan_to_num`: NaN -> nan, +inf -> posinf (default: largest finite), -inf ->
    neginf (default: most negative finite). Integers pass through."""
    (x,) = promote_args("nan_to_num", x)
    dt = _dtype(x)
    if dt.kind == "c":  # each part on its own, as numpy
        return lax_complex.complex(*(nan_to_num(p(x), copy, nan, posinf, neginf)
                                     for p in (lax_complex.real, lax_complex.imag)))
    if dt.kind != "f":
        return x
    info = dtypes.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = lax.select(lax.ne(x, x), lax.full_like(x, nan), x)
    out = lax.select(lax.eq(x, math.inf), lax.full_like(x, posinf), out)
    return lax.select(lax.eq(x, -math.inf), lax.full_like(x, neginf), out)


# ---------------------------------------------------------------- closeness
def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """`jnp.isclose`: |a - b| <= atol + rtol * |b|; infinities close only to themselves,
    NaN close to nothing (or to NaN, with equal_nan)."""
    a, b = promote_args_inexact("isclose", a, b)
    finite_close = lax.le(lax.abs(lax.sub(a, b)), lax.add(lax.mul(lax.abs(b), rtol), atol))
    either_inf = lax.bitwise_or(isinf(a), isinf(b))
    out = lax.select(either_inf, lax.eq(a, b), finite_close)
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(isnan(a), isnan(b)))
    return _strong(out)  # JAX compares with typed tolerances: never weak


def _all(x: Any) -> Any:
    """True if every element of the bool array x is True (counted with reduce_sum)."""
    aval = core.get_aval(x)
    if aval.ndim == 0:
        return _strong(x)  # a reduction's result is strongly typed
    misses = reduce_sum(lax.convert_element_type(lax.bitwise_not(x), dtypes.int32),
                        tuple(range(aval.ndim)))
    return lax.eq(misses, 0)


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """`jnp.allclose`: whether isclose holds everywhere."""
    return _all(isclose(a, b, rtol, atol, equal_nan))


def _equal_everywhere(a: Any, b: Any, equal_nan: bool) -> Any:
    eq = equal(a, b)
    if equal_nan:
        eq = lax.bitwise_or(eq, lax.bitwise_and(isnan(a), isnan(b)))
    return _all(eq)


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """`jnp.array_equal`: same shape and equal elements (a bool array, False on shape mismatch)."""
    check_arraylike("array_equal", a1, a2)
    a1, a2 = (promote_args("array_equal", v)[0] for v in (a1, a2))
    if core.get_aval(a1).shape != core.get_aval(a2).shape:
        return lax.full_like(a1, False, dtypes.bool_, ())
    return _equal_everywhere(a1, a2, equal_nan)


def array_equiv(a1: Any, a2: Any) -> Any:
    """`jnp.array_equiv`: equal after broadcasting (False if they don't broadcast)."""
    check_arraylike("array_equiv", a1, a2)
    a1, a2 = (promote_args("array_equiv", v)[0] for v in (a1, a2))
    try:
        broadcast_shapes(core.get_aval(a1).shape, core.get_aval(a2).shape)
    except ValueError:
        return lax.full_like(a1, False, dtypes.bool_, ())
    return _equal_everywhere(a1, a2, False)
