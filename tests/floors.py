"""The floors of jaxweb, bottom to top: which module lives on which floor.

A module may import (at module level or inside a function, or by an
`importlib.import_module("jaxweb...")` string) only from its own floor or below;
`tests/test_layers.py` keeps that true and `tests/import_graph.py` prints the counts.
The README's architecture section says the same in prose, one line per floor.

Entries are module-name prefixes; the longest matching prefix decides. A public face that
re-exports one package (`jaxweb.numpy`, `jaxweb.lax`, `jaxweb.nn`, ...) stands on that
package's floor, so library code written the JAX way (`import jaxweb.numpy as jnp`)
points down; the top floor holds `jaxweb` itself and the faces that gather several floors.
"""
from __future__ import annotations

#: (floor name, module prefixes), bottom first.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("jaxweb._src.config", "jaxweb._src.errors", "jaxweb._src.profiler", "jaxweb._src.memory",
              "jaxweb._src.dtypes", "jaxweb._src.tree_util", "jaxweb._src.tree_keys", "jaxweb._src.hostdata",
              "jaxweb._src.shim_loader", "jaxweb._src.host", "jaxweb._src.version", "jaxweb.tree_util", "jaxweb.tree")),
    ("compiler", ("jaxweb._src.compiler",)),
    ("backends", ("jaxweb._src.backends", "jaxweb._src.device")),
    ("core", ("jaxweb._src.core", "jaxweb._src.jaxpr", "jaxweb._src.interpreters",
              "jaxweb._src.shape_dtype_struct")),
    ("runtime", ("jaxweb._src.array", "jaxweb._src.host_arrays", "jaxweb._src.api_util", "jaxweb._src.array_repr",
                 "jaxweb._src.lowering", "jaxweb._src.dispatch",
                 "jaxweb._src.execution", "jaxweb._src.executable")),
    ("lax", ("jaxweb._src.lax", "jaxweb.lax", "jaxweb._src.custom_derivatives", "jaxweb._src.custom_batching",
             "jaxweb._src.linear_call", "jaxweb._src.checkpoint",
             "jaxweb._src.pjit")),
    ("api", ("jaxweb._src.api", "jaxweb._src.api_extra", "jaxweb._src.jitted", "jaxweb._src.refs",
             "jaxweb._src.solves", "jaxweb._src.stages", "jaxweb._src.callbacks", "jaxweb._src.residuals")),
    ("numpy", ("jaxweb._src.numpy", "jaxweb.numpy")),
    ("libraries", ("jaxweb._src.random", "jaxweb._src.nn", "jaxweb._src.scipy", "jaxweb._src.optax",
                   "jaxweb._src.weights", "jaxweb._src.onnx", "jaxweb._src.test_util",
                   "jaxweb._src.image", "jaxweb._src.experimental", "jaxweb._src.dlpack",
                   "jaxweb.random", "jaxweb.nn", "jaxweb.scipy", "jaxweb.optax", "jaxweb.safetensors",
                   "jaxweb.io", "jaxweb.onnx", "jaxweb.test_util")),
    ("public", ("jaxweb",)),
]

#: `jaxweb._src` itself (an empty package face) sits at the bottom.
_EXACT = {"jaxweb._src": 0}


def floor_of(module: str) -> int:
    """The floor index (0 = base) of a dotted module name; KeyError for a module outside jaxweb."""
    if module in _EXACT:
        return _EXACT[module]
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(FLOORS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    if best is None:
        raise KeyError(f"{module} is on no floor: add it to tests/floors.py")
    return best


def floor_name(module: str) -> str:
    return FLOORS[floor_of(module)][0]


def package_of(module: str, is_package: bool) -> str:
    """The package a module belongs to (itself for a package's __init__)."""
    return module if is_package else module.rpartition(".")[0]
