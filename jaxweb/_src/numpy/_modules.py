"""Collects the public names of every jnp family module (each defines `__all__`)."""
from .creation import *  # noqa: F401,F403
from .ufuncs import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .linalg_ops import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .fileio import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .bessel import *  # noqa: F401,F403
from .windows import *  # noqa: F401,F403
from .polynomial import *  # noqa: F401,F403
from .ufuncs_extra import *  # noqa: F401,F403
from .numerics import *  # noqa: F401,F403
from .einsum_path import *  # noqa: F401,F403
