"""The generalized normal distribution (`jax.scipy.stats.gennorm`) of shape beta:
density beta / (2 Γ(1/beta)) exp(-|x|^beta) (beta = 2: a normal, 1: a Laplace)."""
from __future__ import annotations

import math

from ..igamma import gammainc
from ..special_basic import gammaln
from ._common import Array, jnp, lax, promote_args_inexact


def logpdf(x: Array, beta: Array) -> Array:
    """log beta - log 2 - lgamma(1/beta) - |x|^beta."""
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return jnp.log(beta) - math.log(2.0) - gammaln(1 / beta) - jnp.abs(x) ** beta


def pdf(x: Array, beta: Array) -> Array:
    """The density."""
    return lax.exp(logpdf(x, beta))


def cdf(x: Array, beta: Array) -> Array:
    """1/2 + sign(x) P(1/beta, |x|^beta) / 2 (P: the regularized lower incomplete gamma)."""
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + jnp.sign(x) * gammainc(1 / beta, jnp.abs(x) ** beta))
