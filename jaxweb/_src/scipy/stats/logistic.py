"""The logistic distribution (`jax.scipy.stats.logistic`)."""
from __future__ import annotations

from ..special_basic import expit, logit
from ._common import Array, jnp, lax, promote_args_inexact, standardized


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-2 logaddexp(y/2, -y/2) - log scale (symmetric and overflow-free)."""
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    half_y = lax.div(standardized(x, loc, scale), 2.0)
    return lax.sub(lax.mul(-2.0, jnp.logaddexp(half_y, lax.neg(half_y))), lax.log(scale))


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The logistic density."""
    return lax.exp(logpdf(x, loc, scale))


def ppf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc + scale logit(q)."""
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """expit(-y)."""
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return expit(lax.neg(standardized(x, loc, scale)))


def isf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc - scale logit(q)."""
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """expit(y)."""
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return expit(standardized(x, loc, scale))
