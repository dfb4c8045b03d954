"""The negative binomial distribution (`jax.scipy.stats.nbinom`): failures before the
n-th success, success probability p."""
from __future__ import annotations

from ..special_basic import gammaln, xlog1py, xlogy
from ._common import Array, jnp, lax, promote_args_inexact


def logpmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """lgamma(n + y) - lgamma(y + 1) - lgamma(n) + n log p + y log(1 - p), y = k - loc >= 0."""
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    out = gammaln(n + y) - gammaln(y + 1) - gammaln(n) + xlogy(n, p) + xlog1py(y, -p)
    return jnp.where(y < 0, -jnp.inf, out)


def pmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """The probability mass."""
    return lax.exp(logpmf(k, n, p, loc))
