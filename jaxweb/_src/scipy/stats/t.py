"""Student's t distribution with df degrees of freedom (`jax.scipy.stats.t`)."""
from __future__ import annotations

from ._common import Array, lax, math, promote_args_inexact, standardized


def logpdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """ln Γ((df+1)/2) - ln Γ(df/2) - log(π df scale²)/2 - (df+1)/2 log1p(y²/df)."""
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    y = standardized(x, loc, scale)
    half_df = lax.div(df, 2.0)
    half_df_plus = lax.add(half_df, 0.5)
    normalize_tmp = lax.div(lax.log(lax.mul(lax.mul(lax.mul(scale, scale), math.pi), df)), 2.0)
    normalize = lax.sub(lax.add(lax.lgamma(half_df), normalize_tmp), lax.lgamma(half_df_plus))
    quadratic = lax.div(lax.mul(y, y), df)
    return lax.neg(lax.add(normalize, lax.mul(half_df_plus, lax.log1p(quadratic))))


def pdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The t density."""
    return lax.exp(logpdf(x, df, loc, scale))
