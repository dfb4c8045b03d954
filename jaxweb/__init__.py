"""jaxweb: JAX for the browser, in Python.

`import jaxweb as jax; import jaxweb.numpy as jnp` and write JAX code: it runs on
the reference backend in CPython and (see the README) on WebAssembly or WebGPU
in a page running Pyodide.
"""
from jaxweb._src import backends as _backends  # noqa: F401  (registers the platforms)
from jaxweb._src.array import ArrayType as Array
from jaxweb._src.config import config, enable_x64, numpy_dtype_promotion, numpy_rank_promotion
from jaxweb._src.core import ShapedArray
from jaxweb._src.device import (Device, default_backend, device_count, devices, local_devices,
                                use_device as default_device)
from jaxweb._src.numpy import array_methods as _array_methods
from jaxweb._src.api import *  # noqa: F401,F403  (grad, vmap, jit, ...)
from jaxweb._src.api_extra import *  # noqa: F401,F403  (typeof, device_get, new_ref, ...)
from jaxweb._src.callbacks import pure_callback
from jaxweb import tree_util, tree  # noqa: F401
from jaxweb import numpy, lax, errors, dtypes  # noqa: F401
from jaxweb import ad_checkpoint, custom_derivatives, typing  # noqa: F401

_array_methods.install_all()

#: Public submodules imported on first use (`jax.nn.relu` still works after `import jaxweb as jax`):
#: they are a third of jaxweb's modules, and a page's `import jaxweb` compiles every module it imports.
_LAZY_SUBMODULES = frozenset({"random", "nn", "scipy", "debug", "test_util", "profiler"})


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        import importlib  # noqa: PLC0415
        return importlib.import_module(f"jaxweb.{name}")  # also binds it here, as an import does
    raise AttributeError(f"module 'jaxweb' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_SUBMODULES)

from jaxweb._src.version import __version__  # noqa: E402
__all__ = ["Array", "ShapedArray", "config", "default_backend", "default_device", "device_count",
           "device_put", "devices", "enable_x64", "local_devices", "lax", "nn", "numpy", "random",
           "scipy", "tree", "tree_util", "dtypes", "debug", "test_util", "ad_checkpoint",
           "custom_derivatives", "numpy_dtype_promotion", "numpy_rank_promotion", "pure_callback", "profiler"]
