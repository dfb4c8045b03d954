"""The Poisson distribution with mean mu (`jax.scipy.stats.poisson`)."""
from __future__ import annotations

from ..igamma import gammaincc
from ..special_basic import entr, gammaln, xlogy
from ._common import Array, jnp, lax, math, promote_args_inexact, promote_dtypes_inexact


def logpmf(k: Array, mu: Array, loc: Array = 0) -> Array:
    """k log mu - ln k! - mu for integer k >= loc, -inf otherwise."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, 0), lax.ne(jnp.round(k), k)), -math.inf, log_probs)


def pmf(k: Array, mu: Array, loc: Array = 0) -> Array:
    """The probability mass."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k: Array, mu: Array, loc: Array = 0) -> Array:
    """Q(floor(k - loc) + 1, mu), 0 below loc."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    p = gammaincc(jnp.floor(1 + x), mu)
    return jnp.where(lax.lt(x, 0), 0.0, p)


def _entropy_sum(mu: Array, max_k: int, upper: Array) -> Array:
    """-Σ_k p_k log p_k over k < upper (at most max_k terms), the exact entropy's sum."""
    k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = pmf(k, mu, 0)
    probs = jnp.where(k < jnp.ceil(upper)[None, :], probs, 0.0)
    return jnp.sum(entr(probs), axis=0)


def entropy(mu: Array, loc: Array = 0) -> Array:
    """The entropy: exact sums for mu < 100 (35 or 250 terms), the asymptotic
    expansion ½ log(2πe mu) - 1/(12 mu) beyond, 0 at mu == 0 (JAX's recipe)."""
    mu, loc = promote_dtypes_inexact(mu, loc)
    shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    flat = jnp.ravel(mu)
    small = _entropy_sum(flat, 35, flat + 20)
    medium = _entropy_sum(flat, 250, flat + 10 * jnp.sqrt(flat) + 20)
    large = 0.5 * jnp.log(2 * math.pi * math.e * flat) - 1.0 / (12 * flat)
    out = jnp.where(flat == 0, 0.0, jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.broadcast_to(jnp.reshape(out.astype(flat.dtype), mu.shape), shape)
