"""`jaxweb.scipy`: JAX's scipy namespace (linear algebra, special functions, distributions,
signal processing, ...). linalg, special and stats load with it; the others on first use."""
from jaxweb.scipy import linalg, special, stats  # noqa: F401

_LAZY = frozenset({"signal", "fft", "integrate", "interpolate", "ndimage", "optimize", "sparse",
                   "spatial", "cluster"})


def __getattr__(name: str):
    if name in _LAZY:
        import importlib  # noqa: PLC0415
        return importlib.import_module(f"jaxweb.scipy.{name}")
    raise AttributeError(f"module 'jaxweb.scipy' has no attribute {name!r}")
