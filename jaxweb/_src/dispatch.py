"""Eager dispatch: a primitive applied to concrete Arrays builds lazy graph nodes.

`def_lowering(prim)` registers a lowering rule (graph nodes in, graph nodes out, in
`lowering.lowering_rules`) and makes the eager implementation of `prim` "check the
abstract values, lower, return Arrays holding the result nodes". Nothing runs yet:
pending results are queued on their device (`execution`) and computed, fused with
whatever else is pending, when a value is needed. Shape and dtype errors raise at
the call, because abstract evaluation happens here.
"""
from __future__ import annotations

from functools import partial
from typing import Any

from . import core
from .array import Array
from .compiler import graph
from .compiler.graph import Node
from .config import read, override
from .device import Buffer, Device, default_device, devices
from .lowering import lower_primitive, lowering_rules
from .host_arrays import from_host


def def_lowering(prim: core.Primitive):
    """Decorator: `fn(*nodes, **params) -> node` (a list if multiple_results)."""
    def register(fn):
        lowering_rules[prim] = fn
        core.impl_rules[prim] = partial(eager_apply, prim)
        return fn
    return register


def device_of(args: tuple) -> Device:
    for a in args:
        if isinstance(a, Array):
            return a.device
    return default_device()


def to_node(x: Any, device: Device) -> Node:
    if isinstance(x, Array):
        if x._node is None:
            raise x._deleted_error()
        if x.device is not device:
            x = device_put(x, device)
        return x._node
    if core.is_python_scalar(x):
        return graph.const(x, core.get_aval(x).dtype, ())
    return device_put(x, device)._node


def eager_apply(prim: core.Primitive, *args: Any, **params: Any) -> Any:
    device = device_of(args)
    avals = [core.get_aval(a) for a in args]
    if params:
        out_avals = prim.abstract_eval(*avals, **params)
    else:  # elementwise ops on the same shapes, again and again: checked once
        key = (prim, read("jax_enable_x64"), *avals)
        out_avals = _AVALS.get(key)
        if out_avals is None:
            out_avals = prim.abstract_eval(*avals)
            if len(_AVALS) < 4096:
                _AVALS[key] = out_avals
    outs = lower_primitive(prim, [to_node(a, device) for a in args], params)
    if not prim.multiple_results:
        return _wrap(outs[0], out_avals, device, prim)
    return [_wrap(n, a, device, prim) for n, a in zip(outs, out_avals)]


_AVALS: dict[tuple, Any] = {}  # (primitive, operand avals) -> result aval(s), for parameterless ops


def _wrap(n: Node, aval: core.ShapedArray, device: Device, prim: Any) -> Array:
    if n.shape != aval.shape or n.dtype is not aval.dtype:
        raise AssertionError(f"lowering of {prim} produced {n.dtype.name}{list(n.shape)}, "
                             f"expected {aval.str_short(False)}")
    return Array(aval, device, n)


def materialize(n: Node, aval: core.ShapedArray, device: Device, prim: Any = None) -> Array:
    """An Array holding node `n` (pending until needed)."""
    return _wrap(n, aval, device, prim)


def contiguous_buffer(x: Array) -> Buffer:
    """A buffer holding exactly x's elements in row-major order (copying if it is a view)."""
    return x.contiguous_buffer()


def device_put(x: Any, device: Device | str | None = None) -> Array:
    """`jaxweb.device_put`: an Array of `x` on `device` (default device if None)."""
    if isinstance(device, str):
        device = devices(device)[0]
    device = device or default_device()
    if isinstance(x, Array):
        return x.to_device(device)
    with override("jax_default_device", device):
        return from_host(x)
