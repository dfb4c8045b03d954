"""`jaxweb.lax.linalg`: JAX's linear-algebra primitives (see jaxweb/_src/lax/linalg.py)."""
from jaxweb._src.lax.linalg import *  # noqa: F401,F403
from jaxweb._src.lax.linalg import __all__  # noqa: F401
