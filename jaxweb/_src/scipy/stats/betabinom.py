"""The beta-binomial distribution (`jax.scipy.stats.betabinom`): n trials whose success
probability is Beta(a, b)."""
from __future__ import annotations

from ..special_basic import betaln, gammaln
from ._common import Array, jnp, lax, promote_args_inexact


def logpmf(k: Array, n: Array, a: Array, b: Array, loc: Array = 0) -> Array:
    """log C(n, y) + log B(y + a, n - y + b) - log B(a, b) for y = k - loc in [0, n]."""
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = k - loc
    comb = gammaln(n + 1) - gammaln(y + 1) - gammaln(n - y + 1)
    out = comb + betaln(y + a, n - y + b) - betaln(a, b)
    out = jnp.where((y < 0) | (y > n), -jnp.inf, out)
    return jnp.where((n >= 0) & (a > 0) & (b > 0), out, jnp.nan)


def pmf(k: Array, n: Array, a: Array, b: Array, loc: Array = 0) -> Array:
    """The probability mass."""
    return lax.exp(logpmf(k, n, a, b, loc))
