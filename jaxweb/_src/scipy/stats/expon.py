"""The exponential distribution (`jax.scipy.stats.expon`)."""
from __future__ import annotations

from ._common import Array, jnp, lax, math, promote_args_inexact


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-(x - loc)/scale - log scale for x >= loc, -inf below."""
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.add(lax.div(lax.sub(x, loc), scale), lax.log(scale)))
    return jnp.where(lax.lt(x, loc), -math.inf, log_probs)


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The exponential density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-expm1(-(x - loc)/scale), 0 below loc."""
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_y = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_y), lax.neg(lax.expm1(neg_y)))


def logsf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-(x - loc)/scale, 0 below loc."""
    x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
    neg_y = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_y), neg_y)


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """exp(logsf)."""
    return lax.exp(logsf(x, loc, scale))


def logcdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log1p(-sf)."""
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc - scale log1p(-q) for q in [0, 1], NaN elsewhere."""
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    bad = jnp.isnan(q) | (q < 0) | (q > 1)
    return jnp.where(bad, math.nan, lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
