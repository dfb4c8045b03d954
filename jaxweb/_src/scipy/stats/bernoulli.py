"""The Bernoulli distribution with success probability p (`jax.scipy.stats.bernoulli`)."""
from __future__ import annotations

from ..special_basic import xlog1py, xlogy
from ._common import Array, jnp, lax, math, promote_args_inexact


def logpmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """k log p + (1 - k) log(1 - p) for k - loc in [0, 1], -inf outside."""
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, p) + xlog1py(lax.sub(1, x), -p)
    return jnp.where(jnp.logical_or(lax.lt(x, 0), lax.gt(x, 1)), -math.inf, log_probs)


def pmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """The probability mass."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k: Array, p: Array) -> Array:
    """0 for k < 0, 1 - p on [0, 1), 1 from 1 on; NaN for NaN or p outside [0, 1]."""
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    bad = jnp.isnan(k) | jnp.isnan(p) | (p < 0) | (p > 1)
    zero, one = jnp.zeros_like(k), jnp.ones_like(k)
    out = jnp.where(lax.lt(k, 0), zero, jnp.where(lax.lt(k, 1), one - p, one))
    return jnp.where(bad, math.nan, out)


def ppf(q: Array, p: Array) -> Array:
    """0 for q <= 1 - p, else 1; NaN outside the domain."""
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    bad = jnp.isnan(q) | jnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1)
    return jnp.where(bad, math.nan, jnp.where(lax.le(q, 1 - p), jnp.zeros_like(q), jnp.ones_like(q)))
