"""jnp elementwise functions: values against numpy (broadcasting, edge values) and
result dtypes against JAX 0.10's promotion (hard-coded)."""
import math

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp


pytestmark = pytest.mark.on_every_device  # see conftest.py


RNG = np.random.default_rng(1)
nan, inf = np.nan, np.inf


def A(x, dtype=None):
    return jnp.asarray(np.asarray(x, dtype=dtype))


def check(got, want, rtol=1e-6, atol=1e-6):
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64) if got.dtype.kind != "b" else np.asarray(got),
                               want, rtol=rtol, atol=atol, equal_nan=True)


UNARY_F = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos",
           "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
           "arctanh", "deg2rad", "rad2deg", "degrees", "radians", "fabs", "rint", "reciprocal",
           "sinc", "negative", "positive", "absolute", "sign", "floor", "ceil", "trunc", "square",
           "isfinite", "isnan", "isinf", "signbit", "logical_not"]
_DOMAIN = {"log": (0.1, 4), "log2": (0.1, 4), "log10": (0.1, 4), "sqrt": (0, 4), "arcsin": (-1, 1),
           "arccos": (-1, 1), "arccosh": (1, 4), "arctanh": (-0.99, 0.99), "log1p": (-0.9, 3),
           "tan": (-1.2, 1.2)}


@pytest.mark.parametrize("name", UNARY_F)
def test_unary_matches_numpy(name):
    lo, hi = _DOMAIN.get(name, (-3, 3))
    x = RNG.uniform(lo, hi, size=(3, 4)).astype(np.float32)
    x[0, :2] = [0.0, -0.0] if lo < 0 else [lo, hi]
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    check(getattr(jnp, name)(jnp.asarray(x)), want, rtol=3e-6)


@pytest.mark.parametrize("name", ["exp", "sin", "sqrt", "arctan", "log1p", "isnan", "signbit", "trunc"])
def test_unary_special_values(name):
    x = np.float32([nan, inf, -inf, 0.0, -0.0, 1.5, -2.5])
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    got = getattr(jnp, name)(jnp.asarray(x))
    check(got, want)
    if want.dtype.kind == "f":
        keep = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(np.asarray(got))[keep], np.signbit(want)[keep])


BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
          "fmod", "power", "float_power", "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot",
          "logaddexp", "logaddexp2", "copysign", "heaviside", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
          "nextafter"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcasting_float(name):
    x = RNG.uniform(-3, 3, size=(3, 1, 4)).astype(np.float32)
    y = RNG.uniform(-3, 3, size=(2, 1)).astype(np.float32)
    if name in ("power", "float_power"):
        x = np.abs(x) + 0.1
    x[0, 0, :3] = [0.0, nan, inf]
    got = getattr(jnp, name)(jnp.asarray(x), jnp.asarray(y))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x, y)
    check(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "floor_divide", "remainder", "fmod",
                                  "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor",
                                  "left_shift", "right_shift", "equal", "less", "power"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint32"])
def test_binary_int(name, dtype):
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max, size=(4, 5), endpoint=True).astype(dtype)
    y = RNG.integers(info.min, info.max, size=(5,), endpoint=True).astype(dtype)
    if name in ("floor_divide", "remainder", "fmod"):
        y = np.where(y == 0, 3, y).astype(dtype)
    if name in ("left_shift", "right_shift"):
        y = RNG.integers(0, info.bits, size=(5,)).astype(dtype)
    if name == "power":
        x, y = x % 7, (np.abs(y.astype(np.int64)) % 5).astype(dtype)
    got = getattr(jnp, name)(jnp.asarray(x), jnp.asarray(y))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x, y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


def test_floor_divide_and_remainder_semantics():
    a, b = A([7, -7, 7, -7, 0, -2 ** 31], np.int32), A([2, 2, -2, -2, 0, -1], np.int32)
    assert jnp.floor_divide(a, b).tolist() == [3, -4, -4, 3, -1, -2 ** 31]
    assert jnp.remainder(a, b).tolist() == [1, 1, -1, -1, 0, 0]
    assert jnp.fmod(a, b).tolist() == [1, -1, 1, -1, 0, 0]
    assert jnp.floor_divide(A([5, -5], np.int32), 0).tolist() == [-2, -2]
    assert jnp.remainder(A([5, -5], np.int32), 0).tolist() == [0, 0]
    assert jnp.floor_divide(A([5, 7], np.uint8), A([0, 2], np.uint8)).tolist() == [255, 3]
    f = A([7, -7, 7, -7, 0, 5.5, inf, 1], np.float32)
    g = A([2, 2, -2, -2, 0, 0, 2, inf], np.float32)
    check(jnp.floor_divide(f, g), [3, -4, -4, 3, nan, inf, nan, 0])
    check(jnp.remainder(f, g), [1, 1, -1, -1, nan, nan, nan, 1])
    q, r = jnp.divmod(f, g)
    check(q, [3, -4, -4, 3, nan, inf, nan, 0])
    check(r, [1, 1, -1, -1, nan, nan, nan, 1])
    r0 = jnp.remainder(A([-0.0, 0.0, 3.0], np.float32), A([2, -2, -3], np.float32))
    np.testing.assert_array_equal(np.signbit(np.asarray(r0)), [True, False, False])
    assert (A([7, -7]) % 3).tolist() == [1, 2] and (A([7, -7]) // 3).tolist() == [2, -3]


@pytest.mark.parametrize("name,dtypes_", [
    ("add", "i4 u1 b1 f2 bf16 i4* f4*"), ("subtract", "i4 u1 ERR f2 bf16 i4* f4*"),
    ("multiply", "i4 u1 b1 f2 bf16 i4* f4*"), ("true_divide", "f4 f4 f4 f2 bf16 f4* f4*"),
    ("floor_divide", "i4 u1 i4 f2 bf16 i4* f4*"), ("remainder", "i4 u1 i4 f2 bf16 i4* f4*"),
    ("power", "i4 u1 i4 f2 bf16 i4* f4*"), ("float_power", "f4 f4 f4 f2 bf16 f4* f4*"),
    ("maximum", "i4 u1 b1 f2 bf16 i4* f4*"), ("arctan2", "f4 f4 f4 f2 bf16 f4* f4*"),
    ("hypot", "f4 f4 f4 f2 bf16 f4* f4*"), ("equal", "b1 b1 b1 b1 b1 b1* b1*"),
    ("logical_and", "b1 b1 b1 b1 b1 b1* b1*"), ("bitwise_and", "i4 u1 b1 ERR ERR i4* ERR"),
    ("left_shift", "i4 u1 i4 ERR ERR i4* ERR"), ("copysign", "f4 f4 f4 f2 bf16 f4* f4*"),
])
def test_binary_result_dtypes(name, dtypes_):
    _check_dtypes(lambda v: getattr(jnp, name)(v, v), dtypes_)


@pytest.mark.parametrize("name,dtypes_", [
    ("sin", "f4 f4 f4 f2 bf16 f4* f4*"), ("negative", "i4 u1 ERR f2 bf16 i4* f4*"),
    ("abs", "i4 u1 b1 f2 bf16 i4* f4*"), ("fabs", "f4 f4 f4 f2 bf16 f4* f4*"),
    ("floor", "i4 u1 b1 f2 bf16 i4* f4*"), ("trunc", "i4 u1 b1 f2 bf16 i4* f4*"),
    ("rint", "f4 f4 f4 f2 bf16 f4 f4*"), ("square", "i4 u1 i4 f2 bf16 i4* f4*"),
    ("reciprocal", "f4 f4 f4 f2 bf16 f4* f4*"), ("sign", "i4 u1 ERR f2 bf16 i4* f4*"),
    ("isnan", "b1 b1 b1 b1 b1 b1* b1*"), ("bitwise_count", "u1 u1 u1 ERR ERR u1 ERR"),
    ("invert", "i4 u1 b1 ERR ERR i4* ERR"), ("real", "i4 u1 b1 f2 bf16 i4* f4*"),
    ("imag", "i4 u1 b1 f2 bf16 i4* f4*"), ("nan_to_num", "i4 u1 b1 f2 bf16 i4* f4"),
])
def test_unary_result_dtypes(name, dtypes_):
    _check_dtypes(getattr(jnp, name), dtypes_)


_INPUTS = [lambda: jnp.int32(3), lambda: jnp.uint8(3), lambda: jnp.bool_(True), lambda: jnp.float16(3),
           lambda: jnp.bfloat16(3), lambda: 3, lambda: 3.0]
_NAMES = {"b1": "bool", "u1": "uint8", "i4": "int32", "f2": "float16", "bf16": "bfloat16", "f4": "float32"}


def _check_dtypes(fn, spec):
    for make, want in zip(_INPUTS, spec.split()):
        if want == "ERR":
            with pytest.raises(TypeError):
                fn(make())
            continue
        out = fn(make())
        assert out.dtype == _NAMES[want.rstrip("*")], (make(), want, out.dtype)
        if want.endswith("*") and want.rstrip("*") != "b1":
            assert out.weak_type, (make(), want)


def test_power_cases():
    assert jnp.power(A([2, 3, -2], np.int32), A([10, 0, 3], np.int32)).tolist() == [1024, 1, -8]
    assert jnp.power(A([2, -1, 1, 0], np.int32), A([-1, -3, -2, -1], np.int32)).tolist() == [0, -1, 1, 0]
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        jnp.power(jnp.int32(2), -1)
    assert float(jnp.power(jnp.float32(2), jnp.int32(3))) == 8.0
    assert abs(float(jnp.power(jnp.int32(3), 2.5)) - 15.588457) < 1e-5
    assert int(jnp.power(2, jnp.int8(3))) == 8
    check(jnp.power(A([0.5, 2.0, -2.0]), 3), [0.125, 8, -8])
    assert (A([2.0]) ** 2).tolist() == [4.0]


def test_round_and_rint():
    x = A([0.5, 1.5, 2.675, -0.5, 1234.5678], np.float32)
    check(jnp.round(x, 2), [0.5, 1.5, 2.6799998, -0.5, 1234.5699], rtol=1e-7)
    check(jnp.round(x), [0, 2, 3, -0.0, 1235])
    check(jnp.round(A([1234.5678], np.float32), -2), [1200])
    assert jnp.round(A([15, 25], np.int32)).tolist() == [15, 25]
    with pytest.raises(NotImplementedError):
        jnp.round(A([15], np.int32), -1)
    check(jnp.rint(A([0.5, 1.5, -2.5])), [0, 2, -2])
    check(jnp.around(A([2.5])), [2])


def test_composites():
    check(jnp.hypot(A([3, 0, inf, nan, 1e30], np.float32), A([4, 0, nan, inf, 1e30], np.float32)),
          [5, 0, inf, inf, 1.4142135e30])
    check(jnp.logaddexp(A([1, -inf, inf, inf], np.float32), A([2, -inf, inf, -inf], np.float32)),
          [2.3132617, -inf, inf, inf])
    check(jnp.logaddexp2(A([1, -inf], np.float32), A([2, -inf], np.float32)), [2.5849625, -inf])
    check(jnp.fmax(A([1, nan, nan]), A([nan, 2, nan])), [1, 2, nan])
    check(jnp.fmin(A([1, nan, nan]), A([nan, 2, nan])), [1, 2, nan])
    check(jnp.heaviside(A([-1, 0, 2, nan], np.float32), 0.5), [0, 0.5, 1, nan])
    check(jnp.sinc(A([0, 0.5, 1], np.float32)), [1, 0.63661975, 0], atol=1e-7)
    np.testing.assert_array_equal(np.asarray(jnp.signbit(A([-0.0, 0.0, -nan, -1], np.float32))),
                                  [True, False, True, True])
    check(jnp.copysign(A([1, 2], np.float32), A([-0.0, nan], np.float32)), [-1, 2])
    assert jnp.signbit(A([-3, 3], np.int32)).tolist() == [True, False]
    assert jnp.isposinf(A([inf, -inf, 1])).tolist() == [True, False, False]
    assert jnp.isneginf(A([inf, -inf, 1])).tolist() == [False, True, False]
    assert jnp.isinf(A([1, 2], np.int32)).tolist() == [False, False]
    assert jnp.bitwise_count(A([-1, 7, -8], np.int32)).tolist() == [1, 3, 1]
    assert jnp.right_shift(jnp.int8(-8), 1).tolist() == -4
    assert jnp.right_shift(jnp.uint8(200), jnp.uint8(1)).tolist() == 100
    assert jnp.left_shift(jnp.int32(1), 33).tolist() == 0
    assert jnp.logical_not(A([0.0, 2.0])).tolist() == [True, False]
    assert jnp.add(A([True, True]), A([True, False])).tolist() == [True, True]
    assert jnp.multiply(A([True, True]), A([True, False])).tolist() == [True, False]


def test_nan_to_num():
    check(jnp.nan_to_num(A([nan, inf, -inf, 1], np.float32)), [0, 3.4028235e38, -3.4028235e38, 1], rtol=1e-7)
    got = jnp.nan_to_num(A([nan, inf, -inf, 1], np.float16), nan=2.0, posinf=5)
    assert got.dtype == jnp.float16
    check(got, [2, 5, -65504, 1])
    assert jnp.nan_to_num(A([1, 2], np.int32)).tolist() == [1, 2]


def test_where_and_clip():
    got = jnp.where(A([True, False]), 1, 2.5)
    assert got.dtype == jnp.float32 and got.weak_type and got.tolist() == [1, 2.5]
    got = jnp.where(A([3, 0], np.int32), jnp.int8(1), 2)
    assert got.dtype == jnp.int8 and got.tolist() == [1, 2]
    c = RNG.standard_normal((3, 1)) > 0
    x, y = RNG.standard_normal((1, 4)).astype(np.float32), np.float32(7)
    check(jnp.where(jnp.asarray(c), jnp.asarray(x), y), np.where(c, x, y))
    with pytest.raises(TypeError, match="where requires ndarray or scalar arguments"):
        jnp.where(A([True]), 1)  # JAX 0.10: None is rejected as a non-array operand
    check(jnp.clip(A([1, 5, nan], np.float32), 2, 4), [2, 4, nan])
    got = jnp.clip(A([1, 5], np.int32), 2.5, 4)
    assert got.dtype == jnp.float32 and got.tolist() == [2.5, 4]
    assert jnp.clip(A([1, 5], np.int32), max=3).tolist() == [1, 3]
    assert jnp.clip(A([1, 5], np.int32), min=3).tolist() == [3, 5]
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    lo, hi = np.float32(-0.5), RNG.uniform(0, 1, 3).astype(np.float32)
    check(jnp.clip(jnp.asarray(x), lo, jnp.asarray(hi)), np.clip(x, lo, hi))


def test_isclose_family():
    got = jnp.isclose(A([1, inf, nan, inf], np.float32), A([1.00001, inf, nan, -inf], np.float32))
    assert got.tolist() == [False, True, False, False]
    assert jnp.isclose(A([nan], np.float32), A([nan], np.float32), equal_nan=True).tolist() == [True]
    assert jnp.isclose(A([1, 2], np.int32), A([2, 2], np.int32), atol=1).tolist() == [True, True]
    x = RNG.standard_normal((3, 4))
    y = x + RNG.choice([0, 1e-9, 1e-3], size=x.shape)
    np.testing.assert_array_equal(np.asarray(jnp.isclose(jnp.asarray(x), jnp.asarray(y))),
                                  np.isclose(x.astype(np.float32), y.astype(np.float32)))
    assert bool(jnp.allclose(A([1.0, 2]), A([1.0, 2.000001])))
    assert not bool(jnp.allclose(A([1.0, 2]), A([1.0, 2.1])))
    assert bool(jnp.array_equal(A([1, nan]), A([1, nan]), equal_nan=True))
    assert not bool(jnp.array_equal(A([1, nan]), A([1, nan])))
    assert not bool(jnp.array_equal(A([1.0, 2]), A([1.0, 2, 3])))
    assert bool(jnp.array_equiv(A([1.0, 1.0]), 1))
    assert not bool(jnp.array_equiv(A([1.0, 2.0]), A([1.0, 2.0, 3.0])))


def test_astype_and_complex_parts():
    assert jnp.astype(A([1.7, -1.7, nan], np.float32), jnp.int32).tolist() == [1, -1, 0]
    assert jnp.astype(A([1.7, 0, nan], np.float32), bool).tolist() == [True, False, True]
    x = A([1.5, -2.0])
    assert jnp.real(x).tolist() == [1.5, -2.0] and jnp.imag(x).tolist() == [0, 0]
    assert jnp.conj(x).tolist() == [1.5, -2.0] and jnp.conjugate(x).tolist() == [1.5, -2.0]
    assert not jnp.iscomplexobj(x) and jnp.isrealobj(x)


def test_errors():
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)"):
        jnp.add(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError):
        jnp.add(jnp.ones(3), "a")
    with pytest.raises(TypeError, match="does not accept dtype float32"):
        jnp.bitwise_and(jnp.float32(1), 1)
    with pytest.raises(TypeError, match="sub does not accept dtype bool"):
        jnp.subtract(jnp.bool_(True), jnp.bool_(True))


def test_empty_and_scalar_inputs():
    e = jnp.zeros((0, 3))
    assert jnp.add(e, 1.0).shape == (0, 3) and jnp.sin(e).shape == (0, 3)
    assert jnp.floor_divide(e, jnp.ones(3)).shape == (0, 3)
    assert float(jnp.exp(0)) == 1.0 and jnp.exp(0).dtype == jnp.float32
    assert math.isclose(float(jnp.arctan2(1, 1)), math.pi / 4, rel_tol=1e-6)


def test_fmax_fmin_gradient_at_ties_goes_to_the_second_operand():
    # as JAX (a select, not max's even split): d/dx = 0, d/dy = 1 at x == y
    for fn in (jnp.fmax, jnp.fmin):
        gx, gy = jax.grad(fn, argnums=(0, 1))(1.0, 1.0)
        assert (float(gx), float(gy)) == (0.0, 1.0)
