"""`jaxweb.ops`: JAX's segment reductions (see jaxweb/_src/ops.py)."""
from jaxweb._src.ops import *  # noqa: F401,F403
from jaxweb._src.ops import __all__  # noqa: F401
