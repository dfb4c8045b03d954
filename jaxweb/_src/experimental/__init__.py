"""Implementations of the jax.experimental pieces jaxweb has (each loaded on first use)."""
