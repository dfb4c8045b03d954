"""`jaxweb.dlpack`: JAX's jax.dlpack (see jaxweb/_src/dlpack.py)."""
from jaxweb._src.dlpack import *  # noqa: F401,F403
from jaxweb._src.dlpack import __all__  # noqa: F401
