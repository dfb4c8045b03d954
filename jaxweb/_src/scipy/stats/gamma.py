"""The gamma distribution with shape a (`jax.scipy.stats.gamma`)."""
from __future__ import annotations

from ..igamma import gammainc, gammaincc
from ..special_basic import gammaln, xlogy
from ._common import Array, jnp, lax, math, promote_args_inexact, standardized


def logpdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """(a-1) log y - y - ln Γ(a) - log scale for x >= loc, -inf below."""
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    y = jnp.where(ok, standardized(x, loc, scale), 1.0)
    log_linear = lax.sub(xlogy(lax.sub(a, 1), y), y)
    log_probs = lax.sub(log_linear, lax.add(gammaln(a), lax.log(scale)))
    return jnp.where(ok, log_probs, -math.inf)


def pdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The gamma density."""
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(a, y) with y clipped at 0."""
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return gammainc(a, lax.clamp(0.0, standardized(x, loc, scale), math.inf))


def logcdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log cdf."""
    return lax.log(cdf(x, a, loc, scale))


def sf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """Q(a, y), 1 below loc."""
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = standardized(x, loc, scale)
    return jnp.where(lax.lt(y, 0), 1, gammaincc(a, y))


def logsf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log sf."""
    return lax.log(sf(x, a, loc, scale))
