"""`jaxweb.scipy.optimize`: JAX's scipy.optimize (see jaxweb/_src/scipy/optimize.py)."""
from jaxweb._src.scipy.optimize import *  # noqa: F401,F403
from jaxweb._src.scipy.optimize import __all__  # noqa: F401
