"""Compiled jitted programs: a jaxpr lowered once per device into one schedule.

`Executable(closed_jaxpr, device, name)` type-checks the jaxpr, lowers all of it
into one lazy graph (its inputs are placeholder buffers, its constants the
captured arrays), schedules the graph for the device's backend and compiles every
kernel. Each call binds the argument buffers and hands the whole schedule to the
backend in one `submit`. Executables are cached per (jaxpr, device) for as long as
the jaxpr lives (the jit trace cache that holds jaxprs is bounded).

A scalar argument (a Python number, `jnp.float32(v)`: a constant array of at most 64
elements) is written into the executable's own buffer for its position, rewritten only when
its value changes: a training loop's step counter or learning rate then costs one buffer
write per call and binds the same buffer every call, so the call can replay (webgpu replay.py).
Where the backend can (`write_soon`), that write rides with the call's submit: on webgpu in
Pyodide, inside the replay's one JS call. Positions the program returns, or donates, get the
argument's own buffer as before.

A steady call does little Python: arguments that hold their buffer whole are bound as they are
(`array.held_buffers`), the schedule's inputs come from a table made once (`_leaves`), outputs are wrapped
from a plan made once (execution.output_plan) as Arrays known to be computed
(`Array.realized_all`); jitted._Jitted keeps this Executable for its trace, so a loop's call reaches it
without a bind or a cache lookup.
"""
from __future__ import annotations

import logging
import sys
import weakref
from typing import Any, Sequence

from . import core, execution, profiler
from .array import Array, held_buffers
from .compiler.cost import schedule_cost
from .compiler.graph import Input
from .compiler.schedule import schedule
from .config import read
from .device import Buffer, Device, default_device
from .dispatch import device_put
from .jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, typecheck
from .lowering import collect_effects, const_node, input_nodes, lower_jaxpr, target_device

logger = logging.getLogger("jaxweb")


class Executable:
    """One jaxpr compiled for one device."""

    def __init__(self, closed: ClosedJaxpr, device: Device, name: str = "fun", donated: Sequence[bool] = ()):
        typecheck(closed.jaxpr)
        self.name, self.device, self.closed, self.donated = name, device, closed, tuple(donated)
        self.in_avals = list(closed.in_avals)
        self.out_avals = list(closed.out_avals)
        if read("jax_log_compiles"):
            logger.warning("Compiling %s with global shapes and types %s on %s.", name,
                           [a.str_short() for a in self.in_avals], device)
        with profiler.host_span(f"compile {name}"):
            with collect_effects() as effects, target_device(device):
                outs = lower_jaxpr(closed.jaxpr, [const_node(c) for c in closed.consts],
                                   input_nodes(self.in_avals, self.donated))
            self.schedule = schedule(outs, device.backend.capabilities, effects=effects)
            self.prepared = device.backend.prepare(self.schedule)
        self.span = f"jit {name}"
        self._outs = execution.output_plan(self.schedule)  # how each output reads its buffer
        self.taken = [self.schedule.inputs[b].arg.index for b in self.schedule.reused]
        inputs = self.schedule.inputs
        returned = {inputs[o.buf].arg.index for o in self.schedule.outputs
                    if o.buf is not None and o.buf < len(inputs) and hasattr(inputs[o.buf].arg, "index")}
        self._own = set(range(len(self.in_avals))) - returned - set(self.taken)  # scalars may use _params
        self._params: dict[int, list] = {}  # argument position -> [its buffer, the bytes written, their node]
        # the schedule's input leaves: argument j (an `Input`), or a captured buffer (j = -1);
        # None where a leaf is neither (then `execution.bind_inputs` binds them); a tuple of the
        # argument positions where every leaf is an argument
        leaves = [leaf.arg for leaf in inputs]
        self._leaves = [(a.index, None) if isinstance(a, Input) else (-1, a) for a in leaves] \
            if all(isinstance(a, (Input, Buffer)) for a in leaves) else None
        if self._leaves is not None and all(j >= 0 for j, _ in self._leaves):
            self._leaves = tuple(j for j, _ in self._leaves)
            if self._leaves == tuple(range(len(self.in_avals))):  # the arguments, in order
                self._leaves = _SAME

    def __call__(self, args: Sequence[Any]) -> list[Array]:
        dev, own = self.device, self._own
        bufs = held_buffers(args, dev)
        if None in bufs:
            for i, b in enumerate(bufs):
                if b is None:
                    bufs[i] = self._param(i, args[i]) if i in own else _arg_buffer(args[i], dev)
        taken = self.taken
        if taken:  # the program writes over these: only if no other array, nor another argument, reads them
            again = _bound_twice(bufs)
            for i in taken:
                if not _sole_holder(args[i]) or again and again.get(id(bufs[i]), 0) > 1:
                    if again:
                        again[id(bufs[i])] -= 1
                    bufs[i] = _copy_buffer(bufs[i])
        leaves = self._leaves
        bound = execution.bind_inputs(self.schedule, bufs) if leaves is None else bufs if leaves is _SAME else \
            list(map(bufs.__getitem__, leaves)) if type(leaves) is tuple else \
            [bufs[j] if j >= 0 else b for j, b in leaves]
        if profiler.active() is None:
            nodes = execution.run_schedule(self.device, self.schedule, bound, self.prepared, self._outs)
        else:
            with profiler.host_span(self.span):
                nodes = execution.run_schedule(self.device, self.schedule, bound, self.prepared, self._outs)
        for i in self.taken:  # their memory now belongs to this call's buffers
            bufs[i].release()
        if self.donated:
            for a, d in zip(args, self.donated):
                if d and isinstance(a, Array):
                    a.delete()
        return Array.realized_all(self.out_avals, dev, nodes)

    def _param(self, i: int, x: Any) -> Any:
        """Argument `i`'s buffer: for a small constant, this executable's own, its bytes
        written when they change; else the argument's (`_arg_buffer`). The slot remembers the
        constant's node (nodes of equal constants are one node): the same node again, nothing
        to write."""
        if type(x) is not Array or x._device is not self.device:
            x = device_put(x, self.device)
        node, aval = x._node, x.aval
        size = aval.size
        if node is None or node.op != "const" or not 0 < size <= _SCALAR_ARG or not aval.dtype.itemsize:
            return x.contiguous_buffer()
        slot = self._params.get(i)
        if slot is not None and (slot[0].size != size or slot[0].dtype is not aval.dtype or _stale(slot[0])):
            slot = None
        if slot is not None and slot[2] is node:
            return slot[0]
        data = x._host_bytes()
        if slot is None:
            slot = self._params[i] = [Buffer(self.device, aval.size, aval.dtype, "jit scalar argument"), None, None]
        if slot[1] != data:
            soon = getattr(self.device.backend, "write_soon", None)
            if soon is None or profiler.active() is not None:  # a trace shows the transfer
                slot[0].write(data)
            else:  # with the call's submit (webgpu: in the same runtime call as its replay)
                soon(slot[0].handle, data)
            slot[1] = data
        slot[2] = node
        return slot[0]

    def cost_analysis(self) -> dict[str, float]:
        return schedule_cost(self.schedule)

    def as_text(self) -> str:
        backend = self.device.backend
        parts = []
        for k in self.schedule.kernels:
            parts.append(k.text())
            source = getattr(backend, "kernel_source", None)
            if source is not None:
                parts.append(source(k))
        return "\n\n".join(parts)


#: `Executable._leaves` where the schedule's inputs are the arguments themselves, in order
_SAME = ("the arguments, in order",)

_SCALAR_ARG = 64  # elements of a constant argument written into the executable's own buffer


def _stale(buf: Buffer) -> bool:
    """Whether `buf` was made by a GPU device since lost (its handle's `gen` is not the
    backend's): a scalar argument's buffer is then made anew, so later calls work."""
    gen = getattr(buf.handle, "gen", None)
    return gen is not None and gen != getattr(buf.device.backend, "gen", gen)


def _arg_buffer(x: Any, device: Device) -> Any:
    """A contiguous buffer of argument `x` on `device` (pending values are computed first;
    views and constants are copied once and the Array keeps the copy)."""
    if not isinstance(x, Array) or x.device is not device:
        x = device_put(x, device)
    return x.contiguous_buffer()


def _refcount(obj: Any) -> int:
    return sys.getrefcount(obj)


_probe = [object()]
#: what `_refcount(holder.attr)` reads for an object that one container alone references
#: (measured, not assumed: CPython 3.14 counts borrowed stack references differently)
_ONE_HOLDER = _refcount(_probe[0])
del _probe


def _sole_holder(x: Any) -> bool:
    """Whether donated `x` is the only array that reads its buffer. Arrays are immutable, so
    equal values share storage (`x.copy()`, `jnp.array(x)`, views such as `x.T`, a pending `x + 1`,
    all arrays realized from one lazy value): the graph nodes that hold the buffer are
    referenced by those arrays and graphs only (node caches are weak), so a node referenced
    once — by `x` itself — means no other array can see the buffer the program overwrites."""
    if not isinstance(x, Array) or _refcount(x._node) != _ONE_HOLDER:
        return False
    return x._node.op == "buffer" or _refcount(x._node.src[0]) == _ONE_HOLDER


def _bound_twice(bufs: list) -> dict | None:
    """How many positions bind each buffer, or None when none is bound twice (one C-speed check
    per call): a donated argument also passed at another position (`f(x, x)`, a pytree with one
    array at two leaves) must not be written over while that position reads it."""
    if len(set(map(id, bufs))) == len(bufs):
        return None
    count: dict = {}
    for b in bufs:
        count[id(b)] = count.get(id(b), 0) + 1
    return count


def _copy_buffer(buf: Any) -> Any:
    """A fresh buffer with `buf`'s bytes (a device copy): what a donation overwrites when the
    donated buffer is shared, so the other arrays keep their values, as in JAX."""
    out = Buffer(buf.device, buf.size, buf.dtype, "donated argument shared with another array")
    buf.device.backend.copy(out.handle, buf.handle, buf.nbytes)
    return out


_CACHE: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def executable(closed: ClosedJaxpr, device: Device, name: str, donated: Sequence[bool] = ()) -> Executable:
    per = _CACHE.setdefault(closed, {})
    key = (id(device), tuple(donated))
    exe = per.get(key)
    if exe is None:
        exe = per[key] = Executable(closed, device, name, donated)
    return exe


#: Executables a jitted function keeps for its quick path (`call_kept`): a loop needs one or two;
#: kept strongly, so few (a program otherwise lives exactly as long as its jaxpr)
MAX_KEPT = 8


def call_kept(kept: dict, closed: ClosedJaxpr, flat: list, donated: Sequence[bool], name: str) -> list:
    """`closed` run on `flat` (concrete Arrays, nothing tracing: what binding `jit` would come to)
    by the Executable `kept` (a jitted function's own dict) holds for it, found or made as
    `executable` makes it."""
    device, donated = flat[0]._device, tuple(donated) if any(donated) else ()
    hit = kept.get(id(closed))
    if hit is None or hit[0] is not closed or hit[1] is not device or hit[2] != donated:
        if len(kept) >= MAX_KEPT:  # the oldest goes
            del kept[next(iter(kept))]
        hit = kept[id(closed)] = (closed, device, donated, executable(closed, device, name, donated))
    return hit[3](flat)


def clear_cache() -> None:
    """Drop every compiled program (`jax.clear_caches`)."""
    _CACHE.clear()


def device_for(args: Sequence[Any]) -> Device:
    """The device a jitted call runs on: its first Array argument's, else the default."""
    for a in args:
        if isinstance(a, Array):
            return a.device
    return default_device()



def one_equation_impl(prim: Any, anchor: Any = None) -> Any:
    """`prim`'s eager impl: the jaxpr applying `prim` once, compiled and run like a jitted
    call (what fft, linalg and control flow evaluate eagerly with). One jaxpr per avals and
    params; with `anchor(params)` (a body jaxpr) the jaxprs live only as long as it does."""
    cache: Any = weakref.WeakKeyDictionary() if anchor else {}

    def impl(*args: Any, **params: Any) -> Any:
        avals = tuple(core.get_aval(a) for a in args)
        per = cache.setdefault(anchor(params), {}) if anchor else cache
        key = (avals, tuple(sorted((k, _param_key(v)) for k, v in params.items())))
        closed = per.get(key)
        if closed is None:
            invars = [Var(a) for a in avals]
            outs = prim.abstract_eval(*avals, **params)
            outvars = [Var(a) for a in (outs if prim.multiple_results else [outs])]
            closed = per[key] = ClosedJaxpr(Jaxpr([], invars, outvars, [JaxprEqn(prim, invars, params, outvars)]), [])
        outs = executable(closed, device_for(args), prim.name)(list(args))
        return list(outs) if prim.multiple_results else outs[0]
    return impl


def _param_key(v: Any) -> Any:
    """A hashable stand-in for a parameter (a jaxpr by identity)."""
    if isinstance(v, ClosedJaxpr):
        return id(v)
    if isinstance(v, tuple):
        return tuple(_param_key(x) for x in v)
    return v
