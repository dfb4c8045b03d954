"""The geometric distribution on k = 1, 2, ... (`jax.scipy.stats.geom`)."""
from __future__ import annotations

from ..special_basic import xlog1py
from ._common import Array, jnp, lax, math, promote_args_inexact


def logpmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """(k - 1) log(1 - p) + log p for k - loc >= 1, -inf otherwise."""
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    log_probs = xlog1py(lax.sub(x, 1), -p) + lax.log(p)
    return jnp.where(lax.le(x, 0), -math.inf, log_probs)


def pmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """The probability mass."""
    return jnp.exp(logpmf(k, p, loc))
