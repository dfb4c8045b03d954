"""The Dirichlet distribution (`jax.scipy.stats.dirichlet`): x along axis 0."""
from __future__ import annotations

from ..special_basic import gammaln, xlogy
from ._common import Array, jnp, lax, math, promote_dtypes_inexact


def _is_simplex(x: Array) -> Array:
    return jnp.all(x > 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1) < 1e-6)


def logpdf(x: Array, alpha: Array) -> Array:
    """Σ (alpha_i - 1) log x_i - ln B(alpha); -inf off the simplex. x has len(alpha)
    entries along axis 0, or one fewer (the last is then 1 - sum)."""
    x, alpha = promote_dtypes_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={tuple(alpha.shape)}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one entry "
                         f"fewer; got x.shape={tuple(x.shape)}, alpha.shape={tuple(alpha.shape)}")
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, lax.sub(1.0, jnp.sum(x, 0, keepdims=True))], axis=0)
    normalize = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    if x.ndim > 1:
        alpha = jnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1))
    log_probs = jnp.sum(xlogy(alpha - 1, x), axis=0) - normalize
    return jnp.where(_is_simplex(x), log_probs, -math.inf)


def pdf(x: Array, alpha: Array) -> Array:
    """The Dirichlet density."""
    return lax.exp(logpdf(x, alpha))
