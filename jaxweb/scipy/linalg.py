"""`jaxweb.scipy.linalg`: JAX's scipy.linalg (see jaxweb/_src/scipy/linalg.py)."""
from jaxweb._src.scipy.linalg import *  # noqa: F401,F403
from jaxweb._src.scipy.linalg import __all__  # noqa: F401
