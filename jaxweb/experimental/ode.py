"""`jaxweb.experimental.ode`: JAX's jax.experimental.ode (see jaxweb/_src/experimental/ode.py)."""
from jaxweb._src.experimental.ode import odeint  # noqa: F401

__all__ = ["odeint"]
