"""The multivariate normal distribution (`jax.scipy.stats.multivariate_normal`)."""
from __future__ import annotations

from ._common import Array, jnp, lax, math, promote_dtypes_inexact
from ._linalg import cholesky, solve_lower


def logpdf(x: Array, mean: Array, cov: Array, allow_singular: None = None) -> Array:
    """log N(x; mean, cov) with x and mean (..., n) and cov (..., n, n), a scalar
    variance, or (for 0-d mean) a scalar; via the Cholesky factor L of cov:
    -|L⁻¹(x - mean)|²/2 - n log(2π)/2 - Σ log diag L."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(x, mean, cov)
    if not mean.shape:
        return (-1 / 2 * jnp.square(x - mean) / cov
                - 1 / 2 * (jnp.log(2 * math.pi) + jnp.log(cov)))
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) / cov
                - n / 2 * (jnp.log(2 * math.pi) + jnp.log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    chol = cholesky(cov)
    diff = x - mean
    shape = jnp.broadcast_shapes(diff.shape, chol.shape[:-1])
    chol = jnp.broadcast_to(chol, shape + (n,))
    y = solve_lower(chol, jnp.broadcast_to(diff, shape))
    log_diag = jnp.log(jnp.diagonal(chol, axis1=-1, axis2=-2))
    return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) - n / 2 * math.log(2 * math.pi)
            - jnp.sum(log_diag, axis=-1))


def pdf(x: Array, mean: Array, cov: Array) -> Array:
    """The multivariate normal density."""
    return lax.exp(logpdf(x, mean, cov))
