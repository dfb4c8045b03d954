"""`jaxweb.scipy`: JAX's scipy namespace (linear algebra, special functions, distributions)."""
from jaxweb.scipy import linalg, special, stats  # noqa: F401
