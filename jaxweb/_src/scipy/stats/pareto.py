"""The Pareto distribution (`jax.scipy.stats.pareto`): shape b, support x >= loc + scale."""
from __future__ import annotations

from ._common import Array, jnp, lax, promote_args_inexact, standardized


def logpdf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log b - log scale - (b + 1) log z for z >= 1, -inf below."""
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    z = standardized(x, loc, scale)
    out = lax.sub(lax.sub(lax.log(b), lax.log(scale)), lax.mul(lax.add(b, 1), lax.log(z)))
    return jnp.where(lax.lt(z, 1), -jnp.inf, out)


def pdf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density."""
    return lax.exp(logpdf(x, b, loc, scale))


def logsf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-b log z for z >= 1, 0 below."""
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    z = standardized(x, loc, scale)
    return jnp.where(lax.lt(z, 1), 0.0, lax.neg(lax.mul(b, lax.log(z))))


def sf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """z^-b."""
    return lax.exp(logsf(x, b, loc, scale))


def logcdf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log1p(-z^-b)."""
    return lax.log1p(lax.neg(sf(x, b, loc, scale)))


def cdf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """1 - z^-b."""
    return lax.neg(lax.expm1(logsf(x, b, loc, scale)))


def ppf(q: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc + scale (1 - q)^(-1/b); nan outside [0, 1]."""
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    out = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(1, q), lax.div(-1.0, b))))
    return jnp.where(lax.ge(q, 0) & lax.le(q, 1), out, jnp.nan)
