"""The multinomial distribution (`jax.scipy.stats.multinomial`): counts x (last axis) of
n draws with category probabilities p."""
from __future__ import annotations

from ..special_basic import gammaln, xlogy
from ._common import Array, jnp, lax, promote_args_inexact


def logpmf(x: Array, n: Array, p: Array) -> Array:
    """lgamma(n + 1) + Σ (x log p - lgamma(x + 1)) where Σx = n, -inf otherwise (as JAX,
    the check sums every element of x, and x and n must be integers)."""
    (p,) = promote_args_inexact("multinomial.logpmf", p)
    x, n = jnp.asarray(x), jnp.asarray(n)
    if not (jnp.issubdtype(x.dtype, jnp.integer) and jnp.issubdtype(n.dtype, jnp.integer)):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    out = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    return jnp.where(jnp.sum(x) == n, out, -jnp.inf)


def pmf(x: Array, n: Array, p: Array) -> Array:
    """The probability mass."""
    return lax.exp(logpmf(x, n, p))
