"""`jaxweb.scipy.signal`: JAX's scipy.signal (see jaxweb/_src/scipy/signal.py)."""
from jaxweb._src.scipy.signal import *  # noqa: F401,F403
from jaxweb._src.scipy.signal import __all__  # noqa: F401
