"""`jax.scipy.cluster.vq.vq`: each observation's nearest code (Euclidean) and its distance."""
from __future__ import annotations

__all__ = ["vq"]

from typing import Any

from ... import numpy as jnp


def vq(obs: Any, code_book: Any, check_finite: bool = True) -> tuple[Any, Any]:
    """(code index, distance) of each row of `obs` (N, D) against `code_book` (K, D);
    `check_finite` raises nothing under tracing (as JAX): a non-finite row gets nan."""
    o, c = jnp.asarray(obs), jnp.asarray(code_book)
    if o.ndim != c.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if o.ndim == 1:
        o, c = o[:, None], c[:, None]
    if o.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dt = jnp.result_type(o, c, jnp.float32) if not jnp.issubdtype(jnp.result_type(o, c), jnp.inexact) \
        else jnp.result_type(o, c)
    o, c = o.astype(dt), c.astype(dt)
    dist = jnp.linalg.norm(o[:, None, :] - c[None, :, :], axis=-1)
    code = jnp.argmin(dist, axis=1)
    return code, jnp.min(dist, axis=1)
