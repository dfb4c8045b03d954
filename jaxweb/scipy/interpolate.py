"""`jaxweb.scipy.interpolate`: JAX's scipy.interpolate (see jaxweb/_src/scipy/interpolate.py)."""
from jaxweb._src.scipy.interpolate import *  # noqa: F401,F403
from jaxweb._src.scipy.interpolate import __all__  # noqa: F401
