"""The normal distribution N(loc, scale²) (`jax.scipy.stats.norm`)."""
from __future__ import annotations

from .. import ndtr as _ndtr
from ._common import Array, jnp, lax, math, promote_args_inexact, standardized


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of the normal density."""
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    scale_sq = lax.square(scale)
    log_normalizer = lax.log(lax.mul(2 * math.pi, scale_sq))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sq)
    return lax.div(lax.add(log_normalizer, quadratic), -2.0)


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The normal density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x) = ndtr((x - loc) / scale)."""
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return _ndtr.ndtr(standardized(x, loc, scale))


def logcdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log P(X <= x), accurate in the lower tail (log_ndtr)."""
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return _ndtr.log_ndtr(standardized(x, loc, scale))


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The quantile function, loc + scale * ndtri(q) (as JAX: result in the default float)."""
    return jnp.asarray(_ndtr.ndtri(q) * scale + loc, float)


def logsf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log P(X > x)."""
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X > x)."""
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def isf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The inverse survival function, ppf(1 - q)."""
    return ppf(lax.sub(1, q), loc, scale)
