"""The beta distribution on [loc, loc + scale] (`jax.scipy.stats.beta`)."""
from __future__ import annotations

from ..betainc import betainc
from ..special_basic import betaln, xlog1py, xlogy
from ._common import Array, jnp, lax, math, promote_args_inexact, standardized


def logpdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """(a-1) log y + (b-1) log(1-y) - ln B(a, b) - log scale, y = (x - loc)/scale;
    -inf outside the support, NaN for non-positive a, b or scale."""
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    y = standardized(x, loc, scale)
    log_linear = lax.add(xlogy(lax.sub(a, 1), y), xlog1py(lax.sub(b, 1), lax.neg(y)))
    log_probs = lax.sub(lax.add(lax.neg(betaln(a, b)), log_linear), lax.log(scale))
    out = jnp.where(jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc)), -math.inf, log_probs)
    return jnp.where((a <= 0) | (b <= 0) | (scale <= 0), math.nan, out)


def pdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The beta density."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def _clipped(x: Array, loc: Array, scale: Array) -> Array:
    return lax.clamp(0.0, standardized(x, loc, scale), 1.0)


def cdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """I_y(a, b) with y clipped to [0, 1]."""
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _clipped(x, loc, scale))


def logcdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log cdf."""
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """I_{1-y}(b, a), the survival function."""
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _clipped(x, loc, scale))


def logsf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log sf."""
    return lax.log(sf(x, a, b, loc, scale))
