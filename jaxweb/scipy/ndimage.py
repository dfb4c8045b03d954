"""`jaxweb.scipy.ndimage`: JAX's scipy.ndimage (see jaxweb/_src/scipy/ndimage.py)."""
from jaxweb._src.scipy.ndimage import *  # noqa: F401,F403
from jaxweb._src.scipy.ndimage import __all__  # noqa: F401
