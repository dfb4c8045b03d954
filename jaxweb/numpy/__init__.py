"""`jaxweb.numpy`: JAX's numpy API. Each family module lists its public names in `__all__`."""
from jaxweb._src import dtypes as _dtypes
from jaxweb._src.array import ArrayType as ndarray
from jaxweb._src.dtypes import (
    DType as _DType, bfloat16, bool_, complex64, complex128, finfo, float16, float32, float64,
    floating, generic, iinfo, inexact, int8, int16, int32, int64, integer, issubdtype, number,
    promote_types, result_type, signedinteger, uint8, uint16, uint32, uint64, unsignedinteger,
    complexfloating, character, flexible, object_)
from jaxweb._src.dtypes import dtype
from jaxweb._src.numpy._modules import *  # noqa: F401,F403  (all jnp functions)
from jaxweb._src.numpy.array_api import __array_api_version__, __array_namespace_info__  # noqa: F401

bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, \
    float64, complex64, complex128 = (d.type for d in (
        bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16,
        float32, float64, complex64, complex128))
bool = bool_  # noqa: A001  (jnp.bool, as in JAX)
float_ = float64 if False else float32
int_ = int32
uint = uint32
single, double, csingle, cdouble, complex_ = float32, float64, complex64, complex128, complex128

import math as _math
from jaxweb._src.numpy import _modules

pi, e, inf, nan, euler_gamma = _math.pi, _math.e, _math.inf, _math.nan, 0.5772156649015329
newaxis = None


_lazy_loaded = False
#: Loaders of jnp families that live on a higher floor, beside what they need (`jnp.save`/`load`
#: with the weights library's .npy/.npz formats): the package `jaxweb` appends them, so this
#: face never imports upward; they run with the lazy families, and their names come after them.
_UPPER_FAMILIES: list = []


def _import_lazy_families() -> None:
    """Bind every name of the families `_modules` leaves for later (once)."""
    global _lazy_loaded
    import importlib  # noqa: PLC0415
    names = {}
    for family in _modules._LAZY_FAMILIES:
        mod = importlib.import_module(f"jaxweb._src.numpy.{family}")
        names.update((n, getattr(mod, n)) for n in mod.__all__)
    for load in _UPPER_FAMILIES:
        mod = load()
        names.update((n, getattr(mod, n)) for n in mod.__all__)
    eager = globals()
    for n, v in names.items():
        eager.setdefault(n, v)  # an eagerly imported name keeps its binding
    eager["linalg"] = importlib.import_module("jaxweb.numpy.linalg")
    eager["fft"] = importlib.import_module("jaxweb.numpy.fft")
    eager["__all__"] = sorted(n for n in eager if not n.startswith("_"))  # what `import *` took before
    _lazy_loaded = True


def __getattr__(name: str):
    """jnp's less common functions, `jnp.linalg` and `jnp.fft` load on first use (see `_modules`)."""
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'jaxweb.numpy' has no attribute {name!r}")
    if not _lazy_loaded:  # (not "linalg" in globals(): `import jaxweb.numpy.linalg` binds that alone)
        _import_lazy_families()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module 'jaxweb.numpy' has no attribute {name!r}")


def __dir__() -> list[str]:
    if not _lazy_loaded:
        _import_lazy_families()
    return sorted(globals())
