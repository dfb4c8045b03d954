"""`jaxweb.lax`: the primitives' user-facing functions. Each family module lists `__all__`."""
from jaxweb._src.lax._modules import *  # noqa: F401,F403
from jaxweb.lax import linalg  # noqa: E402,F401  (`jax.lax.linalg` is an attribute after `import jax`)
