"""The Cauchy distribution (`jax.scipy.stats.cauchy`)."""
from __future__ import annotations

import math

from ._common import Array, jnp, lax, promote_args_inexact, standardized


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-log(π scale) - log1p(y²)."""
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    y = standardized(x, loc, scale)
    return lax.neg(lax.add(lax.log(lax.mul(math.pi, scale)), lax.log1p(lax.mul(y, y))))


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The Cauchy density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """1/2 + atan(y)/π."""
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    return lax.add(0.5, lax.mul(1.0 / math.pi, jnp.arctan(standardized(x, loc, scale))))


def logcdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log cdf."""
    return lax.log(cdf(x, loc, scale))


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """cdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log sf."""
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc + scale tan(π/2 - π q)."""
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    return lax.add(lax.mul(lax.tan(lax.sub(math.pi / 2, lax.mul(math.pi, q))), scale), loc)


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc + scale tan(π q - π/2)."""
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    return lax.add(lax.mul(lax.tan(lax.sub(lax.mul(math.pi, q), math.pi / 2)), scale), loc)
