"""`jaxweb.scipy.spatial`: JAX's scipy.spatial (transform)."""
from jaxweb.scipy.spatial import transform  # noqa: F401
