"""`jaxweb.scipy.integrate`: JAX's scipy.integrate (see jaxweb/_src/scipy/integrate.py)."""
from jaxweb._src.scipy.integrate import *  # noqa: F401,F403
from jaxweb._src.scipy.integrate import __all__  # noqa: F401
