"""lax elementwise primitives against numpy (reference backend), edge values checked
against JAX 0.10 (hard-coded), and JAX's error messages for bad operands."""
import math

import numpy as np
import pytest
from scipy import special

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax


pytestmark = pytest.mark.on_every_device  # see conftest.py


RNG = np.random.default_rng(0)
FLOATS = ["float32", "float16", "bfloat16"]
INTS = ["int8", "int16", "int32", "uint8", "uint16", "uint32"]
TOL = {"float32": 2e-6, "float16": 2e-3, "bfloat16": 1.6e-2, "float64": 1e-12}


def arr(x, dtype):
    """A jaxweb array of x as `dtype` (bfloat16 by an on-device cast from float32)."""
    if dtype == "bfloat16":
        return lax.convert_element_type(jnp.asarray(np.asarray(x, np.float32)), jnp.bfloat16)
    return jnp.asarray(np.asarray(x, dtype=dtype))


def host(x):
    """A jaxweb array's values as a float64/int64 numpy array (bfloat16 via float32)."""
    a = np.asarray(x)
    return a.astype(np.float64) if a.dtype.kind == "f" or x.dtype == jnp.bfloat16 else a


def rounded(x, dtype):
    """x rounded to `dtype` and held in float64 (what the kernel actually receives)."""
    return host(arr(x, dtype))


def close(got, want, dtype, scale=1.0):
    assert got.dtype == dtype, (got.dtype, dtype)
    np.testing.assert_allclose(host(got), want, rtol=TOL[dtype] * scale, atol=TOL[dtype] * scale,
                               equal_nan=True)


# ---------------------------------------------------------------- unary float ops
_DOMAIN = {"log": (0.1, 5), "log1p": (-0.5, 5), "sqrt": (0, 5), "rsqrt": (0.1, 5), "asin": (-0.95, 0.95),
           "acos": (-0.95, 0.95), "acosh": (1.05, 5), "atanh": (-0.9, 0.9), "erf_inv": (-0.95, 0.95),
           "lgamma": (0.1, 6), "digamma": (0.1, 6), "tan": (-1.2, 1.2)}
UNARY = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log1p": np.log1p, "expm1": np.expm1,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "erf": special.erf, "erfc": special.erfc, "erf_inv": special.erfinv,
    "lgamma": special.gammaln, "digamma": special.digamma, "logistic": special.expit,
    "floor": np.floor, "ceil": np.ceil, "neg": np.negative, "abs": np.abs, "sign": np.sign,
    "square": np.square, "reciprocal": lambda x: 1 / x,
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float(name, dtype):
    lo, hi = _DOMAIN.get(name, (-3, 3))
    x = RNG.uniform(lo, hi, size=(3, 5)).astype(np.float32)
    if name == "reciprocal":
        x = np.where(np.abs(x) < 0.1, 0.5, x)
    got = getattr(lax, name)(arr(x, dtype))
    want = UNARY[name](rounded(x, dtype))
    scale = 4 if name in ("tan", "lgamma", "digamma", "erf_inv", "exp2", "cosh", "sinh", "exp") else 1
    close(got, want, dtype, scale)


@pytest.mark.needs_64bit
@pytest.mark.parametrize("name", ["exp", "sin", "tanh", "sqrt", "log1p", "erf"])
def test_unary_float64(name):
    with jax.enable_x64():
        x = RNG.uniform(0.1, 2, size=7)
        got = getattr(lax, name)(jnp.asarray(x))
        assert got.dtype == jnp.float64
        np.testing.assert_allclose(np.asarray(got), UNARY[name](x), rtol=1e-12)


def test_unary_shapes_and_empty():
    for shape in [(), (0,), (2, 0, 3), (1, 1)]:
        x = jnp.zeros(shape)
        assert lax.exp(x).shape == shape and lax.neg(x).shape == shape
    assert lax.sin(1.0).weak_type and lax.sin(1.0).dtype == jnp.float32


def test_unary_special_values():
    x = jnp.asarray([0.0, -0.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(np.signbit(np.asarray(lax.sign(x)))[:2], [False, True])
    np.testing.assert_array_equal(np.asarray(lax.exp(x)), [1, 1, np.inf, 0, np.nan])
    np.testing.assert_array_equal(np.asarray(lax.sqrt(x))[:4], [0, -0.0, np.inf, np.nan])
    np.testing.assert_allclose(np.asarray(lax.logistic(jnp.asarray([-100.0, 100.0, 0.0]))), [0, 1, 0.5], atol=1e-40)
    np.testing.assert_array_equal(np.asarray(lax.erf_inv(jnp.asarray([1.0, -1.0, 1.5]))), [np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(np.asarray(lax.lgamma(jnp.asarray([0.0, -1.0, -np.inf, np.inf]))), [np.inf] * 4)
    np.testing.assert_allclose(np.asarray(lax.lgamma(jnp.asarray([-2.5, 0.5, -0.5]))),
                               [-5.6243896e-02, 0.5723648, 1.2655118], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(lax.digamma(jnp.asarray([0.0, -1.0, -0.0, -2.5, 0.5, 1e-3]))),
                               [np.nan, np.nan, np.nan, 1.1031562, -1.9635100, -1000.5755], rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(lax.acosh(jnp.asarray(0.5))), np.nan)
    np.testing.assert_array_equal(np.asarray(lax.atanh(jnp.asarray([1.0, -1.0]))), [np.inf, -np.inf])
    np.testing.assert_array_equal(np.asarray(lax.cbrt(jnp.asarray(-8.0))), -2.0)
    s = np.asarray(lax.sign(jnp.asarray([np.nan, -np.inf, 3.0])))
    np.testing.assert_array_equal(s, [np.nan, -1, 1])


def test_is_finite():
    x = jnp.asarray([0.0, np.inf, -np.inf, np.nan, 1e38], jnp.float16)
    got = lax.is_finite(x)
    assert got.dtype == jnp.bool_
    np.testing.assert_array_equal(np.asarray(got), [True, False, False, False, False])


# ---------------------------------------------------------------- rounding
def test_round_methods():
    x = jnp.asarray([0.5, 1.5, 2.5, -0.5, -2.5, -0.4, 0.49999997])
    np.testing.assert_array_equal(np.asarray(lax.round(x)), [1, 2, 3, -1, -3, -0.0, 0])
    even = lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    np.testing.assert_array_equal(np.asarray(even), [0, 2, 2, -0.0, -2, -0.0, 0])
    assert np.signbit(np.asarray(lax.round(jnp.asarray(-0.4))))
    np.testing.assert_array_equal(np.asarray(lax.round(x, 1)), np.asarray(even))
    for dt in ("float16", "bfloat16"):
        np.testing.assert_array_equal(host(lax.round(arr([2.5, -3.5], dt))), [3, -4])


def test_nextafter():
    got = lax.nextafter(jnp.float32(0), jnp.float32(1))
    assert float(got) == 1.401298464324817e-45
    f16 = lax.nextafter(arr([0, -0.0, 1, np.inf, 65504, 1], "float16"), arr([-1, 1, 0, 0, np.inf, 1], "float16"))
    np.testing.assert_array_equal(np.asarray(f16).astype(np.float64),
                                  np.float16([-5.960e-08, 5.960e-08, 0.9995117, 65504, np.inf, 1]).astype(np.float64))
    assert float(lax.nextafter(jnp.float16(1), jnp.float16(2))) == float(np.float16(1.000977))
    bf = lax.nextafter(arr([0, 1, -1], "bfloat16"), arr([-1, 2, 2], "bfloat16"))
    np.testing.assert_allclose(host(bf), [-9.18355e-41, 1.0078125, -0.99609375], rtol=1e-6)
    assert np.isnan(float(lax.nextafter(jnp.float32(np.nan), jnp.float32(1))))
    for dt in ("float16", "bfloat16", "float32"):
        z = lax.nextafter(arr([-0.0], dt), arr([0.0], dt))
        assert not np.signbit(host(z))[0]  # equal operands give y
    x = RNG.standard_normal(20).astype(np.float32)
    y = RNG.standard_normal(20).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(lax.nextafter(jnp.asarray(x), jnp.asarray(y))), np.nextafter(x, y))


# ---------------------------------------------------------------- binary float ops
BINARY_F = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
            "rem": np.fmod, "pow": np.power, "max": np.maximum, "min": np.minimum,
            "atan2": np.arctan2}


@pytest.mark.parametrize("dtype", FLOATS + ["float64"])
@pytest.mark.parametrize("name", sorted(BINARY_F))
def test_binary_float(name, dtype):
    with jax.enable_x64(dtype == "float64"):
        x = RNG.uniform(-3, 3, size=(4, 3)).astype(np.float32)
        y = RNG.uniform(-3, 3, size=(4, 3)).astype(np.float32)
        if name == "pow":
            x = np.abs(x) + 0.1
        got = getattr(lax, name)(arr(x, dtype), arr(y, dtype))
        want = BINARY_F[name](rounded(x, dtype), rounded(y, dtype))
        close(got, want, dtype, 8 if name in ("pow", "div", "rem") else 1)


def test_binary_special_values():
    nan, inf = np.nan, np.inf
    mx = lax.max(jnp.asarray([nan, 1.0, -0.0]), jnp.asarray([1.0, nan, 0.0]))
    np.testing.assert_array_equal(np.asarray(mx)[:2], [nan, nan])
    rem = lax.rem(jnp.asarray([-0.0, 5.5, -5.5, 1.0, 1.0]), jnp.asarray([1.0, 2, 2, 0.0, inf]))
    np.testing.assert_array_equal(np.asarray(rem), [-0.0, 1.5, -1.5, nan, 1.0])
    assert np.signbit(np.asarray(rem)[0])
    at = lax.atan2(jnp.asarray([0.0, -0.0, 0.0, -0.0]), jnp.asarray([0.0, 0.0, -0.0, -0.0]))
    np.testing.assert_allclose(np.asarray(at), [0, -0.0, math.pi, -math.pi], rtol=1e-7)
    assert np.signbit(np.asarray(at)[1])
    np.testing.assert_array_equal(np.asarray(lax.div(jnp.asarray([1.0, -1, 0]), 0.0)), [inf, -inf, nan])


def test_pow_and_integer_pow():
    x = jnp.asarray([2.0, -2.0, 0.5, 0.0])
    np.testing.assert_array_equal(np.asarray(lax.pow(x, jnp.asarray([3, 3, -1, -1], jnp.int32))), [8, -8, 2, np.inf])
    np.testing.assert_array_equal(np.asarray(lax.pow(x, 2)), [4, 4, 0.25, 0])
    for y in (0, 1, 2, 3, 7, -1, -3):
        got = lax.integer_pow(x, y)
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(np.asarray(got), np.asarray(x) ** float(y), rtol=1e-6)
    assert int(lax.integer_pow(jnp.int8(3), 5)) == -13  # wraps
    assert int(lax.integer_pow(jnp.int32(-2), 31)) == -2 ** 31
    assert lax.square(jnp.int32(3)).dtype == jnp.int32 and int(lax.square(jnp.int32(3))) == 9
    assert float(lax.reciprocal(jnp.float32(4))) == 0.25
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got integer_pow\(int32\[\], -1\)"):
        lax.integer_pow(jnp.int32(2), -1)
    with pytest.raises(TypeError, match="pow does not accept dtype int32 at position 0"):
        lax.pow(jnp.int32(2), jnp.int32(3))


# ---------------------------------------------------------------- integer ops
def _ints(dtype, shape=(5, 4)):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, endpoint=info.bits < 64, dtype=dtype)


def _trunc_div(a, b):
    a, b = a.astype(np.int64), b.astype(np.int64)
    return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))


INT_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
              "min": np.minimum, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
              "bitwise_xor": np.bitwise_xor}


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_binary_int_wraps(name, dtype):
    x, y = _ints(dtype), _ints(dtype)
    got = getattr(lax, name)(jnp.asarray(x), jnp.asarray(y))
    assert got.dtype == dtype
    np.testing.assert_array_equal(np.asarray(got), INT_BINARY[name](x, y))


@pytest.mark.parametrize("dtype", INTS)
def test_int_div_rem(dtype):
    x, y = _ints(dtype), _ints(dtype)
    y = np.where(y == 0, 1, y).astype(dtype)
    q = np.asarray(lax.div(jnp.asarray(x), jnp.asarray(y)))
    r = np.asarray(lax.rem(jnp.asarray(x), jnp.asarray(y)))
    np.testing.assert_array_equal(q, _trunc_div(x, y).astype(dtype))
    np.testing.assert_array_equal(r, (x.astype(np.int64) - _trunc_div(x, y) * y).astype(dtype))


def test_int_division_edge_cases():
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    np.testing.assert_array_equal(np.asarray(lax.div(i32([7, -7, -2 ** 31]), i32([0, 0, -1]))), [-1, -1, -2 ** 31])
    np.testing.assert_array_equal(np.asarray(lax.rem(i32([-7, -7, -2 ** 31]), i32([0, 3, -1]))), [-7, -1, 0])
    assert int(lax.div(jnp.uint32(7), jnp.uint32(0))) == 2 ** 32 - 1
    assert int(lax.abs(jnp.int8(-128))) == -128 and int(lax.neg(jnp.int8(-128))) == -128
    np.testing.assert_array_equal(np.asarray(lax.sign(i32([-5, 0, 3]))), [-1, 0, 1])
    np.testing.assert_array_equal(np.asarray(lax.sign(jnp.asarray([0, 7], jnp.uint8))), [0, 1])


def test_shifts():
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    np.testing.assert_array_equal(np.asarray(lax.shift_left(i32([1, 1, 1, 3]), i32([32, -1, 31, 2]))),
                                  [0, 0, -2 ** 31, 12])
    np.testing.assert_array_equal(np.asarray(lax.shift_right_arithmetic(i32([-8, -8, 8]), i32([40, 1, 40]))),
                                  [-1, -4, 0])
    np.testing.assert_array_equal(np.asarray(lax.shift_right_logical(i32([-8, -8]), i32([40, 28]))), [0, 15])
    assert int(lax.shift_right_logical(jnp.int8(-128), jnp.int8(1))) == 64
    assert int(lax.shift_left(jnp.uint8(255), jnp.uint8(1))) == 254
    assert int(lax.shift_right_arithmetic(jnp.int8(-128), jnp.int8(7))) == -1
    for dt in INTS:
        x, s = _ints(dt, (6,)), RNG.integers(0, np.iinfo(dt).bits, size=6).astype(dt)
        got = np.asarray(lax.shift_left(jnp.asarray(x), jnp.asarray(s)))
        np.testing.assert_array_equal(got, np.left_shift(x, s))


def test_bit_counts_and_not():
    np.testing.assert_array_equal(np.asarray(lax.clz(jnp.asarray([-1, 0, 1, 64], jnp.int8))), [0, 8, 7, 1])
    assert int(lax.clz(jnp.int32(0))) == 32 and int(lax.clz(jnp.uint8(1))) == 7
    np.testing.assert_array_equal(np.asarray(lax.population_count(jnp.asarray([65535, 0, 5], jnp.uint16))), [16, 0, 2])
    assert int(lax.population_count(jnp.int8(-1))) == 8
    x = _ints("int16", (7,))
    np.testing.assert_array_equal(np.asarray(lax.bitwise_not(jnp.asarray(x))), ~x)
    b = jnp.asarray([True, False])
    np.testing.assert_array_equal(np.asarray(lax.bitwise_not(b)), [False, True])
    np.testing.assert_array_equal(np.asarray(lax.bitwise_xor(b, jnp.asarray([True, True]))), [False, True])


def test_bitwise_with_scalar_one():
    x = jnp.asarray([2, 3, 4], jnp.int32)
    np.testing.assert_array_equal(np.asarray(lax.bitwise_and(x, 1)), [0, 1, 0])
    np.testing.assert_array_equal(np.asarray(lax.bitwise_or(x, 1)), [3, 3, 5])


# ---------------------------------------------------------------- comparisons
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
       "ge": np.greater_equal}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int8", "uint32", "bool"])
@pytest.mark.parametrize("name", sorted(CMP))
def test_comparisons(name, dtype):
    if dtype == "bool":
        x, y = RNG.integers(0, 2, 12).astype(bool), RNG.integers(0, 2, 12).astype(bool)
    elif dtype in INTS:
        x, y = _ints(dtype, (12,)), _ints(dtype, (12,))
        y[:4] = x[:4]
    else:
        x = np.round(RNG.standard_normal(12), 1).astype(np.float32)
        y = np.round(RNG.standard_normal(12), 1).astype(np.float32)
        x[:4], y[:4] = [np.nan, 0.0, -0.0, np.inf], [np.nan, -0.0, 0.0, np.inf]
    got = getattr(lax, name)(arr(x, dtype), arr(y, dtype))
    assert got.dtype == jnp.bool_
    np.testing.assert_array_equal(np.asarray(got), CMP[name](rounded(x, dtype), rounded(y, dtype)))


# ---------------------------------------------------------------- select_n, clamp
def test_select_n():
    cases = [jnp.zeros(4), jnp.ones(4), jnp.full((4,), 2.0)]
    got = lax.select_n(jnp.asarray([0, 1, 2, 1], jnp.int32), *cases)
    np.testing.assert_array_equal(np.asarray(got), [0, 1, 2, 1])
    np.testing.assert_array_equal(np.asarray(lax.select_n(True, *cases[:2])), [1] * 4)
    np.testing.assert_array_equal(np.asarray(lax.select_n(jnp.int32(5), *cases[:2])), [1] * 4)
    got = lax.select(jnp.asarray([True, False, True, False]), jnp.arange(4.0), -jnp.arange(4.0))
    np.testing.assert_array_equal(np.asarray(got), [0, -1, 2, -3])
    with pytest.raises(TypeError, match="select `which` must be boolean or integer type, got float32"):
        lax.select_n(jnp.float32(0), *cases[:2])
    with pytest.raises(TypeError, match=r"`which` shape \(1,\) but case shape \(4,\)"):
        lax.select_n(jnp.asarray([True]), *cases[:2])
    with pytest.raises(TypeError, match="lax.select requires arguments to have the same dtypes, got float32, int32"):
        lax.select_n(True, cases[0], jnp.ones(4, jnp.int32))
    with pytest.raises(TypeError, match="boolean `which` cannot have > 2 cases"):
        lax.select_n(jnp.bool_(True), *cases)


def test_clamp():
    x = jnp.asarray([-1.0, 0.5, 2.0, np.nan])
    np.testing.assert_array_equal(np.asarray(lax.clamp(0.0, x, 1.0))[:3], [0, 0.5, 1])
    got = lax.clamp(jnp.asarray([0.0, 1, 0, 0]), x, jnp.float32(1.5))
    np.testing.assert_array_equal(np.asarray(got)[:3], [0, 1, 1.5])
    assert lax.clamp(jnp.int8(0), jnp.asarray([-5, 5], jnp.int8), jnp.int8(3)).tolist() == [0, 3]
    with pytest.raises(TypeError, match=r"clamp requires min.shape == operand.shape or min.shape == \(\), "
                                        r"got min.shape=\(2,\), operand.shape=\(4,\)"):
        lax.clamp(jnp.zeros(2), x, 1.0)


# ---------------------------------------------------------------- casts
def test_convert_element_type_saturates():
    x = jnp.asarray([np.inf, -np.inf, 2.0 ** 31, -2.0 ** 31 - 1000, 127.9, -128.9, np.nan, -0.7])
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(x, jnp.int8)), [127, -128, 127, -128, 127, -128, 0, 0])
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(x, jnp.int32)),
                                  [2 ** 31 - 1, -2 ** 31, 2 ** 31 - 1, -2 ** 31, 127, -128, 0, 0])
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(x, jnp.uint8)), [255, 0, 255, 0, 127, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(jnp.asarray([300, -1]), jnp.uint8)), [44, 255])
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(jnp.asarray([np.nan, 0.0, -0.0]), jnp.bool_)),
                                  [True, False, False])
    assert float(lax.convert_element_type(jnp.float32(1.00390625), jnp.bfloat16)) == 1.0  # ties to even
    y = lax.convert_element_type(jnp.int32(3), jnp.float32, weak_type=True)
    assert y.weak_type and y.dtype == jnp.float32


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"), ("uint16", "float16"),
                                     ("float16", "int16"), ("bfloat16", "uint16"), ("int8", "uint8")])
def test_bitcast_convert_type(src, dst):
    x = arr(RNG.uniform(-5, 5, 6), src) if src[0] in "fb" else jnp.asarray(_ints(src, (6,)))
    got = lax.bitcast_convert_type(x, dst)
    assert got.dtype == dst
    if src != "bfloat16":
        np.testing.assert_array_equal(np.asarray(got), np.asarray(x).view(dst))
    assert lax.bitcast_convert_type(got, src).tolist() == x.tolist()
    with pytest.raises(NotImplementedError, match="same width"):
        lax.bitcast_convert_type(jnp.float32(1), jnp.int16)


def test_reduce_precision():
    x = jnp.asarray([1.2345678, 1e30, 1e-30, 65520.0, np.nan, -np.inf, -1e-30])
    got = np.asarray(lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10))
    np.testing.assert_array_equal(got, [1.234375, np.inf, 0, np.inf, np.nan, -np.inf, -0.0])
    assert np.signbit(got[-1])
    y = RNG.standard_normal(50).astype(np.float32) * 100
    np.testing.assert_array_equal(np.asarray(lax.reduce_precision(jnp.asarray(y), exponent_bits=5, mantissa_bits=10)),
                                  y.astype(np.float16).astype(np.float32))
    bf = lax.reduce_precision(jnp.asarray([1.2345678, 1e-40, 1e38]), exponent_bits=8, mantissa_bits=7)
    np.testing.assert_allclose(np.asarray(bf), [1.234375, 9.18355e-41, 9.96921e37], rtol=1e-6)


def test_iota_and_copy():
    assert lax.iota(jnp.float32, 4).tolist() == [0, 1, 2, 3]
    assert lax.iota(jnp.int8, 0).shape == (0,)
    assert lax.broadcasted_iota(jnp.int32, (2, 3), 1).tolist() == [[0, 1, 2], [0, 1, 2]]
    assert lax.broadcasted_iota(jnp.bfloat16, (3, 1), 0).tolist() == [[0], [1], [2]]
    assert lax.broadcasted_iota(jnp.uint8, (2, 2), 0).dtype == jnp.uint8
    x = lax.reshape(jnp.arange(6.0), (2, 3))
    assert lax.copy(x).tolist() == x.tolist()
    with pytest.raises(ValueError, match="iota dimension"):
        lax.broadcasted_iota(jnp.int32, (2, 3), 2)


# ---------------------------------------------------------------- errors and scalars
def test_dtype_errors():
    with pytest.raises(TypeError, match="sin does not accept dtype int32"):
        lax.sin(jnp.int32(1))
    with pytest.raises(TypeError, match="is_finite does not accept dtype int32"):
        lax.is_finite(jnp.int32(3))
    with pytest.raises(TypeError, match="abs does not accept dtype uint32"):
        lax.abs(jnp.uint32(3))
    with pytest.raises(TypeError, match="and does not accept dtype float32"):
        lax.bitwise_and(jnp.float32(3), jnp.float32(3))
    with pytest.raises(TypeError, match="shift_left does not accept dtype bool"):
        lax.shift_left(jnp.bool_(True), jnp.bool_(True))
    with pytest.raises(TypeError, match="add does not accept dtype bool"):
        lax.add(jnp.bool_(True), jnp.bool_(True))
    with pytest.raises(TypeError, match="add requires arguments to have the same dtypes, got float32, int32"):
        lax.add(jnp.ones(3), jnp.ones(3, jnp.int32))
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)"):
        lax.add(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match="requires arguments to have the same dtypes, got int32, float32"):
        lax.add(1, 2.0)
    with pytest.raises(TypeError, match="floor does not accept dtype int32"):
        lax.floor(jnp.int32(1))


def test_python_scalar_operands():
    x = jnp.asarray([1, 2], jnp.int8)
    y = lax.add(x, 3)
    assert y.dtype == jnp.int8 and y.tolist() == [4, 5]
    assert lax.mul(2.0, jnp.float16(3)).dtype == jnp.float16
    assert lax.add(jnp.ones(3), jnp.float32(1)).tolist() == [2, 2, 2]
    z = lax.add(1.0, 2.0)
    assert z.weak_type and float(z) == 3.0


# ---------------------------------------------------------------- 64-bit types (x64)
@pytest.mark.needs_64bit
def test_convert_to_64bit_saturates():
    with jax.enable_x64():
        big = jnp.asarray([1e30, -1e30, np.nan])
        assert lax.convert_element_type(big, jnp.int64).tolist() == [2 ** 63 - 1, -2 ** 63, 0]
        assert lax.convert_element_type(big, jnp.uint64).tolist() == [2 ** 64 - 1, 0, 0]


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_int64_ops(dtype):
    with jax.enable_x64():
        x, y = _ints(dtype, (12,)), _ints(dtype, (12,))
        y = np.where(y == 0, 7, y).astype(dtype)
        X, Y = jnp.asarray(x), jnp.asarray(y)
        assert X.dtype == dtype
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(np.asarray(lax.add(X, Y)), x + y)
            np.testing.assert_array_equal(np.asarray(lax.mul(X, Y)), x * y)
        exact_q = [abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1) for a, b in zip(x.tolist(), y.tolist())]
        assert [v % 2 ** 64 for v in np.asarray(lax.div(X, Y)).tolist()] == [v % 2 ** 64 for v in exact_q]
        rem = [a - b * d for a, b, d in zip(x.tolist(), y.tolist(), exact_q)]
        assert [v % 2 ** 64 for v in np.asarray(lax.rem(X, Y)).tolist()] == [v % 2 ** 64 for v in rem]
        s = RNG.integers(0, 64, 12).astype(dtype)
        np.testing.assert_array_equal(np.asarray(lax.shift_left(X, jnp.asarray(s))), np.left_shift(x, s))
        zero = jnp.zeros((), dtype)
        want = -1 if dtype == "int64" else 2 ** 64 - 1
        assert int(lax.div(jnp.asarray(x[:1]), lax.broadcast_in_dim(zero, (1,), ()))[0]) == want


@pytest.mark.needs_64bit
def test_int64_pow_and_float64_cases():
    with jax.enable_x64():
        x = jnp.asarray(np.array([3, -2, 1, -1, 5], np.int64))
        y = jnp.asarray(np.array([40, 63, -5, -3, -1], np.int64))
        got = jnp.power(x, y)  # JAX's jnp.power: binary exponentiation over the exponent's low 6 bits,
        assert got.tolist() == [(3 ** 40) % 2 ** 64 - (2 ** 64 if (3 ** 40) % 2 ** 64 >= 2 ** 63 else 0),
                                -2 ** 63, 1, -1, -5790225837517463603]  # so 5 ** -1 is 5 ** 63 wrapped (JAX 0.10.2)
        f = jnp.asarray(np.array([1.0, 0.0]))
        np.testing.assert_array_equal(np.asarray(lax.nextafter(f, jnp.asarray(np.array([2.0, -1.0])))),
                                      np.nextafter([1.0, 0.0], [2.0, -1.0]))
        r = lax.reduce_precision(jnp.asarray(np.array([1.2345678901234, 1e300])), exponent_bits=8, mantissa_bits=23)
        np.testing.assert_array_equal(np.asarray(r), [np.float64(np.float32(1.2345678901234)), np.inf])
