"""jaxweb: JAX for the browser, in Python.

`import jaxweb as jax; import jaxweb.numpy as jnp` and write JAX code: it runs on
the reference backend in CPython and (see the README) on WebAssembly or WebGPU
in a page running Pyodide.
"""
from jaxweb._src import backends as _backends  # noqa: F401  (registers the platforms)
from jaxweb._src.array import ArrayType as Array
from jaxweb._src.config import (config, default_prng_impl, enable_custom_prng, enable_x64, legacy_prng_key,
                                numpy_dtype_promotion, numpy_rank_promotion, threefry_partitionable)
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


def _jnp_fileio():
    """jnp.save/savez/load: on the weights floor with the formats they use (loaded on first use)."""
    from jaxweb._src.weights import fileio  # noqa: PLC0415
    return fileio


numpy._UPPER_FAMILIES.append(_jnp_fileio)

#: Public submodules imported on first use (`jax.nn.relu` still works after `import jaxweb as jax`):
#: they are a third of jaxweb's modules, and a page's `import jaxweb` compiles every module it imports.
_LAZY_SUBMODULES = frozenset({"random", "nn", "scipy", "debug", "test_util", "profiler", "sharding", "ops",
                               "monitoring", "version", "stages", "image", "custom_batching", "dlpack", "ref",
                               "experimental"})
#: top-level names of lazy modules (single-device sharding): name -> (module, attribute)
_LAZY_NAMES = {"NamedSharding": ("jaxweb.sharding", "NamedSharding"), "P": ("jaxweb.sharding", "PartitionSpec"),
               **{n: ("jaxweb.sharding", n) for n in ("make_mesh", "set_mesh", "reshard", "shard_map", "smap", "pmap",
                                                        "make_array_from_single_device_arrays",
                                                        "make_array_from_process_local_data")}}


def __getattr__(name: str):
    import importlib  # noqa: PLC0415
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"jaxweb.{name}")  # also binds it here, as an import does
    if name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        value = globals()[name] = getattr(importlib.import_module(module), attr)
        return value
    raise AttributeError(f"module 'jaxweb' has no attribute {name!r}")


#: the single-device modules stay out of dir(jaxweb): the page snapshot's warm-up
#: (scripts/snapshot.mjs) imports every name dir() lists, and with these imported the pages
#: booted without their memory snapshot (tests/test_pages.py -k repl); they load on use.
_NOT_LISTED = frozenset({"sharding", "ops", "monitoring", "version", "stages", "image", "custom_batching", "dlpack", "ref",
                               "experimental"}) | set(_LAZY_NAMES)


def __dir__() -> list[str]:
    return sorted((set(globals()) | _LAZY_SUBMODULES) - _NOT_LISTED)

from jaxweb._src.version import __version__  # noqa: E402
__all__ = ["Array", "ShapedArray", "config", "default_backend", "default_device", "device_count",
           "device_put", "devices", "enable_x64", "local_devices", "lax", "nn", "numpy", "random",
           "scipy", "tree", "tree_util", "dtypes", "debug", "test_util", "ad_checkpoint",
           "custom_derivatives", "numpy_dtype_promotion", "numpy_rank_promotion", "pure_callback", "profiler"]
