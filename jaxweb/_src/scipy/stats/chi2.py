"""The chi-squared distribution with df degrees of freedom (`jax.scipy.stats.chi2`)."""
from __future__ import annotations

from ..igamma import gammainc, gammaincc
from ._common import Array, jnp, lax, math, promote_args_inexact, standardized


def logpdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """(df/2 - 1) log y - y/2 - ln Γ(df/2) - (df/2) log 2 - log scale; -inf below loc."""
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    y = standardized(x, loc, scale)
    half_df = lax.div(df, 2.0)
    kernel = lax.sub(lax.mul(lax.sub(half_df, 1), lax.log(y)), lax.div(y, 2.0))
    normalizer = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(math.log(2), df), 2.0)))
    log_probs = lax.add(lax.sub(normalizer, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -math.inf, log_probs)


def pdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The chi-squared density."""
    return lax.exp(logpdf(x, df, loc, scale))


def _half_y(x: Array, loc: Array, scale: Array) -> Array:
    return lax.clamp(0.0, lax.div(lax.sub(x, loc), lax.mul(scale, 2.0)), math.inf)


def cdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(df/2, y/2)."""
    x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
    return gammainc(lax.div(df, 2.0), _half_y(x, loc, scale))


def logcdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log cdf."""
    return lax.log(cdf(x, df, loc, scale))


def sf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """Q(df/2, y/2)."""
    x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
    return gammaincc(lax.div(df, 2.0), _half_y(x, loc, scale))


def logsf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log sf."""
    return lax.log(sf(x, df, loc, scale))
