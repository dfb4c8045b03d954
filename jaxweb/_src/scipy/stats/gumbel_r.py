"""The right-skewed Gumbel distribution (`jax.scipy.stats.gumbel_r`): z = (x - loc) / scale,
logpdf = -log(scale) - z - exp(-z)."""
from __future__ import annotations

from ._common import Array, jnp, lax, promote_args_inexact, standardized


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-log(scale) - z - exp(-z) (nan for scale <= 0)."""
    x, loc, scale = promote_args_inexact("gumbel_r.logpdf", x, loc, scale)
    z = standardized(x, loc, scale)
    out = lax.sub(lax.neg(lax.add(z, lax.exp(lax.neg(z)))), lax.log(scale))
    return jnp.where(lax.gt(scale, 0), out, jnp.nan)


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-exp(-z)."""
    x, loc, scale = promote_args_inexact("gumbel_r.logcdf", x, loc, scale)
    out = lax.neg(lax.exp(lax.neg(standardized(x, loc, scale))))
    return jnp.where(lax.gt(scale, 0), out, jnp.nan)


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """exp(-exp(-z))."""
    return lax.exp(logcdf(x, loc, scale))


def logsf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log(1 - cdf), as log(-expm1(logcdf)) to keep the upper tail."""
    return lax.log(lax.neg(lax.expm1(logcdf(x, loc, scale))))


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """1 - cdf = -expm1(-exp(-z))."""
    return lax.neg(lax.expm1(logcdf(x, loc, scale)))


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc - scale log(-log q); nan outside (0, 1) (JAX's open interval: nan at 0 and 1)."""
    q, loc, scale = promote_args_inexact("gumbel_r.ppf", q, loc, scale)
    out = lax.sub(loc, lax.mul(scale, lax.log(lax.neg(lax.log(q)))))
    return jnp.where(lax.gt(scale, 0) & lax.gt(q, 0) & lax.lt(q, 1), out, jnp.nan)
