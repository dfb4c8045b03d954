"""The operator table: (domain, op_type) -> implementations by the opset they appeared in.

An implementation is `fn(node, *inputs) -> output | tuple of outputs`; `node.attrs` holds
its attributes, parsed once when the model is loaded. Inputs are jaxweb arrays (tracers
under jit/grad/vmap), HostTensors (static values), or None for an omitted optional input.
`static` lists the input positions that must be known at trace time (a Reshape's shape, a
Slice's starts); the executor hands those over as HostTensors or raises naming the node.
`host` is an optional pure-Python version used when every input is a small HostTensor, so
the shape arithmetic of exported graphs folds away at trace time.
"""
from __future__ import annotations

from typing import Any, Callable

DEFAULT_DOMAINS = ("", "ai.onnx")


class OpDef:
    __slots__ = ("name", "since", "fn", "static", "host", "scope")

    def __init__(self, name: str, since: int, fn: Callable, static: tuple, host: Callable | None,
                 scope: bool = False):
        self.name, self.since, self.fn, self.static, self.host = name, since, fn, static, host
        self.scope = scope  # fn(node, scope, *inputs): control flow, whose subgraphs see outer names


#: op_type -> [OpDef] sorted by `since`
OPS: dict[str, list[OpDef]] = {}


def register(name: str, fn: Callable, since: int = 1, static: tuple = (), host: Callable | None = None,
             scope: bool = False) -> None:
    versions = OPS.setdefault(name, [])
    versions[:] = [d for d in versions if d.since != since] + [OpDef(name, since, fn, tuple(static), host, scope)]
    versions.sort(key=lambda d: d.since)


def op(*names: str, since: int = 1, static: tuple = (), host: Callable | None = None,
       scope: bool = False) -> Callable:
    """Decorator: register `fn` as the implementation of `names` from opset `since` on."""
    def deco(fn: Callable) -> Callable:
        for name in names:
            register(name, fn, since, static, host, scope)
        return fn
    return deco


def lookup(domain: str, name: str, opset: int) -> OpDef | None:
    """The implementation in force at `opset` (the newest one introduced at or before it)."""
    if domain not in DEFAULT_DOMAINS:
        return None
    found = None
    for d in OPS.get(name, ()):
        if d.since <= opset:
            found = d
    return found


def _load_families() -> None:
    from . import (ops_control, ops_elementwise, ops_index, ops_misc, ops_nn, ops_reduce,  # noqa: F401,PLC0415
                   ops_quant, ops_rnn, ops_shape, ops_transformer)


def supported_ops() -> dict[str, list[int]]:
    """op_type -> the opsets its implementations start at (for reports)."""
    _load_families()
    return {name: [d.since for d in defs] for name, defs in sorted(OPS.items())}


class Unsupported(NotImplementedError):
    """An operator (or an attribute value of one) jaxweb.onnx does not implement."""


def unsupported(node: Any, what: str) -> Unsupported:
    return Unsupported(f"jaxweb.onnx: {node.op_type} (opset {node.opset}, node {node.name!r}): {what}")
