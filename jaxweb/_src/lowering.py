"""Primitives' lowering rules, and lowering a whole jaxpr into one lazy graph.

A lowering rule takes graph nodes (`compiler.graph`) for a primitive's operands and
returns the node of its result (a list for multiple results); `dispatch` registers
the rules (its `def_lowering`) and uses them one primitive at a time for eager ops,
`pjit` uses them through `lower_jaxpr` for a whole jitted program. Primitives that
call a jaxpr (jit, checkpoint, custom_jvp/vjp calls) register an inline rule giving
that jaxpr, so nested calls fuse with their surroundings; control-flow primitives
register a rule that builds the node of a compiled sub-program.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

from . import core, hostdata
from .array import Array
from .device import default_device
from .compiler import graph
from .compiler.graph import Input, Node
from .compiler.shapetracker import ShapeTracker
from .jaxpr import Literal

#: prim -> rule(*nodes, **params) -> node (or list of nodes if multiple_results)
lowering_rules: dict[core.Primitive, Callable[..., Any]] = {}
#: prim -> fn(params) -> the ClosedJaxpr an equation of prim evaluates (its operands are the inputs)
inline_rules: dict[core.Primitive, Callable[[dict], Any]] = {}
#: per program being lowered: the host steps it must run although no output reads them
_effects: list[list[Node]] = []


@contextlib.contextmanager
def collect_effects() -> Iterator[list[Node]]:
    """Lower a program inside this to get its effectful call nodes (debug callbacks)."""
    found: list[Node] = []
    _effects.append(found)
    try:
        yield found
    finally:
        _effects.pop()


_targets: list[Any] = []  # the device of the program being lowered (its constants go there)


@contextlib.contextmanager
def target_device(device: Any) -> Iterator[None]:
    _targets.append(device)
    try:
        yield
    finally:
        _targets.pop()


def current_target() -> Any:
    """The device the program being lowered is for (the default device outside lowering)."""
    return _targets[-1] if _targets else default_device()


def target_capabilities() -> Any:
    """The capabilities of the backend the program being lowered is for (None: not known)."""
    return _targets[-1].backend.capabilities if _targets else None


def record_effect(call_node: Node) -> None:
    if _effects:
        _effects[-1].append(call_node)


def lower_primitive(prim: core.Primitive, nodes: Sequence[Node], params: dict) -> list[Node]:
    """The nodes of `prim`'s results on operand nodes, by its rule."""
    rule = lowering_rules.get(prim)
    if rule is not None:
        graph.current_tag.append(prim.name)
        try:
            out = rule(*nodes, **params)
        finally:
            graph.current_tag.pop()
        return list(out) if prim.multiple_results else [out]
    inline = inline_rules.get(prim)
    if inline is not None:
        closed = inline(params)
        return lower_jaxpr(closed.jaxpr, [const_node(c) for c in closed.consts], list(nodes))
    raise NotImplementedError(f"jaxweb cannot compile primitive '{prim.name}' (no lowering rule)")


def lower_jaxpr(jaxpr: Any, consts: Sequence[Node], args: Sequence[Node]) -> list[Node]:
    """The output nodes of `jaxpr` applied to `args` (its constvars bound to `consts`)."""
    env: dict[Any, Node] = {}

    def read(a: Any) -> Node:
        return scalar_node(a.val) if isinstance(a, Literal) else env[a]

    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        outs = lower_primitive(eqn.primitive, [read(v) for v in eqn.invars], eqn.params)
        for v, n in zip(eqn.outvars, outs):
            check_lowered(n, v.aval, eqn.primitive)
            env[v] = n
    return [read(v) for v in jaxpr.outvars]


def input_nodes(avals: Sequence[core.ShapedArray], donated: Sequence[bool] = ()) -> list[Node]:
    """Placeholder nodes for a program's inputs 0..n-1: contiguous buffers of each aval."""
    donated = list(donated) + [False] * (len(avals) - len(donated))
    return [graph.view(graph.buffer(Input(i, a.size, a.dtype, d)), ShapeTracker.from_shape((a.size,)).reshape(a.shape))
            for i, (a, d) in enumerate(zip(avals, donated))]


def scalar_node(x: Any) -> Node:
    aval = core.get_aval(x)
    if core.is_python_scalar(x):
        return graph.const(x, aval.dtype, ())
    return const_node(x)


def const_node(x: Any) -> Node:
    """The node of a concrete array a jaxpr closes over (its value computed first if pending)."""
    if isinstance(x, Array):
        return (x.to_device(_targets[-1]) if _targets else x).realized_node()
    if core.is_python_scalar(x):
        return graph.const(x, core.get_aval(x).dtype, ())
    np = hostdata.numpy_or_none()
    if np is not None and isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind != "O":
        return Array.from_numpy(x, core.get_aval(x).dtype, _targets[-1] if _targets else default_device()
                                ).realized_node()
    raise TypeError(f"jaxweb: cannot use a {type(x).__name__} as a jaxpr constant")


def check_lowered(n: Node, aval: core.ShapedArray, prim: Any) -> None:
    if n.shape != aval.shape or n.dtype is not aval.dtype:
        raise AssertionError(f"lowering of {prim} produced {n.dtype.name}{list(n.shape)}, "
                             f"expected {aval.str_short(False)}")
