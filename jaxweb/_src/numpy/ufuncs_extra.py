"""Integer and floating-point decomposition ufuncs: gcd, lcm, frexp, ldexp, modf, spacing,
plus angle, iscomplex, isreal, isscalar and iterable.

`gcd` runs Euclid's algorithm for a fixed number of steps: for integers below 2^b it
ends within log_phi(2^b) + 2 steps (Lamé's bound), so the loop unrolls at trace time
into a fused kernel, with no while loop. frexp and ldexp work on the bit pattern
(exponent field, with subnormals scaled into the normal range first), so they are
exact for every finite value, zero, infinity and NaN.
"""
from __future__ import annotations

__all__ = ["gcd", "lcm", "frexp", "ldexp", "modf", "spacing", "angle", "iscomplex", "isreal",
           "isscalar", "iterable"]

import math
from typing import Any

from .. import core, dtypes
from ..array import Array
from ..custom_derivatives import custom_jvp
from ..lax import complex as lax_complex, elementwise as lax
from .util import (broadcast_to_shape, check_arraylike, ensure_array, promote_args, promote_args_inexact,
    broadcast_shapes)
from .ufuncs_math import _strong, copysign

#: Floating formats: dtype name -> (exponent bits, mantissa bits, same-width int dtype).
_FORMATS = {"float16": (5, 10, dtypes.int16), "bfloat16": (8, 7, dtypes.int16),
            "float32": (8, 23, dtypes.int32), "float64": (11, 52, dtypes.int64)}


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def _euclid_steps(dt: dtypes.DType) -> int:
    return math.ceil(dt.itemsize * 8 * math.log(2) / math.log((1 + math.sqrt(5)) / 2)) + 2


def _int_pair(name: str, x1: Any, x2: Any) -> tuple[Any, Any]:
    check_arraylike(name, x1, x2)
    x1, x2 = promote_args(name, x1, x2)
    if _aval(x1).dtype.kind not in "iu":
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    return x1, x2


def _abs(*xs: Any) -> list:
    return [x if _aval(x).dtype.kind == "u" else lax.abs(x) for x in xs]


def gcd(x1: Any, x2: Any, /) -> Any:
    """`jnp.gcd`: the greatest common divisor of |x1| and |x2| (gcd(0, 0) = 0)."""
    a, b = _abs(*_int_pair("gcd", x1, x2))
    zero = lax.full_like(b, 0)
    one = lax.full_like(b, 1)
    for _ in range(_euclid_steps(_aval(a).dtype)):
        done = lax.eq(b, zero)
        safe = lax.select(done, one, b)
        a, b = lax.select(done, a, b), lax.select(done, zero, lax.rem(a, safe))
    return a


def lcm(x1: Any, x2: Any, /) -> Any:
    """`jnp.lcm`: the least common multiple of |x1| and |x2| (0 if either is 0)."""
    a, b = _abs(*_int_pair("lcm", x1, x2))
    d = gcd(a, b)
    zero = lax.full_like(d, 0)
    safe = lax.select(lax.eq(d, zero), lax.full_like(d, 1), d)
    return lax.select(lax.eq(d, zero), zero, lax.mul(a, lax.div(b, safe)))


def _format(x: Any) -> tuple[int, int, dtypes.DType, int]:
    nexp, nmant, ity = _FORMATS[_aval(x).dtype.name]
    return nexp, nmant, ity, (1 << (nexp - 1)) - 1


def _int_const(v: int, like: Any) -> Any:
    return lax.full_like(like, v)


def frexp(x: Any, /) -> tuple[Any, Any]:
    """`jnp.frexp`: (m, e) with x = m * 2**e and 0.5 <= |m| < 1; (x, 0) for 0, inf, NaN.
    The exponent is int32, as in JAX; m's derivative is 2**-e."""
    check_arraylike("frexp", x)
    (x,) = promote_args_inexact("frexp", x)
    return _mantissa(x), _frexp_bits(x)[1]


def _frexp_bits(x: Any) -> tuple[Any, Any]:
    nexp, nmant, ity, bias = _format(x)
    # scale subnormals by 2^(nmant+1) so that their exponent field is meaningful
    tiny = lax.lt(lax.abs(x), float(dtypes.finfo(_aval(x).dtype).tiny))
    scaled = lax.select(tiny, lax.mul(x, float(2 ** (nmant + 1))), x)
    bits = lax.bitcast_convert_type(scaled, ity)
    field_mask = _int_const((1 << nexp) - 1, bits)
    field = lax.bitwise_and(lax.shift_right_logical(bits, _int_const(nmant, bits)), field_mask)
    e = lax.sub(field, _int_const(bias - 1, bits))
    e = lax.select(tiny, lax.sub(e, _int_const(nmant + 1, e)), e)
    keep = _int_const(~(((1 << nexp) - 1) << nmant), bits)
    mant_bits = lax.bitwise_or(lax.bitwise_and(bits, keep), _int_const((bias - 1) << nmant, bits))
    m = lax.bitcast_convert_type(mant_bits, _aval(x).dtype)
    special = lax.bitwise_or(lax.bitwise_or(lax.eq(x, 0.0), lax.ne(x, x)),
                             lax.eq(lax.abs(x), math.inf))
    e = lax.select(special, lax.full_like(e, 0), e)
    return lax.select(special, x, m), lax.convert_element_type(e, dtypes.int32)


@custom_jvp
def _mantissa(x: Any) -> Any:
    return _frexp_bits(x)[0]


@_mantissa.defjvp
def _mantissa_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    m, e = _frexp_bits(x)
    neg = lax.neg(e)  # 2^-e as two in-range powers of two (|e| may pass the exponent bias)
    half = lax.div(neg, lax.full_like(neg, 2))
    return m, lax.mul(lax.mul(t, _pow2(half, x)), _pow2(lax.sub(neg, half), x))


def _pow2(e: Any, like: Any) -> Any:
    """2.0**e for integer e in the normal exponent range, built from its bit pattern."""
    nexp, nmant, ity, bias = _format(like)
    field = lax.add(lax.convert_element_type(e, ity), _int_const(bias, lax.convert_element_type(e, ity)))
    return lax.bitcast_convert_type(lax.shift_left(field, _int_const(nmant, field)), _aval(like).dtype)


def ldexp(x1: Any, x2: Any, /) -> Any:
    """`jnp.ldexp`: x1 * 2**x2 for integer x2, rounded once (also into the subnormals)."""
    check_arraylike("ldexp", x1, x2)
    d1, d2 = _aval(ensure_array(x1)).dtype, _aval(ensure_array(x2)).dtype
    if d1.kind == "c" or d2.kind in "fc":
        raise ValueError(f"ldexp not supported for input types {(d1, d2)}")
    (x,) = promote_args_inexact("ldexp", x1)
    n = ensure_array(x2)
    shape = tuple(_broadcast(_aval(x).shape, _aval(n).shape))
    x, n = broadcast_to_shape(x, shape), broadcast_to_shape(n, shape)
    nexp, nmant, ity, bias = _format(x)
    m, e = frexp(x)
    total = lax.add(lax.convert_element_type(e, dtypes.int64 if ity is dtypes.int64 else dtypes.int32),
                    lax.convert_element_type(n, dtypes.int64 if ity is dtypes.int64 else dtypes.int32))
    lo, hi = -(2 * bias + nmant + 2), 2 * bias + 2
    total = lax.clamp(lax.full_like(total, lo), total, lax.full_like(total, hi))
    # m * 2^a stays normal (a in [1 - bias + 1, bias]); the second factor rounds once
    a = lax.clamp(lax.full_like(total, 2 - bias), total, lax.full_like(total, bias))
    b = lax.clamp(lax.full_like(total, 1 - bias), lax.sub(total, a), lax.full_like(total, bias))
    out = lax.mul(lax.mul(m, _pow2(a, x)), _pow2(b, x))
    special = lax.bitwise_or(lax.eq(x, 0.0), lax.bitwise_or(lax.ne(x, x), lax.eq(lax.abs(x), math.inf)))
    return lax.select(special, x, out)


def _broadcast(a: tuple, b: tuple) -> tuple:
    return broadcast_shapes(a, b, name="ldexp")


def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
    """`jnp.modf`: (fractional part, integral part), both with x's sign."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    check_arraylike("modf", x)
    (x,) = promote_args_inexact("modf", x)
    whole = lax.select(lax.ge(x, 0.0), lax.floor(x), lax.ceil(x))
    return lax.sub(x, whole), whole


def spacing(x: Any, /) -> Any:
    """`jnp.spacing`: the distance to the next representable value away from zero."""
    check_arraylike("spacing", x)
    (x,) = promote_args_inexact("spacing", x)
    inf = lax.full_like(x, math.inf)
    if _aval(x).dtype.name == "float16":
        return _strong(lax.sub(lax.nextafter(x, inf), x))
    away = lax.sub(lax.nextafter(x, copysign(inf, x)), x)
    smallest = float(dtypes.finfo(_aval(x).dtype).smallest_subnormal)
    out = lax.select(lax.eq(away, 0.0), copysign(lax.full_like(x, smallest), x), away)
    return _strong(out)


def angle(z: Any, deg: bool = False) -> Any:
    """`jnp.angle`: arctan2(imag z, real z) (for real input 0 for x >= 0, pi for x < 0)."""
    check_arraylike("angle", z)
    z = ensure_array(z)
    if _aval(z).dtype.kind == "c":
        result = lax.atan2(lax_complex.imag(z), lax_complex.real(z))
        return lax.mul(result, 180 / math.pi) if deg else result
    dt = _aval(z).dtype
    if dt.kind != "f" or _aval(z).ndim == 0:
        dt = dtypes.default_float()
    re = lax.convert_element_type(z, dt)
    result = lax.atan2(lax.full_like(re, 0.0), re)
    return lax.mul(result, 180 / math.pi) if deg else result


def iscomplex(x: Any) -> Any:
    """`jnp.iscomplex`: whether each element has a nonzero imaginary part."""
    check_arraylike("iscomplex", x)
    x = ensure_array(x)
    if _aval(x).dtype.kind == "c":
        return lax.ne(lax_complex.imag(x), 0)
    return lax.convert_element_type(lax.full_like(x, False, dtypes.bool_), dtypes.bool_, _aval(x).weak_type)


def isreal(x: Any) -> Any:
    """`jnp.isreal`: whether each element has a zero imaginary part."""
    check_arraylike("isreal", x)
    x = ensure_array(x)
    if _aval(x).dtype.kind == "c":
        return lax.eq(lax_complex.imag(x), 0)
    return lax.convert_element_type(lax.full_like(x, True, dtypes.bool_), dtypes.bool_, _aval(x).weak_type)


def isscalar(element: Any) -> bool:
    """`jnp.isscalar`: Python/numpy scalars and 0-d arrays (numpy's isscalar, plus 0-d Arrays)."""
    import numbers
    if isinstance(element, (numbers.Number, str, bytes)):
        return True
    if isinstance(element, (Array, core.Tracer)):
        return _aval(element).ndim == 0
    if type(element).__module__ == "numpy":  # numpy scalars (np.generic) and 0-d ndarrays
        return getattr(element, "ndim", 1) == 0
    if getattr(element, "__jax_array__", None) is not None:
        return _aval(element.__jax_array__()).ndim == 0
    return False


def iterable(y: Any) -> bool:
    """`jnp.iterable`: whether `iter(y)` works (0-d arrays are not iterable)."""
    if isinstance(y, (Array, core.Tracer)):
        return _aval(y).ndim > 0
    try:
        iter(y)
    except TypeError:
        return False
    return True
