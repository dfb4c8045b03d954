"""The binomial distribution (`jax.scipy.stats.binom`)."""
from __future__ import annotations

from ..special_basic import gammaln, xlog1py, xlogy
from ._common import Array, jnp, lax, math, promote_args_inexact


def logpmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """ln C(n, y) + y log p + (n - y) log(1 - p) with y = k - loc in [0, n]."""
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    comb_term = lax.sub(gammaln(n + 1), lax.add(gammaln(y + 1), gammaln(n - y + 1)))
    log_linear = lax.add(xlogy(y, p), xlog1py(lax.sub(n, y), lax.neg(p)))
    log_probs = lax.add(comb_term, log_linear)
    certain = jnp.logical_or(jnp.logical_and(lax.eq(y, 0), lax.eq(n, 0)), lax.eq(log_linear, 0))
    log_probs = jnp.where(certain, 0.0, log_probs)
    return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -math.inf)


def pmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """The probability mass."""
    return lax.exp(logpmf(k, n, p, loc))
