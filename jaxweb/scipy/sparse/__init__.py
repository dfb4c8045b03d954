"""`jaxweb.scipy.sparse`: JAX's scipy.sparse (linalg)."""
from jaxweb.scipy.sparse import linalg  # noqa: F401
