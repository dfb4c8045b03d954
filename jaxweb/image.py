"""`jaxweb.image`: JAX's jax.image (see jaxweb/_src/image.py)."""
from jaxweb._src.image import *  # noqa: F401,F403
from jaxweb._src.image import __all__  # noqa: F401
