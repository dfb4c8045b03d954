"""Record JAX's public API once, as data for the compatibility table.

Run with the reference JAX environment (never a dependency of jaxweb or its tests):

    /work/jaxref/bin/python scripts/record_jax_api.py

It writes scripts/data/jax_public_api.json: for each recorded module, every public
name (`dir()` without leading underscores) with its kind (module, class, dtype,
function, constant). `scripts/compat_table.py` reads that file and inspects jaxweb,
so the table is regenerated from the package and never goes stale.
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
import types

#: The namespaces a JAX user imports from, in the order the table lists them.
MODULES = [
    "jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax", "jax.nn",
    "jax.nn.initializers", "jax.random", "jax.tree_util", "jax.tree", "jax.debug", "jax.dtypes",
    "jax.errors", "jax.test_util", "jax.ad_checkpoint", "jax.custom_derivatives",
    "jax.scipy.special", "jax.scipy.linalg", "jax.scipy.signal", "jax.scipy.fft",
    "jax.scipy.integrate", "jax.scipy.interpolate", "jax.scipy.ndimage", "jax.scipy.optimize",
    "jax.scipy.cluster.vq", "jax.scipy.spatial.transform", "jax.scipy.sparse.linalg",
    "jax.scipy.stats",
]


def _stats_submodules() -> list[str]:
    import pkgutil

    import jax.scipy.stats as stats
    return [f"jax.scipy.stats.{m.name}" for m in pkgutil.iter_modules(stats.__path__)
            if not m.name.startswith("_")]


def _kind(value: object) -> str:
    import numpy as np
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type) and issubclass(value, np.generic):
        return "dtype"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def record(name: str) -> dict[str, str]:
    mod = importlib.import_module(name)
    out = {}
    for attr in sorted(dir(mod)):
        if attr.startswith("_"):
            continue
        try:
            value = getattr(mod, attr)
        except Exception:  # deprecated names that raise on access are not public API
            continue
        if isinstance(value, types.ModuleType) and not value.__name__.startswith("jax"):
            continue  # re-exported third-party modules (np, functools) are not API
        out[attr] = _kind(value)
    return out


def main() -> None:
    import jax
    api = {"jax_version": jax.__version__, "modules": {}}
    for name in MODULES + _stats_submodules():
        api["modules"][name] = record(name)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "jax_public_api.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(api, f, indent=1, sort_keys=False)
        f.write("\n")
    total = sum(len(v) for v in api["modules"].values())
    print(f"wrote {path}: {len(api['modules'])} modules, {total} names (JAX {jax.__version__})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
