"""Elementwise activation functions of `jax.nn` (relu, gelu, silu, elu, softplus, ...).

Each follows JAX's definition operation for operation, so values, dtypes and weak
types agree (a Python float in gives a weakly typed float32 out). Where JAX pins a
derivative with `custom_jvp` (relu and relu6 at their kinks) so does this module;
the others are differentiated through their lax definitions, as in JAX.
"""
from __future__ import annotations

__all__ = ["identity", "relu", "relu6", "squareplus", "softplus", "sparse_plus", "soft_sign",
           "sigmoid", "sparse_sigmoid", "silu", "swish", "mish", "log_sigmoid", "elu",
           "leaky_relu", "hard_tanh", "celu", "selu", "gelu", "glu", "hard_sigmoid",
           "hard_silu", "hard_swish", "log1mexp", "tanh"]

import math
from typing import Any

from ... import numpy as jnp
from ..custom_derivatives import custom_jvp
from ..lax import elementwise as lax
from .util import ensure_arraylike, promote_args_inexact

Array = Any

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946

tanh = jnp.tanh


def identity(x: Array) -> Array:
    """`jax.nn.identity`: x unchanged (as an array)."""
    return ensure_arraylike("identity", x)


@custom_jvp
def relu(x: Array) -> Array:
    """`jax.nn.relu`: max(x, 0); its derivative at 0 is 0, as JAX chooses."""
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(jnp.greater(x, 0), g, lax.full_like(g, 0)))


@custom_jvp
def relu6(x: Array) -> Array:
    """`jax.nn.relu6`: min(max(x, 0), 6); derivative 0 at both kinks."""
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select(
    jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6)), g, lax.full_like(g, 0)))


def squareplus(x: Array, b: Array = 4) -> Array:
    """`jax.nn.squareplus`: (x + sqrt(x² + b)) / 2, a smooth relu."""
    x, b = ensure_arraylike("squareplus", x, b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


def softplus(x: Array) -> Array:
    """`jax.nn.softplus`: log(1 + exp(x)), as logaddexp(x, 0) (stable for large |x|)."""
    return jnp.logaddexp(x, 0)


def sparse_plus(x: Array) -> Array:
    """`jax.nn.sparse_plus`: 0 below -1, (x+1)²/4 on (-1, 1), x above 1."""
    x = ensure_arraylike("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def soft_sign(x: Array) -> Array:
    """`jax.nn.soft_sign`: x / (|x| + 1)."""
    x = ensure_arraylike("soft_sign", x)
    return x / (jnp.abs(x) + 1)


def sigmoid(x: Array) -> Array:
    """`jax.nn.sigmoid`: the logistic function (lax.logistic: floats only, as in JAX)."""
    return lax.logistic(x)


def sparse_sigmoid(x: Array) -> Array:
    """`jax.nn.sparse_sigmoid`: clip((x + 1) / 2, 0, 1), the derivative of sparse_plus."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


def silu(x: Array) -> Array:
    """`jax.nn.silu` (= swish): x * sigmoid(x)."""
    x = ensure_arraylike("silu", x)
    return x * sigmoid(x)


swish = silu


def mish(x: Array) -> Array:
    """`jax.nn.mish`: x * tanh(softplus(x))."""
    x = ensure_arraylike("mish", x)
    return x * jnp.tanh(softplus(x))


def log_sigmoid(x: Array) -> Array:
    """`jax.nn.log_sigmoid`: -softplus(-x), accurate for large |x|."""
    x = ensure_arraylike("log_sigmoid", x)
    return -softplus(-x)


def elu(x: Array, alpha: Array = 1.0) -> Array:
    """`jax.nn.elu`: x above 0, alpha * expm1(x) at or below (expm1 only sees x <= 0, so
    its gradient stays finite for large x)."""
    x = ensure_arraylike("elu", x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


def leaky_relu(x: Array, negative_slope: Array = 0.01) -> Array:
    """`jax.nn.leaky_relu`: x for x >= 0, negative_slope * x below."""
    x = ensure_arraylike("leaky_relu", x)
    return jnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x: Array) -> Array:
    """`jax.nn.hard_tanh`: x clipped to [-1, 1]."""
    x = ensure_arraylike("hard_tanh", x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


def celu(x: Array, alpha: Array = 1.0) -> Array:
    """`jax.nn.celu`: max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


def selu(x: Array) -> Array:
    """`jax.nn.selu`: scale * elu(x, alpha) with the self-normalizing constants."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def gelu(x: Array, approximate: bool = True) -> Array:
    """`jax.nn.gelu`: x * Phi(x); with `approximate` (JAX's default) the tanh formula
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x³))), else exactly x/2 erfc(-x/sqrt 2)."""
    (x,) = promote_args_inexact("gelu", x)
    if approximate:
        c = lax.convert_element_type(math.sqrt(2 / math.pi), jnp.dtype(x.dtype))
        cdf = 0.5 * (1.0 + jnp.tanh(c * (x + 0.044715 * x ** 3)))
        return x * cdf
    half = lax.convert_element_type(math.sqrt(0.5), jnp.dtype(x.dtype))
    return jnp.asarray(0.5 * x * lax.erfc(-x * half), dtype=x.dtype)


def glu(x: Array, axis: int = -1) -> Array:
    """`jax.nn.glu`: split x in two halves along `axis`; first * sigmoid(second)."""
    x = ensure_arraylike("glu", x)
    size = x.shape[axis]
    assert size % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


def hard_sigmoid(x: Array) -> Array:
    """`jax.nn.hard_sigmoid`: relu6(x + 3) / 6."""
    return relu6(x + 3.0) / 6.0


def hard_silu(x: Array) -> Array:
    """`jax.nn.hard_silu` (= hard_swish): x * hard_sigmoid(x)."""
    x = ensure_arraylike("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@custom_jvp
def log1mexp(x: Array) -> Array:
    """`jax.nn.log1mexp`: log(1 - exp(-x)), switching between log(-expm1(-x)) and
    log1p(-exp(-x)) at log 2 for accuracy; derivative 1 / expm1(x)."""
    x = ensure_arraylike("log1mexp", x)
    c = math.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))
