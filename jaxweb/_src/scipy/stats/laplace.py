"""The Laplace distribution (`jax.scipy.stats.laplace`)."""
from __future__ import annotations

from ._common import Array, lax, promote_args_inexact, standardized


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-|x - loc|/scale - log(2 scale)."""
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    return lax.neg(lax.add(lax.div(lax.abs(lax.sub(x, loc)), scale), lax.log(lax.mul(2.0, scale))))


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The Laplace density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """exp(y)/2 for y <= 0, 1 - exp(-y)/2 above."""
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    y = standardized(x, loc, scale)
    return lax.select(lax.le(y, 0.0), lax.mul(0.5, lax.exp(y)),
                      lax.sub(1.0, lax.mul(0.5, lax.exp(lax.neg(y)))))
