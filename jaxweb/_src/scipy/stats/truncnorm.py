"""The truncated normal distribution (`jax.scipy.stats.truncnorm`): a standard normal
restricted to [a, b] (in standardized units), shifted by loc and scaled by scale.

The normalizing mass Φ(b) - Φ(a) is taken in log space from the tail where it does
not cancel (both bounds positive: the upper tail; both negative: the lower one), so
far-out truncations keep their digits."""
from __future__ import annotations

import math

from ..ndtr import log_ndtr, ndtr
from ._common import Array, jnp, lax, promote_args_inexact, standardized


def _log1mexp(x: Array) -> Array:
    """log(1 - exp(x)) for x <= 0."""
    return jnp.where(x > -math.log(2.0), jnp.log(-jnp.expm1(x)), jnp.log1p(-jnp.exp(x)))


def _log_mass(lo: Array, hi: Array) -> Array:
    """log(Φ(hi) - Φ(lo)) for lo <= hi."""
    right = log_ndtr(-lo) + _log1mexp(log_ndtr(-hi) - log_ndtr(-lo))  # lo > 0
    left = log_ndtr(hi) + _log1mexp(log_ndtr(lo) - log_ndtr(hi))  # hi < 0
    mid = jnp.log1p(-ndtr(lo) - ndtr(-hi))
    return jnp.where(lo > 0, right, jnp.where(hi < 0, left, mid))


def _near_one(log_p: Array, log_q: Array) -> Array:
    """log p, where p = 1 - q: from q (log1p(-q)) once p > 1/2, where log p itself is a
    difference of nearly equal logs."""
    return jnp.where(log_p > -math.log(2.0), _log1mexp(log_q), log_p)


def logpdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-z²/2 - log √(2π) - log scale - log(Φ(b) - Φ(a)) on [a, b], -inf outside."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    z = standardized(x, loc, scale)
    out = -0.5 * z * z - 0.5 * math.log(2 * math.pi) - jnp.log(scale) - _log_mass(a, b)
    return jnp.where((z < a) | (z > b), -jnp.inf, out)


def pdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def logcdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log((Φ(z) - Φ(a)) / (Φ(b) - Φ(a))), -inf below a and 0 above b."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    z = standardized(x, loc, scale)
    out = _near_one(_log_mass(a, jnp.clip(z, a, b)) - _log_mass(a, b),
                    _log_mass(jnp.clip(z, a, b), b) - _log_mass(a, b))
    return jnp.where(z <= a, -jnp.inf, jnp.where(z < b, out, 0.0))  # NaN x: 0, as JAX


def cdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The distribution function."""
    return lax.exp(logcdf(x, a, b, loc, scale))


def logsf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log((Φ(b) - Φ(z)) / (Φ(b) - Φ(a))), 0 below a and -inf above b."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    z = standardized(x, loc, scale)
    out = _near_one(_log_mass(jnp.clip(z, a, b), b) - _log_mass(a, b),
                    _log_mass(a, jnp.clip(z, a, b)) - _log_mass(a, b))
    return jnp.where(z >= b, -jnp.inf, jnp.where(z > a, out, 0.0))  # NaN x: 0, as JAX


def sf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The survival function."""
    return lax.exp(logsf(x, a, b, loc, scale))
