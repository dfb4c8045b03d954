"""`jaxweb.sharding`: meshes and shardings on one device (see jaxweb/_src/sharding.py)."""
from jaxweb._src.sharding import *  # noqa: F401,F403
from jaxweb._src.sharding import __all__  # noqa: F401
