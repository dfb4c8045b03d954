"""Ahead-of-time inspection, as JAX's `jax.stages`: `jit(f).lower(*args)` and `.compile()`.

`Lowered.as_text()` is the jaxpr the arguments trace to; `Compiled.as_text()` the
kernels its schedule runs (their IR and, where the backend has one, their source),
`Compiled.cost_analysis()` a dict with "flops", "transcendentals", "bytes accessed"
and "kernels" (launches per call); a Compiled is callable with arguments of the
same structure and types.
"""
from __future__ import annotations

from typing import Any

from .api_util import as_array
from .device import Device
from .executable import Executable, executable
from .jaxpr import ClosedJaxpr
from .tree_util import tree_flatten, tree_unflatten


class Lowered:
    def __init__(self, closed: ClosedJaxpr, in_tree: Any, out_tree: Any, device: Device, name: str):
        self._closed, self._in_tree, self._out_tree = closed, in_tree, out_tree
        self._device, self._name = device, name

    def as_text(self) -> str:
        return str(self._closed)

    def compile(self) -> "Compiled":
        return Compiled(executable(self._closed, self._device, self._name), self._in_tree, self._out_tree)

    def cost_analysis(self) -> dict[str, float]:
        """The compiled program's costs (`Compiled.cost_analysis`): jaxweb counts them on the
        kernels it schedules, so lowering for the estimate means compiling (XLA counts its HLO)."""
        return self.compile().cost_analysis()

    @property
    def in_avals(self) -> list:
        return list(self._closed.in_avals)


class Compiled:
    def __init__(self, exe: Executable, in_tree: Any, out_tree: Any):
        self._exe, self._in_tree, self._out_tree = exe, in_tree, out_tree

    def as_text(self) -> str:
        return self._exe.as_text()

    def cost_analysis(self) -> dict[str, float]:
        return self._exe.cost_analysis()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        flat, tree = tree_flatten((args, kwargs))
        if tree != self._in_tree:
            raise TypeError(f"function compiled for {self._in_tree}, called with {tree}")
        return tree_unflatten(self._out_tree, self._exe([as_array(x) for x in flat]))
