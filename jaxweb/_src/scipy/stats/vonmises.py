"""The von Mises distribution (`jax.scipy.stats.vonmises`), periodic:
exp(kappa cos x) / (2π I0(kappa)), with I0 taken scaled (i0e) so large kappa does not overflow."""
from __future__ import annotations

import math

from ..bessel import i0e
from ._common import Array, jnp, lax, promote_args_inexact


def logpdf(x: Array, kappa: Array) -> Array:
    """kappa (cos x - 1) - log(2π i0e(kappa)) (periodic in x, as JAX); nan unless kappa > 0."""
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    out = kappa * (jnp.cos(x) - 1) - jnp.log(2 * math.pi * i0e(kappa))
    return jnp.where(kappa > 0, out, jnp.nan)


def pdf(x: Array, kappa: Array) -> Array:
    """The density."""
    return lax.exp(logpdf(x, kappa))
