"""`optax.losses` on jaxweb."""
from jaxweb._src.optax.losses import *  # noqa: F401,F403
from jaxweb._src.optax.losses import __all__  # noqa: F401
