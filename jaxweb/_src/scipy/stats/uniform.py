"""The uniform distribution on [loc, loc + scale] (`jax.scipy.stats.uniform`)."""
from __future__ import annotations

from ._common import Array, jnp, lax, math, promote_args_inexact


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """-log(scale) inside the support, -inf outside."""
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.log(scale))
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return jnp.where(outside, -math.inf, log_probs)


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """1/scale inside the support, 0 outside."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """0 below loc, 1 above loc + scale, linear between (NaN inputs give 0, as JAX's select)."""
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    inside = lax.ge(x, loc) & lax.le(x, lax.add(loc, scale))
    zero = jnp.zeros_like(x)
    return jnp.where(lax.lt(x, loc), zero, jnp.where(lax.gt(x, lax.add(loc, scale)), jnp.ones_like(x),
                                                      jnp.where(inside, lax.div(lax.sub(x, loc), scale), zero)))


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """loc + scale * q for q in [0, 1], NaN elsewhere."""
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    bad = jnp.isnan(q) | (q < 0) | (q > 1)
    return jnp.where(bad, math.nan, lax.add(loc, lax.mul(scale, q)))
