"""`jaxweb.version`: jaxweb's version, and the JAX version whose API it follows."""
from jaxweb import __version__  # noqa: F401

#: the JAX release whose public API and behaviour jaxweb follows (scripts/data/jax_public_api.json)
jax_version = "0.10.2"
_version = __version__
