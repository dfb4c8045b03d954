"""`jaxweb.scipy.linalg`: JAX's scipy.linalg (see jaxweb/_src/scipy/linalg.py, linalg_more.py and
linalg_matrices.py)."""
from jaxweb._src.scipy.linalg import *  # noqa: F401,F403
from jaxweb._src.scipy.linalg_more import *  # noqa: F401,F403
from jaxweb._src.scipy.linalg_matrices import *  # noqa: F401,F403
from jaxweb._src.scipy import linalg as _a, linalg_more as _b, linalg_matrices as _c

__all__ = sorted(_a.__all__ + _b.__all__ + _c.__all__)
