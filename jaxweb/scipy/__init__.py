"""`jaxweb.scipy`: JAX's scipy namespace (special functions and distributions)."""
from jaxweb.scipy import special, stats  # noqa: F401
