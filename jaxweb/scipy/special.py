"""`jaxweb.scipy.special`: JAX's special functions."""
from jaxweb._src.scipy.special import *  # noqa: F401,F403
from jaxweb._src.scipy.special import __all__  # noqa: F401
