"""`jaxweb.custom_batching`: JAX's jax.custom_batching (see jaxweb/_src/custom_batching.py)."""
from jaxweb._src.custom_batching import *  # noqa: F401,F403
from jaxweb._src.custom_batching import __all__  # noqa: F401
