"""`jaxweb.scipy.fft`: JAX's scipy.fft (see jaxweb/_src/scipy/fft.py)."""
from jaxweb._src.scipy.fft import *  # noqa: F401,F403
from jaxweb._src.scipy.fft import __all__  # noqa: F401
