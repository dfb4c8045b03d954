"""`jaxweb.scipy.sparse.linalg`: cg, bicgstab, gmres (see jaxweb/_src/scipy/sparse_linalg.py)."""
from jaxweb._src.scipy.sparse_linalg import *  # noqa: F401,F403
from jaxweb._src.scipy.sparse_linalg import __all__  # noqa: F401
