"""`jaxweb.scipy.cluster`: JAX's scipy.cluster (vq)."""
from jaxweb.scipy.cluster import vq  # noqa: F401
