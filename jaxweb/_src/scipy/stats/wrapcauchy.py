"""The wrapped Cauchy distribution (`jax.scipy.stats.wrapcauchy`) on [0, 2π], 0 < c < 1:
(1 - c²) / (2π (1 + c² - 2c cos x))."""
from __future__ import annotations

import math

from ._common import Array, jnp, lax, promote_args_inexact


def logpdf(x: Array, c: Array) -> Array:
    """log(1 - c²) - log(2π) - log(1 + c² - 2c cos x) on [0, 2π]; nan unless 0 < c < 1."""
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    out = jnp.log1p(-c * c) - math.log(2 * math.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    out = jnp.where((x >= 0) & (x <= 2 * math.pi), out, -jnp.inf)
    return jnp.where((c > 0) & (c < 1), out, jnp.nan)


def pdf(x: Array, c: Array) -> Array:
    """The density."""
    return lax.exp(logpdf(x, c))
