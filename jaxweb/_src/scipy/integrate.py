"""`jax.scipy.integrate`: trapezoid (the very function jnp.trapezoid is, as in JAX)."""
from __future__ import annotations

__all__ = ["trapezoid"]

from ..numpy.numerics import trapezoid  # noqa: F401
