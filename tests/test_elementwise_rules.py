"""Transformation rules of the elementwise primitives: jvp vs finite differences,
vjp vs jvp (dot-product test), vmap vs a Python loop, and JAX's derivative values at
non-smooth points (hard-coded from JAX 0.10)."""
import math
import os
import sys

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb._src.dtypes import float0

sys.path.insert(0, os.path.dirname(__file__))
from rule_checker import check_grads, check_vmap  # noqa: E402


pytestmark = pytest.mark.on_every_device  # see conftest.py


RNG = np.random.default_rng(3)


def rand(lo, hi, shape=(2, 3)):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


# name -> (domain of the argument, whether to check second derivatives)
UNARY = {
    "exp": (-2, 2), "exp2": (-2, 2), "log": (0.5, 3), "log1p": (-0.5, 3), "expm1": (-2, 2),
    "sqrt": (0.5, 3), "rsqrt": (0.5, 3), "cbrt": (0.5, 3), "sin": (-3, 3), "cos": (-3, 3),
    "tan": (-1, 1), "asin": (-0.8, 0.8), "acos": (-0.8, 0.8), "atan": (-3, 3), "sinh": (-2, 2),
    "cosh": (-2, 2), "tanh": (-2, 2), "asinh": (-3, 3), "acosh": (1.5, 3), "atanh": (-0.8, 0.8),
    "erf": (-2, 2), "erfc": (-2, 2), "erf_inv": (-0.8, 0.8), "lgamma": (0.5, 4),
    "digamma": (0.5, 4), "logistic": (-3, 3), "neg": (-3, 3), "abs": (0.5, 3), "square": (-2, 2),
    "reciprocal": (0.5, 3), "copy": (-2, 2),
}
SECOND_ORDER = {"exp", "log", "sin", "tanh", "sqrt", "logistic", "erf", "atan", "square", "lgamma"}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grads(name):
    lo, hi = UNARY[name]
    fn = getattr(lax, name)
    check_grads(fn, (rand(lo, hi),), order=2 if name in SECOND_ORDER else 1, rtol=2e-2, atol=2e-2)


def test_digamma_negative_arguments():
    check_grads(lax.digamma, (np.float32([-2.5, -0.7, -1.3]),), order=1, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("name", sorted(UNARY) + ["floor", "ceil", "round", "sign", "is_finite"])
@pytest.mark.parametrize("axis", [0, 1])
def test_unary_vmap(name, axis):
    lo, hi = UNARY.get(name, (-3, 3))
    check_vmap(getattr(lax, name), (rand(lo, hi, (3, 4)),), in_axes=(axis,))


BINARY = {"add": ((-2, 2), (-2, 2)), "sub": ((-2, 2), (-2, 2)), "mul": ((-2, 2), (-2, 2)),
          "div": ((-2, 2), (0.5, 2)), "pow": ((0.5, 2), (-2, 2)), "atan2": ((-2, 2), (0.5, 2)),
          "rem": ((2.1, 2.9), (1.1, 1.9)), "max": ((-2, 2), (-2, 2)), "min": ((-2, 2), (-2, 2))}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grads(name):
    (a, b), (c, d) = BINARY[name]
    check_grads(getattr(lax, name), (rand(a, b), rand(c, d)), order=2 if name in ("mul", "div", "pow") else 1,
                rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name", sorted(BINARY) + ["eq", "lt", "ge", "nextafter"])
@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 1), (1, 0)])
def test_binary_vmap(name, in_axes):
    (a, b), (c, d) = BINARY.get(name, ((-2, 2), (-2, 2)))
    x = rand(a, b, (3, 3)) if in_axes[0] is not None else rand(a, b, (3,))
    y = rand(c, d, (3, 3)) if in_axes[1] is not None else rand(c, d, (3,))
    check_vmap(getattr(lax, name), (x, y), in_axes=in_axes)


@pytest.mark.parametrize("in_axes", [(0, 0), (None, 1), (1, None)])
def test_integer_ops_vmap(in_axes):
    x = RNG.integers(-50, 50, (4, 4)).astype(np.int32) if in_axes[0] is not None else \
        RNG.integers(-50, 50, (4,)).astype(np.int32)
    y = RNG.integers(1, 9, (4, 4)).astype(np.int32) if in_axes[1] is not None else \
        RNG.integers(1, 9, (4,)).astype(np.int32)
    for fn in (lax.div, lax.rem, lax.bitwise_and, lax.bitwise_xor, lax.shift_left,
               lax.shift_right_arithmetic):
        check_vmap(fn, (x, y), in_axes=in_axes)
    check_vmap(lax.population_count, (x if in_axes[0] is not None else y,), in_axes=(in_axes[0] or 0,))


def test_integer_pow_grads_and_vmap():
    for y in (0, 1, 2, 3, -1, -2):
        check_grads(lambda x, y=y: lax.integer_pow(x, y), (rand(0.5, 2),), order=2, rtol=2e-2, atol=2e-2)
    check_vmap(lambda x: lax.integer_pow(x, 3), (rand(-2, 2, (3, 2)),), in_axes=(1,))


def test_select_n_rules():
    which = RNG.integers(0, 3, (2, 3)).astype(np.int32)
    cases = [rand(-2, 2) for _ in range(3)]
    check_grads(lambda a, b, c: lax.select_n(which, a, b, c), cases, order=1)
    pred = RNG.integers(0, 2, (2, 3)).astype(bool)
    check_grads(lambda a, b: lax.select(pred, a, b), cases[:2], order=1)
    check_vmap(lax.select_n, (which, *cases), in_axes=(0, 0, 0, 0))
    sq_which = RNG.integers(0, 3, (3, 3)).astype(np.int32)
    sq = [rand(-2, 2, (3, 3)) for _ in range(3)]
    check_vmap(lax.select_n, (sq_which, sq[0][0], sq[1], sq[2]), in_axes=(1, None, 1, 0))
    scalar_pred = np.array([True, False, True])
    check_vmap(lambda p, a, b: lax.select_n(p, a, b), (scalar_pred, rand(-1, 1, (3, 2)), rand(-1, 1, (3, 2))),
               in_axes=(0, 0, 0))
    check_vmap(lambda p, a, b: lax.select_n(p, a, b), (scalar_pred, rand(-1, 1, (2,)), rand(-1, 1, (3, 2))),
               in_axes=(0, None, 0))


def test_clamp_rules():
    x = np.float32([[-1.5, 0.2, 0.7], [1.5, -0.3, 0.9]])
    check_grads(lambda x: lax.clamp(-0.5, x, 1.0), (x,), order=1)
    lo, hi = np.float32([-1.0, 0.0, 0.5]), np.float32(0.8)
    check_grads(lambda lo, x: lax.clamp(lo, x, hi), (lo, x[0]), order=1)
    check_vmap(lambda lo, x, hi: lax.clamp(lo, x, hi), (rand(-1, -0.2, (3,)), rand(-2, 2, (3, 4)), np.float32(1.0)),
               in_axes=(0, 0, None))
    check_vmap(lambda x: lax.clamp(-0.5, x, 0.5), (rand(-2, 2, (3, 4)),), in_axes=(1,))


def test_convert_and_reduce_precision_rules():
    x = rand(-2, 2)
    check_grads(lambda x: lax.convert_element_type(x, jnp.float16), (x,), order=1, rtol=5e-2, atol=5e-2)
    check_grads(lambda x: lax.reduce_precision(x, exponent_bits=8, mantissa_bits=23), (x,), order=1)
    check_vmap(lambda x: lax.convert_element_type(x, jnp.int32), (rand(-5, 5, (3, 2)),), in_axes=(1,))
    check_vmap(lambda x: lax.bitcast_convert_type(x, jnp.int32), (rand(-5, 5, (3, 2)),), in_axes=(0,))
    _, t = jax.jvp(lambda x: lax.convert_element_type(x, jnp.int32), (jnp.float32(1.5),), (jnp.float32(1.0),))
    assert t.dtype == float0


def test_derivatives_at_nonsmooth_points():
    g = lambda f, x: float(jax.grad(f)(jnp.float32(x)))  # noqa: E731
    assert g(lax.abs, 0.0) == 1.0
    assert g(lambda x: lax.max(x, 0.0), 0.0) == 0.5
    assert g(lambda x: lax.min(x, 0.0), 0.0) == 0.5
    assert g(lax.sqrt, 0.0) == math.inf
    assert g(lax.cbrt, 0.0) == math.inf
    assert g(lax.sign, 0.0) == 0.0
    assert g(lax.round, 1.0) == 0.0 and g(lax.floor, 1.5) == 0.0 and g(lax.ceil, 1.5) == 0.0
    assert g(lambda x: lax.integer_pow(x, 0), 2.0) == 0.0
    assert math.isnan(g(lambda x: lax.pow(x, 0.0), 0.0))
    assert g(lambda y: lax.pow(jnp.float32(0.0), y), 2.0) == 0.0
    assert g(lambda x: lax.pow(x, 2.0), 0.0) == 0.0
    assert g(lambda x: lax.clamp(0.0, x, 1.0), 1.0) == 0.0 and g(lambda x: lax.clamp(0.0, x, 1.0), 0.0) == 0.0
    assert g(lambda y: lax.rem(jnp.float32(7.0), y), 3.0) == -2.0
    assert g(lambda y: lax.rem(jnp.float32(-7.0), y), 3.0) == 2.0
    assert g(lax.logistic, 0.0) == 0.25
    assert abs(g(lax.erf_inv, 0.5) - 1.112585) < 1e-5
    assert abs(g(lax.digamma, 2.5) - 0.49035776) < 1e-5
    assert abs(g(lax.acosh, 2.0) - 0.57735026) < 1e-6
    assert abs(g(lax.atanh, 0.5) - 1.3333334) < 1e-6
    assert g(lambda x: lax.convert_element_type(lax.convert_element_type(x, jnp.int32), jnp.float32), 1.0) == 0.0


def test_jnp_functions_differentiate():
    x = rand(0.5, 2)
    for fn in (jnp.hypot, jnp.logaddexp, jnp.arctan2, jnp.true_divide, jnp.power, jnp.copysign):
        check_grads(fn, (x, rand(0.5, 2)), order=1, rtol=2e-2, atol=2e-2)
    for fn in (jnp.sinc, jnp.log2, jnp.deg2rad, jnp.nan_to_num, jnp.square, jnp.fabs):
        check_grads(fn, (x,), order=1, rtol=2e-2, atol=2e-2)
    check_grads(lambda x: jnp.clip(x, 0.8, 1.5), (x,), order=1)
    assert float(jax.grad(jnp.sinc)(jnp.float32(0.0))) == 0.0
    assert float(jax.grad(jnp.logaddexp)(jnp.float32(1.0), jnp.float32(1.0))) == 0.5
    check_vmap(lambda a, b: jnp.where(a > 0, a, b), (rand(-1, 1, (3, 2)), rand(-1, 1, (2,))), in_axes=(0, None))
