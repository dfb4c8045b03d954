"""The few `jax.nn` functions the losses need, in jnp (jaxweb.nn is built on its own
branch; these keep jaxweb.optax independent of it)."""
from __future__ import annotations

from typing import Any

from ... import lax
from ... import numpy as jnp


def logsumexp(x: Any, axis: Any = -1, keepdims: bool = False, where: Any = None) -> Any:
    """`log(sum(exp(x)))` over `axis`, shifted by the max for stability."""
    m = (jnp.max(x, axis=axis, keepdims=True, where=where, initial=-jnp.inf) if where is not None
         else jnp.max(x, axis=axis, keepdims=True))
    m = lax.stop_gradient(jnp.where(jnp.isfinite(m), m, 0.0))
    s = jnp.sum(jnp.exp(x - m), axis=axis, keepdims=True, where=where)
    out = jnp.log(s) + m
    return out if keepdims else jnp.squeeze(out, axis=axis)


def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    shifted = x - lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True, where=where, initial=-jnp.inf)
                                    if where is not None else jnp.max(x, axis=axis, keepdims=True))
    s = jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True, where=where)
    out = shifted - jnp.log(s)
    return out if where is None else jnp.where(where, out, -jnp.inf)


def softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    return jnp.exp(log_softmax(x, axis, where))


def softplus(x: Any) -> Any:
    return jnp.logaddexp(x, 0.0)


def log_sigmoid(x: Any) -> Any:
    return -softplus(-x)
