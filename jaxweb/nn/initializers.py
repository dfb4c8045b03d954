"""`jaxweb.nn.initializers`: JAX's parameter initializers."""
from jaxweb._src.nn.initializers import *  # noqa: F401,F403
from jaxweb._src.nn.initializers import __all__  # noqa: F401
