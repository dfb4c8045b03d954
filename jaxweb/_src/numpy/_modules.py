"""Collects the public names of every jnp family module (each defines `__all__`).

The families that array code needs at once are imported here; the rest (`_LAZY_FAMILIES`)
are imported by `jaxweb.numpy` on the first use of a name they define, so that
`import jaxweb` compiles fewer modules (what a page's load time is made of).
"""
from .creation import *  # noqa: F401,F403
from .ufuncs import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .linalg_ops import *  # noqa: F401,F403
from .dtype_helpers import *  # noqa: F401,F403
from .array_api import *  # noqa: F401,F403  (from_dlpack; its dunders: jaxweb.numpy)
from . import scalar_types as _scalar_types  # noqa: F401  (jnp.float32(x) & co. become callable)
from .ufunc_objects import *  # noqa: F401,F403  (jnp.add & co. as ufunc objects, over the functions)

#: Imported on first use, in this order (a later family's name wins, as with star imports).
_LAZY_FAMILIES = ("sorting", "selection", "bessel", "windows", "polynomial", "ufuncs_extra",
                 "numerics", "einsum_path", "histograms", "bits", "vectorize", "creation_extra",
                 "printing", "ufunc_class")  # (ufunc_class is loaded already: ufunc_objects needs it)
