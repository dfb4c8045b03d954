"""The left-skewed Gumbel distribution (`jax.scipy.stats.gumbel_l`): the mirror image of
gumbel_r (x -> -x, loc -> -loc)."""
from __future__ import annotations

from . import gumbel_r as _r
from ._common import Array, lax, promote_args_inexact


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """gumbel_r.logpdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("gumbel_l.logpdf", x, loc, scale)
    return _r.logpdf(lax.neg(x), lax.neg(loc), scale)


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """gumbel_r.logsf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("gumbel_l.logcdf", x, loc, scale)
    return _r.logsf(lax.neg(x), lax.neg(loc), scale)


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """gumbel_r.sf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("gumbel_l.cdf", x, loc, scale)
    return _r.sf(lax.neg(x), lax.neg(loc), scale)


def logsf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """gumbel_r.logcdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("gumbel_l.logsf", x, loc, scale)
    return _r.logcdf(lax.neg(x), lax.neg(loc), scale)


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """gumbel_r.cdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("gumbel_l.sf", x, loc, scale)
    return _r.cdf(lax.neg(x), lax.neg(loc), scale)


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-gumbel_r.ppf(1 - q, -loc, scale)."""
    q, loc, scale = promote_args_inexact("gumbel_l.ppf", q, loc, scale)
    return lax.neg(_r.ppf(lax.sub(1, q), lax.neg(loc), scale))
