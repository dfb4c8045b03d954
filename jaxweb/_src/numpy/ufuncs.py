"""Elementwise numpy functions (`jnp.add`, `jnp.floor_divide`, `jnp.left_shift`, ...).

numpy semantics with JAX's type promotion: arguments are promoted with
`promote_args` (or `promote_args_inexact` where numpy returns floats for integer
input, e.g. true_divide) and broadcast, then mapped onto lax primitives. Integer
floor division and remainder follow Python's floor semantics. Math functions
(exp, sin, hypot, logaddexp, isclose, where, clip, ...) live in `ufuncs_math.py`
and are re-exported here.
"""
from __future__ import annotations

__all__ = [
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "fmod", "divmod", "power", "pow", "float_power", "negative", "positive", "abs", "absolute",
    "fabs", "sign", "floor", "ceil", "round", "around", "rint", "trunc", "fix", "square",
    "reciprocal", "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert",
    "bitwise_invert", "bitwise_count", "left_shift", "right_shift", "bitwise_left_shift",
    "bitwise_right_shift", "astype", "real", "imag", "conj", "conjugate", "iscomplexobj",
    "isrealobj",
]

import builtins
from typing import Any, Callable

from .. import core, dtypes
from ..lax import complex as lax_complex
from ..lax import elementwise as lax
from .util import check_arraylike, promote_args, promote_args_inexact


def _dtype(x: Any) -> dtypes.DType:
    return core.get_aval(x).dtype


def _bool_to_int(*xs: Any) -> list:
    """numpy's integer ops on bools compute in the default integer type."""
    return [lax.convert_element_type(x, dtypes.default_int(), core.get_aval(x).weak_type)
            if _dtype(x).kind == "b" else x for x in xs]


def _binary(name: str, prim: Any, promote: Callable = promote_args, bool_op: Any = None,
            bools_as_int: bool = False) -> Callable:
    """A numpy binary function: promote, broadcast, bind `prim` (or `bool_op` for bools)."""
    def fn(x: Any, y: Any, /) -> Any:
        x, y = promote(name, x, y)
        if bools_as_int:
            x, y = _bool_to_int(x, y)
        if bool_op is not None and _dtype(x).kind == "b":
            return bool_op.bind(x, y)
        return prim.bind(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`jnp.{name}`: elementwise, with numpy broadcasting and JAX type promotion."
    return fn


def _unary(name: str, prim: Any, promote: Callable = promote_args, identity_kinds: str = "",
           **params: Any) -> Callable:
    """A numpy unary function; inputs whose dtype kind is in `identity_kinds` pass through."""
    def fn(x: Any, /) -> Any:
        (x,) = promote(name, x)
        if _dtype(x).kind in identity_kinds:
            return x
        return prim.bind(x, **params)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`jnp.{name}`: elementwise."
    return fn


# ---------------------------------------------------------------- arithmetic
add = _binary("add", lax.add_p, bool_op=lax.or_p)
subtract = _binary("subtract", lax.sub_p)
_multiply = _binary("multiply", lax.mul_p, bool_op=lax.and_p)


def multiply(x: Any, y: Any, /) -> Any:
    """`jnp.multiply`. A boolean array of the result's shape times a number array selects (0
    where False) as JAX does: XLA rewrites a multiply by a converted boolean into a select, so
    `x * mask` is 0 where the mask is False even where x is inf or NaN (the way programs mask
    NaNs out). A mask that broadcasts is multiplied, as XLA leaves it (-0.0 * False is -0.0)."""
    check_arraylike("multiply", x, y)
    bx, by = (_dtype(v).kind == "b" and not isinstance(v, builtins.bool) for v in (x, y))
    if bx == by:
        return _multiply(x, y)
    mask, other = promote_args("multiply", *((x, y) if bx else (y, x)))
    if core.get_aval(x if bx else y).shape != core.get_aval(mask).shape:
        return _multiply(x, y)
    return lax.select(lax.ne(mask, 0), other, lax.full_like(other, 0))


true_divide = _binary("true_divide", lax.div_p, promote_args_inexact)
divide = true_divide
_fmod = _binary("fmod", lax.rem_p, bools_as_int=True)


def fmod(x: Any, y: Any, /) -> Any:
    """`jnp.fmod`: C's fmod (the sign of x); an integer x fmod 0 is 0, as in JAX."""
    x, y = _bool_to_int(*promote_args("fmod", x, y))
    if _dtype(x).kind in "iu":
        y = lax.select(lax.eq(y, 0), lax.full_like(y, 1), y)
    return _fmod(x, y)


def _lexicographic(prim: Any, strict: Any, x: Any, y: Any) -> Any:
    """numpy's order of complex numbers (JAX's too): real parts first, then imaginary."""
    rx, ry = lax_complex.real(x), lax_complex.real(y)
    ix, iy = lax_complex.imag(x), lax_complex.imag(y)
    return lax.or_p.bind(strict.bind(rx, ry), lax.and_p.bind(lax.eq_p.bind(rx, ry), prim.bind(ix, iy)))


def _ordered(name: str, prim: Any, strict: Any) -> Callable:
    """A comparison that orders complex numbers lexicographically (numpy's order, JAX's
    too); the lax comparison primitives themselves reject them, as in JAX."""
    real_fn = _binary(name, prim)

    def fn(x: Any, y: Any, /) -> Any:
        x, y = promote_args(name, x, y)
        return _lexicographic(prim, strict, x, y) if _dtype(x).kind == "c" else real_fn(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = real_fn.__doc__
    return fn


maximum = _binary("maximum", lax.max_p)  # complex: lexicographic, in lax.max itself
minimum = _binary("minimum", lax.min_p)
negative = _unary("negative", lax.neg_p)
sign = _unary("sign", lax.sign_p)
floor = _unary("floor", lax.floor_p, identity_kinds="biu")
ceil = _unary("ceil", lax.ceil_p, identity_kinds="biu")
_rint_real = _unary("rint", lax.round_p, promote_args_inexact,
                    rounding_method=lax.RoundingMethod.TO_NEAREST_EVEN)


def rint(x: Any, /) -> Any:
    """`jnp.rint`: round half to even (each part of a complex value, as JAX)."""
    (x,) = promote_args_inexact("rint", x)
    if _dtype(x).kind == "c":
        return lax_complex.complex(_rint_real(lax_complex.real(x)), _rint_real(lax_complex.imag(x)))
    return _rint_real(x)


fabs = _unary("fabs", lax.abs_p, promote_args_inexact)


def positive(x: Any, /) -> Any:
    """`jnp.positive`: x itself (promoted to an array)."""
    (x,) = promote_args("positive", x)
    return x


def absolute(x: Any, /) -> Any:
    """`jnp.absolute`: |x|; unsigned and bool inputs are returned unchanged."""
    (x,) = promote_args("absolute", x)
    return x if _dtype(x).kind in "bu" else lax.abs_p.bind(x)


abs = absolute  # noqa: A001


def trunc(x: Any, /) -> Any:
    """`jnp.trunc`: round toward zero (integers unchanged)."""
    (x,) = promote_args("trunc", x)
    if _dtype(x).kind in "biu":
        return x
    return lax.select(lax.lt(x, 0), lax.ceil_p.bind(x), lax.floor_p.bind(x))


fix = trunc


def round(a: Any, decimals: int = 0, out: None = None) -> Any:
    """`jnp.round`: round half to even, at `decimals` decimal places."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    decimals = int(core.concrete_or_error(decimals, "'decimals' argument of jnp.round"))
    (a,) = promote_args("round", a)
    dt = _dtype(a)
    if dt.kind == "c":  # each part, as numpy
        return lax_complex.complex(round(lax_complex.real(a), decimals), round(lax_complex.imag(a), decimals))
    if dt.kind in "biu":
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    even = lax.RoundingMethod.TO_NEAREST_EVEN
    if decimals == 0:
        return lax.round(a, even)
    factor = 10.0 ** builtins.abs(decimals)
    if decimals > 0:
        return lax.div(lax.round(lax.mul(a, factor), even), factor)
    return lax.mul(lax.round(lax.div(a, factor), even), factor)


around = round


def square(x: Any, /) -> Any:
    """`jnp.square`: x * x (bools become integers)."""
    (x,) = _bool_to_int(*promote_args("square", x))
    return lax.square(x)


def reciprocal(x: Any, /) -> Any:
    """`jnp.reciprocal`: 1 / x, as floating point."""
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def floor_divide(x: Any, y: Any, /) -> Any:
    """`jnp.floor_divide`: x // y with Python's floor semantics (numpy's for floats)."""
    x, y = _bool_to_int(*promote_args("floor_divide", x, y))
    if _dtype(x).kind in "iu":
        q = lax.div(x, y)
        if _dtype(x).kind == "u":
            return q
        adjust = lax.bitwise_and(lax.ne(lax.sign(x), lax.sign(y)), lax.ne(lax.rem(x, y), 0))
        return lax.select(adjust, lax.sub(q, 1), q)
    return _float_divmod(x, y)[0]


def _float_divmod(x: Any, y: Any) -> tuple[Any, Any]:
    """Floating floor division and modulus as JAX computes them (CPython's float_divmod):
    q = (x - fmod(x, y)) / y (x / y when y == 0), one less where fmod's sign differs from y's,
    rounded half away from zero. The order of these steps decides the signs of zero results."""
    mod = lax.rem(x, y)
    q = lax.div(lax.select(lax.eq(y, 0), x, lax.sub(x, mod)), y)
    fix_ = lax.bitwise_and(lax.ne(mod, 0), lax.ne(lax.sign(y), lax.sign(mod)))
    mod = lax.select(fix_, lax.add(mod, y), mod)
    q = lax.select(fix_, lax.sub(q, lax.full_like(q, 1)), q)
    return lax.round(q), mod


def _trunc_mod_fix(mod: Any, y: Any) -> Any:
    """Turn a truncated remainder into a floored one (the sign of y), as JAX does."""
    do_plus = lax.bitwise_and(lax.ne(lax.lt(mod, 0), lax.lt(y, 0)), lax.ne(mod, 0))
    return lax.select(do_plus, lax.add(mod, y), mod)


def remainder(x: Any, y: Any, /) -> Any:
    """`jnp.remainder`: x mod y with the sign of y (Python's %); 0 for integer y == 0."""
    x, y = _bool_to_int(*promote_args("remainder", x, y))
    r = _trunc_mod_fix(lax.rem(x, y), y)
    if _dtype(x).kind in "iu":
        r = lax.select(lax.eq(y, 0), lax.zeros_like(r), r)
    return r


mod = remainder


def divmod(x: Any, y: Any, /) -> tuple[Any, Any]:
    """`jnp.divmod`: (floor_divide(x, y), remainder(x, y))."""
    return floor_divide(x, y), remainder(x, y)


def power(x: Any, y: Any, /) -> Any:
    """`jnp.power`: integer exponents that are Python ints use repeated multiplication;
    integer arrays to integer array powers stay integers (`_pow_int_int`, as in JAX)."""
    check_arraylike("power", x, y)
    if type(y) is int:
        (x,) = _bool_to_int(*promote_args("power", x))
        return lax.integer_pow(x, y)
    x, y = _bool_to_int(*promote_args("power", x, y))
    if _dtype(x).kind in "iu":
        return _pow_int_int(x, y)
    return lax.pow_p.bind(x, y)


def _pow_int_int(x: Any, y: Any) -> Any:
    """An integer to an integer power as JAX computes it: binary exponentiation over the low 6
    bits of y (a larger power overflows any |x| > 1), y read as unsigned; 0 ** y is 0 for y != 0."""
    one = lax.full_like(y, 1)
    acc = lax.select(lax.bitwise_and(lax.eq(x, 0), lax.ne(y, 0)), lax.full_like(x, 0), lax.full_like(x, 1))
    for _ in range(6):
        acc = lax.select(lax.ne(lax.bitwise_and(y, one), 0), lax.mul(acc, x), acc)
        x = lax.mul(x, x)
        y = lax.shift_right_logical(y, one)
    return acc


pow = power  # noqa: A001


def float_power(x: Any, y: Any, /) -> Any:
    """`jnp.float_power`: power in the default float type (or wider float input)."""
    x, y = promote_args_inexact("float_power", x, y)
    return lax.pow_p.bind(x, y)


def _nan_ignoring(name: str, prim: Any, wins: Any) -> Callable:
    """fmax/fmin: like maximum/minimum, but a NaN loses unless both are NaN. As in JAX, a
    select (x wins if strictly better or y is NaN), so at a tie the gradient goes to y."""
    def fn(x: Any, y: Any, /) -> Any:
        x, y = promote_args(name, x, y)
        if _dtype(x).kind not in "fc":
            return prim.bind(x, y)
        better = _lexicographic(wins, wins, x, y) if _dtype(x).kind == "c" else wins.bind(x, y)
        return lax.select(lax.bitwise_or(better, lax.ne(y, y)), x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`jnp.{name}`: elementwise, ignoring NaN unless both operands are NaN."
    return fn


fmax = _nan_ignoring("fmax", lax.max_p, lax.gt_p)
fmin = _nan_ignoring("fmin", lax.min_p, lax.lt_p)


# ---------------------------------------------------------------- comparisons, logic
equal = _binary("equal", lax.eq_p)
not_equal = _binary("not_equal", lax.ne_p)
less = _ordered("less", lax.lt_p, lax.lt_p)
less_equal = _ordered("less_equal", lax.le_p, lax.lt_p)
greater = _ordered("greater", lax.gt_p, lax.gt_p)
greater_equal = _ordered("greater_equal", lax.ge_p, lax.gt_p)


def _to_bool(x: Any) -> Any:
    return x if _dtype(x).kind == "b" else lax.ne(x, 0)


def _logical(name: str, prim: Any) -> Callable:
    def fn(x: Any, y: Any, /) -> Any:
        x, y = promote_args(name, x, y)
        return prim.bind(_to_bool(x), _to_bool(y))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`jnp.{name}`: elementwise truth-value logic (nonzero is True)."
    return fn


logical_and = _logical("logical_and", lax.and_p)
logical_or = _logical("logical_or", lax.or_p)
logical_xor = _logical("logical_xor", lax.xor_p)


def logical_not(x: Any, /) -> Any:
    """`jnp.logical_not`: True where x is zero."""
    (x,) = promote_args("logical_not", x)
    return lax.not_p.bind(_to_bool(x))


bitwise_and = _binary("bitwise_and", lax.and_p)
bitwise_or = _binary("bitwise_or", lax.or_p)
bitwise_xor = _binary("bitwise_xor", lax.xor_p)
bitwise_not = _unary("bitwise_not", lax.not_p)
invert = bitwise_invert = bitwise_not


def bitwise_count(x: Any, /) -> Any:
    """`jnp.bitwise_count`: number of 1 bits in |x|, as uint8."""
    (x,) = promote_args("bitwise_count", x)
    if _dtype(x).kind == "b":
        return lax.convert_element_type(x, dtypes.uint8)
    if _dtype(x).kind == "i":
        x = lax.abs(x)
    return lax.convert_element_type(lax.population_count(x), dtypes.uint8)


def left_shift(x: Any, y: Any, /) -> Any:
    """`jnp.left_shift`: x << y (shifts of the bit width or more give 0)."""
    x, y = _bool_to_int(*promote_args("left_shift", x, y))
    return lax.shift_left_p.bind(x, y)


def right_shift(x: Any, y: Any, /) -> Any:
    """`jnp.right_shift`: arithmetic shift for signed integers, logical for unsigned."""
    x, y = _bool_to_int(*promote_args("right_shift", x, y))
    prim = lax.shift_right_arithmetic_p if _dtype(x).kind == "i" else lax.shift_right_logical_p
    return prim.bind(x, y)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


# ---------------------------------------------------------------- dtype and complex parts
def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
    """`jnp.astype`: convert to `dtype` (float to int truncates and saturates)."""
    check_arraylike("astype", x)
    (x,) = promote_args("astype", x)
    dt = dtypes.canonicalize_dtype(dtype)
    return lax.convert_element_type(x, dt)


def real(x: Any, /) -> Any:
    """`jnp.real`: the real part (x itself for real dtypes)."""
    (x,) = promote_args("real", x)
    return lax_complex.real(x) if dtypes.dtype(x).kind == "c" else x


def imag(x: Any, /) -> Any:
    """`jnp.imag`: the imaginary part (zeros for real dtypes)."""
    (x,) = promote_args("imag", x)
    return lax_complex.imag(x) if dtypes.dtype(x).kind == "c" else lax.zeros_like(x)


def conjugate(x: Any, /) -> Any:
    """`jnp.conjugate`: the complex conjugate (x itself for real dtypes, as JAX)."""
    (x,) = promote_args("conjugate", x)
    return lax_complex.conj(x) if dtypes.dtype(x).kind == "c" else x


conj = conjugate


def iscomplexobj(x: Any) -> bool:
    """`jnp.iscomplexobj`: whether x has a complex dtype."""
    return dtypes.dtype(x).kind == "c" if not core.is_python_scalar(x) else isinstance(x, complex)


def isrealobj(x: Any) -> bool:
    """`jnp.isrealobj`: not iscomplexobj(x)."""
    return not iscomplexobj(x)


from .ufuncs_math import *  # noqa: E402,F401,F403
from .ufuncs_math import __all__ as _math_all  # noqa: E402

__all__ += _math_all
