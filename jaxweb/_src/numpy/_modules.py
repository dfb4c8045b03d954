"""Collects the public names of every jnp family module (each defines `__all__`)."""
from .creation import *  # noqa: F401,F403
from .ufuncs import *  # noqa: F401,F403
