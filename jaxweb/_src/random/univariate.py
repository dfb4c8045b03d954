"""Samplers that transform uniforms or normals elementwise, each with JAX's formula:
exponential, laplace, logistic, gumbel, cauchy, pareto, weibull_min, rayleigh, wald,
triangular, lognormal, maxwell, double_sided_maxwell, rademacher, geometric.

The arithmetic follows JAX's expressions term by term; where XLA on CPU fuses a
product into a following sum, `fma` does the same so that the rounding matches.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import jaxweb.numpy as jnp

from .. import core, dtypes, config
from ..lax import _modules as lax
from . import xla_math
from .floats import _normal_real, _normal_unscaled, _uniform, bernoulli
from .keys import PRNGKeyArray
from .prng import check_prng_key, internal_split, random_bits
from .util import (jit, canonicalize_shape, check_all_safe_to_cast, check_broadcast_shapes,
                   check_float_dtype, check_shape, user_dtype)

Shape = Sequence[int]
fma = xla_math.fma


def _float_sampler(name: str, body: Callable, doc: str) -> Callable:
    """The public wrapper of a parameterless float sampler `name(key, shape=(), dtype=None)`."""
    jitted = jit(body, static_argnums=(1, 2))

    def sampler(key: Any, shape: Shape = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
        key, _ = check_prng_key(name, key)
        dtype = user_dtype(float if dtype is None else dtype)
        check_float_dtype(name, dtype)
        return jitted(key, canonicalize_shape(shape), dtype)

    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = doc
    return sampler


def _exponential(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    check_shape("exponential", shape)
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    return lax.neg(xla_math.log1p(lax.neg(u)))  # log of 1 - u in (0, 1]


def _laplace(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    check_shape("laplace", shape)
    u = _uniform(key, -1.0 + dtypes.finfo(dtype).epsneg, 1.0, shape, dtype)
    return lax.mul(lax.sign(u), xla_math.log1p(lax.neg(lax.abs(u))))


def _logistic(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    check_shape("logistic", shape)
    x = _uniform(key, dtypes.finfo(dtype).tiny, 1.0, shape, dtype)
    return lax.sub(xla_math.log(x), xla_math.log1p(lax.neg(x)))


def _cauchy(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    check_shape("cauchy", shape)
    u = _uniform(key, dtypes.finfo(dtype).eps, 1.0, shape, dtype)
    return lax.tan(lax.mul(math.pi, lax.sub(u, 0.5)))


exponential = _float_sampler("exponential", _exponential,
                             "Exponential(1) random values: -log(1 - u) for uniform u.")
laplace = _float_sampler("laplace", _laplace, "Laplace(0, 1) random values.")
logistic = _float_sampler("logistic", _logistic, "Standard logistic random values.")
cauchy = _float_sampler("cauchy", _cauchy, "Standard Cauchy random values: tan(pi (u - 1/2)).")


# ---------------------------------------------------------------- gumbel
def _safe_int_to_float(hi: Any, lo: Any) -> Any:
    """Two uint32 words as a 64-bit fixed-point fraction in (0, 1), rounded down to float32
    keeping the leading one bit wherever it is (JAX's mode="highest")."""
    fi = dtypes.finfo(dtypes.float32)
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    hi_zero = lax.eq(hiclz, 32)
    mantissa = lax.bitwise_or(lax.shift_left(hi, hiclz),
                              lax.select(hi_zero, lax.shift_left(lo, loclz),
                                         lax.shift_right_logical(lo, lax.sub(32, hiclz))))
    mantissa = lax.shift_right_logical(mantissa, fi.bits - fi.nmant - 1)
    mantissa = lax.bitwise_and(mantissa, (1 << fi.nmant) - 1)
    lead = lax.select(hi_zero, lax.add(loclz, 32), hiclz)
    exp = lax.shift_left(lax.sub(-fi.minexp, lead), fi.nmant)
    exp = lax.bitwise_and(exp, (1 << (fi.bits - 2)) - (1 << (fi.nmant - 1)))
    return lax.bitcast_convert_type(lax.bitwise_or(exp, mantissa), dtypes.float32)


def _gumbel_highest_f32(key: PRNGKeyArray, shape: tuple[int, ...]) -> Any:
    bits = random_bits(key, 32, (2, *shape))
    hi, lo = bits[0], bits[1]
    nhi, nlo = lax.bitwise_not(hi), lax.bitwise_not(lo)
    # 1 - bits in 64-bit fixed point: ~bits + 1, carrying into the high word.
    carry = lax.convert_element_type(lax.eq(nlo, 0xFFFFFFFF), dtypes.uint32)
    nhi, nlo = lax.add(nhi, carry), lax.add(nlo, 1)
    flip = lax.lt(hi, 1 << 31)
    x = _safe_int_to_float(lax.select(flip, hi, nhi), lax.select(flip, lo, nlo))
    return lax.select(flip, lax.neg(xla_math.log(lax.neg(xla_math.log1p(lax.neg(x))))),
                      lax.neg(xla_math.log(lax.neg(xla_math.log(x)))))


@jit(static_argnums=(1, 2, 3))
def _gumbel(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType, mode: str) -> Any:
    check_shape("gumbel", shape)
    fi = dtypes.finfo(dtype)
    if dtype == dtypes.float32 and mode == "highest":
        return _gumbel_highest_f32(key, shape)
    if mode in ("high", "highest"):
        u = _uniform(key, 0.0, 1.0, (2, *shape), dtype)
        high, low = u[0], u[1]
        x = lax.select(lax.ge(high, 0.5), high,
                       lax.add(fma(lax.full(shape, 2.0 ** -fi.nmant, dtype), low, high), fi.tiny))
        return lax.neg(xla_math.log(lax.neg(xla_math.log1p(lax.neg(x)))))
    u = _uniform(key, fi.tiny, 1.0, shape, dtype)
    return lax.neg(xla_math.log(lax.neg(xla_math.log(u))))


def gumbel(key: Any, shape: Shape = (), dtype: Any = None, mode: str | None = None, *,
           out_sharding: Any = None) -> Any:
    """Standard Gumbel random values; mode "high"/"highest" spend more bits for the tail."""
    key, _ = check_prng_key("gumbel", key)
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype("gumbel", dtype)
    shape = canonicalize_shape(shape)
    if mode is None:
        mode = "high" if config.read("jax_use_high_dynamic_range_gumbel") else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(key, shape, dtype, mode)


# ---------------------------------------------------------------- one-parameter families
def _param_sampler(name: str, body: Callable, doc: str, safe_cast: bool = True) -> Callable:
    """The public wrapper of `name(key, param, shape=None, dtype=None)` (pareto, rayleigh, wald...)."""
    jitted = jit(body, static_argnums=(2, 3))

    def sampler(key: Any, param: Any, shape: Shape | None = None, dtype: Any = None, *,
                out_sharding: Any = None) -> Any:
        key, _ = check_prng_key(name, key)
        dtype = user_dtype(float if dtype is None else dtype)
        check_float_dtype(name, dtype)
        shape = check_broadcast_shapes(name, shape, param)
        if safe_cast:
            check_all_safe_to_cast(name, dtype, param)
        return jitted(key, param, shape, dtype)

    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = doc
    return sampler


def _pareto(key: PRNGKeyArray, b: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    b = lax.convert_element_type(b, dtype)
    e = _exponential(key, shape, dtype)
    return xla_math.exp(xla_math.div(e, b))


def _rayleigh(key: PRNGKeyArray, scale: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    scale = jnp.broadcast_to(scale.astype(dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(xla_math.log(u), -2.0)))


def _wald(key: PRNGKeyArray, mean: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    k1, k2 = internal_split(key, 2)
    mean = jnp.broadcast_to(mean.astype(dtype), shape)
    v = _normal_real(k1, shape, dtype)
    z = _uniform(k2, 0.0, 1.0, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(fma(lax.mul(4.0, mean), y, lax.mul(mean_sq, y_sq)))
    half_mean = lax.div(mean, 2.0)
    x = fma(lax.neg(half_mean), sqrt_term, lax.add(mean, lax.div(lax.mul(mean_sq, y), 2.0)))
    return lax.select(lax.le(z, lax.div(mean, lax.add(mean, x))), x, lax.div(mean_sq, x))


def _lognormal(key: PRNGKeyArray, sigma: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    sigma = lax.convert_element_type(sigma, dtype)
    if core.get_aval(sigma).ndim == 0:  # XLA folds the scalar sigma into normal's sqrt(2)
        scaled = lax.mul(_normal_unscaled(key, shape, dtype), lax.mul(2.0 ** 0.5, sigma))
    else:
        scaled = jnp.multiply(_normal_real(key, shape, dtype), sigma)
    return xla_math.exp(scaled)


pareto = _param_sampler("pareto", _pareto, "Pareto(b) random values on [1, inf): exp(E / b).")
rayleigh = _param_sampler("rayleigh", _rayleigh, "Rayleigh(scale) random values.")
wald = _param_sampler("wald", _wald, "Wald (inverse Gaussian) random values with the given mean.")
_lognormal_sampler = _param_sampler("lognormal", _lognormal, "")


def lognormal(key: Any, sigma: Any = 1.0, shape: Shape | None = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:
    """exp(sigma * N(0, 1)) random values (shape () unless given)."""
    key, _ = check_prng_key("lognormal", key)
    dt = user_dtype(float if dtype is None else dtype)
    if dt.kind not in "fc":
        raise ValueError(f"dtype argument to `lognormal` must be a float or complex dtype, got {dt}")
    return _lognormal_sampler(key, sigma, shape, dtype)


# ---------------------------------------------------------------- triangular
@jit(static_argnums=(4, 5))
def _triangular(key: PRNGKeyArray, left: Any, mode: Any, right: Any, shape: tuple[int, ...],
                dtype: dtypes.DType) -> Any:
    left, right, mode = (jnp.broadcast_to(lax.convert_element_type(v, dtype), shape)
                         for v in (left, right, mode))
    fc = lax.div(lax.sub(mode, left), lax.sub(right, left))
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    out1 = lax.add(left, lax.sqrt(lax.mul(lax.mul(u, lax.sub(right, left)), lax.sub(mode, left))))
    out2 = lax.sub(right, lax.sqrt(lax.mul(lax.mul(lax.sub(1.0, u), lax.sub(right, left)),
                                           lax.sub(right, mode))))
    return lax.select(lax.lt(u, fc), out1, out2)


def triangular(key: Any, left: Any, mode: Any, right: Any, shape: Shape | None = None,
               dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Triangular random values on [left, right] with peak at `mode`."""
    key, _ = check_prng_key("triangular", key)
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype("triangular", dtype)
    shape = check_broadcast_shapes("triangular", shape, left, mode, right)
    check_all_safe_to_cast("triangular", dtype, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


# ---------------------------------------------------------------- maxwell, rademacher
# XLA sums the three squares in an order that depends on the array size (its CPU fusion
# of the normals into the row reduction switches strategy above 4096 input elements).
_MAXWELL_FUSED_MAX = 4096


def _maxwell(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    """sqrt(X^2 + Y^2 + Z^2) for three standard normals, summed in XLA's order."""
    x = _normal_real(key, (*shape, 3), dtype)
    xs = [lax.reshape(lax.slice_in_dim(x, i, i + 1, axis=len(shape)), shape) for i in range(3)]
    if 3 * math.prod(shape) <= _MAXWELL_FUSED_MAX:  # fused: Y^2 first, then fma X, fma Z
        total = fma(xs[2], xs[2], fma(xs[0], xs[0], lax.mul(xs[1], xs[1])))
    else:  # vectorized pairs: (X^2 + Z^2) + Y^2
        sq = [lax.mul(v, v) for v in xs]
        total = lax.add(lax.add(sq[0], sq[2]), sq[1])
    return lax.sqrt(total)


maxwell = _float_sampler("maxwell", _maxwell, "One-sided Maxwell random values.")


@jit(static_argnums=(1, 2))
def _rademacher(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    b = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * b - 1).astype(dtype)


def rademacher(key: Any, shape: Shape = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """-1 or +1 with equal probability (int32 by default)."""
    key, _ = check_prng_key("rademacher", key)
    dtype = user_dtype(int if dtype is None else dtype)
    return _rademacher(key, canonicalize_shape(shape), dtype)


@jit(static_argnums=(3, 4))
def _double_sided_maxwell(key: PRNGKeyArray, loc: Any, scale: Any, shape: tuple[int, ...],
                          dtype: dtypes.DType) -> Any:
    params_shape = jnp.broadcast_shapes(core.get_aval(loc).shape, core.get_aval(scale).shape)
    if not shape:
        shape = params_shape
    shape = shape + params_shape
    maxwell_key, rademacher_key = internal_split(key)
    m = _maxwell(maxwell_key, shape, dtype)
    sign = _rademacher(rademacher_key, shape, dtype)
    return fma(jnp.multiply(sign, m), jnp.broadcast_to(scale, shape).astype(dtype),
               jnp.broadcast_to(loc, shape).astype(dtype))


def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Shape = (), dtype: Any = None) -> Any:
    """Double-sided Maxwell random values: a random sign times a Maxwell sample, scaled and shifted."""
    key, _ = check_prng_key("double_sided_maxwell", key)
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype("double_sided_maxwell", dtype)
    return _double_sided_maxwell(key, loc, scale, canonicalize_shape(shape), dtype)


@jit(static_argnums=(3, 4))
def _weibull_min(key: PRNGKeyArray, scale: Any, concentration: Any, shape: tuple[int, ...],
                 dtype: dtypes.DType) -> Any:
    u = _uniform(key, 0.0, 1.0, shape, dtype)
    return jnp.multiply(jnp.power(lax.neg(xla_math.log1p(lax.neg(u))), jnp.divide(1.0, concentration)), scale)


def weibull_min(key: Any, scale: Any, concentration: Any, shape: Shape = (), dtype: Any = None) -> Any:
    """Weibull random values: scale * (-log(1 - u)) ** (1 / concentration)."""
    key, _ = check_prng_key("weibull_min", key)
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype("weibull_min", dtype)
    return _weibull_min(key, scale, concentration, canonicalize_shape(shape), dtype)


# ---------------------------------------------------------------- geometric
@jit(static_argnums=(2, 3))
def _geometric(key: PRNGKeyArray, p: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    p = p.astype(dtypes.default_float()) if p.dtype.kind in "biu" else p
    u = _uniform(key, 0.0, 1.0, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)  # as JAX: u = 0 maps to 1 rather than to log(0)
    log_one_minus_p = xla_math.log1p(lax.neg(p))
    g = lax.add(lax.floor(xla_math.div(xla_math.log(u), log_one_minus_p)), 1.0)
    return g.astype(dtype)


def geometric(key: Any, p: Any, shape: Shape | None = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:
    """Number of Bernoulli(p) trials up to the first success (int32 by default)."""
    key, _ = check_prng_key("geometric", key)
    dtype = user_dtype(int if dtype is None else dtype)
    if dtype.kind not in "iu":
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    shape = check_broadcast_shapes("geometric", shape, p)
    return _geometric(key, p, shape, dtype)

