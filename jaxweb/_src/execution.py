"""Running schedules on devices, and the pending graph of eager code.

Eager ops do not run when called: their results are Arrays holding lazy graph
nodes, queued on their device. The queue is flushed — every queued Array still
alive becomes an output of one schedule, so eager code fuses as jitted code does
(`x = x + 1` a thousand times is one kernel) — when a value is observed (printing,
`tolist`, `float`, `block_until_ready`, a host transfer), when a jitted call reads a
pending Array, or when the queue has grown past `MAX_PENDING` ops (a bound on memory
and schedule size, kept large so that where an unobserved loop is cut varies little:
each new cut compiles new kernels). Queued work keeps the buffers it reads alive
simply because graph nodes hold their `Buffer`s.

`run_schedule` is the one way a schedule runs: it binds the schedule's input
buffers, hands the whole schedule to the backend (`Backend.submit`: one call) and
wraps the output memory in `Buffer`s owned by Python.
"""
from __future__ import annotations

import dataclasses
import operator
import weakref
from collections import OrderedDict
from typing import Any, Sequence

from . import hostdata, memory, profiler
from .compiler import expr as E
from .compiler import graph, params
from .compiler.graph import Input, Node
from .compiler.kernel import Schedule
from .compiler.complex_pairs import RealAlias
from .compiler.schedule import schedule
from .compiler.shapetracker import ShapeTracker, strides_for
from .device import Buffer, Device

#: ops queued on a device before its queue is flushed regardless of observation
MAX_PENDING = 2048


class _Queue:
    __slots__ = ("holders", "ops")

    def __init__(self):
        self.holders: list[weakref.ref] = []
        self.ops = 0


_QUEUES: dict[int, _Queue] = {}


def enqueue(device: Device, holder: Any) -> None:
    """Queue `holder` (an object with a pending `_node`) for the next flush of `device`."""
    q = _QUEUES.get(id(device))
    if q is None:
        q = _QUEUES[id(device)] = _Queue()
    q.holders.append(weakref.ref(holder))
    q.ops += 1
    if q.ops >= MAX_PENDING:
        flush(device)


def flush(device: Device, wanted: Any = None) -> None:
    """Compute every live queued value of `device` (one schedule, one submit).

    If that fails, each value is computed on its own (`_isolate`): the ones that still
    fail stay pending and raise when read. The error is raised here unless the value
    `wanted` (the holder being read) was computed and another value is the one that fails
    (one the device cannot compute, say): a failure that retrying cured — a thread pool
    that stalled, say — is still reported."""
    q = _QUEUES.get(id(device))
    if q is None or not q.holders:
        return
    refs, q.holders, q.ops = q.holders, [], 0
    live = [h for h in (r() for r in refs) if h is not None and not graph.is_realized(h._node)]
    if not live:
        return
    nodes = list({id(h._node): h._node for h in live}.values())
    try:
        results = evaluate(device, nodes)
    except Exception:
        failing = _isolate(device, live)
        if wanted is None or not graph.is_realized(wanted._node) or not failing:
            raise
        return
    by_id = {id(n): r for n, r in zip(nodes, results)}
    for h in live:
        h._node = by_id[id(h._node)]


def step_boundary(values: Any) -> None:
    """A natural end of an eager step (a gradient just computed, say): flush the queues of
    the devices holding pending `values` (a pytree's leaves), so that an unobserved eager
    training loop runs one step's graph at a time — each flush the same graph, whose
    schedule the template cache reuses — rather than one graph growing across steps to
    `MAX_PENDING` ops, cut wherever that falls."""
    seen = set()
    for v in values:
        node = getattr(v, "_node", None)
        device = getattr(v, "_device", None)
        if node is not None and device is not None and id(device) not in seen and not graph.is_realized(node):
            seen.add(id(device))
            flush(device)


def _isolate(device: Device, live: list) -> int:
    """After a failed flush (out of memory, say), compute each value on its own, so that one
    failure does not take the others with it; the failing ones stay pending and raise
    again when read (`realize`). Returns how many still fail."""
    failing = 0
    for h in live:
        try:
            h._node = evaluate(device, [h._node])[0]
        except Exception:
            failing += 1
    return failing


def realize(device: Device, holder: Any) -> Node:
    """The realized node of `holder`, computing the device's queue (or, if that could not
    compute it, the holder's own value, raising what that raises)."""
    flush(device, holder)
    if not graph.is_realized(holder._node):
        holder._node = evaluate(device, [holder._node])[0]
    return holder._node


def evaluate(device: Device, nodes: Sequence[Node], materialize: bool = False) -> list[Node]:
    """Realized nodes (views of new buffers, or constants) with the values of `nodes`.

    Eager code repeats itself (a training loop runs the same ops on new buffers each
    step), so a graph made only of structural nodes is looked up by its shape — the DAG
    with its buffer leaves numbered — and a hit reuses the schedule and the compiled
    program, binding this graph's buffers: no lowering or scheduling per flush."""
    with profiler.host_span("eager flush"):
        return _evaluate(device, nodes, materialize)


def _evaluate(device: Device, nodes: Sequence[Node], materialize: bool) -> list[Node]:
    tkey, leaves, consts = _template_key(nodes, materialize)
    per = _TEMPLATES.setdefault(id(device), OrderedDict())
    hit = per.get(tkey) if tkey is not None else None
    if hit is None:
        sched = schedule(nodes, device.backend.capabilities, materialize=materialize, lift=True)
        program = device.backend.prepare(sched)
        if tkey is None:
            return run_schedule(device, sched, bind_inputs(sched, (), device), program)
        template = _as_template(sched, leaves)
        if template is None:  # its inputs are not the graph's leaves (a legalized complex graph)
            return run_schedule(device, sched, bind_inputs(sched, (), device), program)
        program.schedule = template  # the cache must hold no buffer: they are this flush's
        hit = per[tkey] = (template, program, output_plan(template))
        if len(per) > MAX_TEMPLATES:
            per.popitem(last=False)
    else:
        per.move_to_end(tkey)
    sched, program, plan = hit
    return run_schedule(device, sched, bind_inputs(sched, leaves, device, consts), program, plan)


#: flush schedules kept per device (least recently used dropped first)
MAX_TEMPLATES = 256
_TEMPLATES: dict[int, OrderedDict] = {}
#: ops whose nodes are fully described by (op, dtype, shape, sources, arg): `fn` nodes
#: (closures) and control-flow calls are not, so graphs holding them are never templated
_STRUCTURAL = graph.ELEMENTWISE | {"buffer", "view", "const", "reduce"}


def _template_key(nodes: Sequence[Node], materialize: bool) -> tuple[Any, list, list]:
    """(the DAG of `nodes` with buffer leaves numbered and lifted values left out (`params`),
    the leaves' buffers, the lifted values in order); (None, [], []) when the graph holds
    a node that is not structural."""
    order = graph.toposort(nodes)
    num: dict[int, int] = {}
    leaves: list = []
    consts: list = []
    leaf_of: dict[int, int] = {}
    parts: list = [materialize]
    for n in order:
        op = n.op
        if op not in _STRUCTURAL:
            return None, [], []
        if op == "buffer":
            b = n.arg
            j = leaf_of.get(id(b))
            if j is None:
                j = leaf_of[id(b)] = len(leaves)
                leaves.append(b)
            parts.append(("buffer", n.dtype, n.shape, j))
        else:
            if n.dtype.kind == "c":  # legalized into new real nodes: their values are not these
                return None, [], []
            lifted = params.lifted_values(n)
            if lifted is not None:  # values that are parameters, not the kernel's text
                consts.extend(lifted[1])
                parts.append((lifted[0], tuple(num[id(s)] for s in n.src)))
            else:
                arg = E._hashable(n.arg) if op == "const" else n.arg
                parts.append((op, n.dtype, n.shape, tuple(num[id(s)] for s in n.src), arg))
        num[id(n)] = len(num)
    if any(n.op == "const" for n in nodes):  # an output's value would be the cached one
        return None, [], []
    parts.append(tuple(num[id(n)] for n in nodes))
    return tuple(parts), leaves, consts


def _as_template(sched: Schedule, leaves: list) -> Schedule | None:
    """`sched` with its input leaves replaced by `Input` placeholders numbered as `leaves`
    and its parameter blocks emptied (so the cache holds no buffer and no value), or None
    if an input is not one of `leaves`."""
    pos = {id(b): j for j, b in enumerate(leaves)}
    inputs = []
    for leaf in sched.inputs:
        if isinstance(leaf.arg, params.ParamBlock):
            inputs.append(graph.buffer(leaf.arg.cached()))
            continue
        j = pos.get(id(leaf.arg))
        if j is None or isinstance(leaf.arg, Input):
            return None
        inputs.append(graph.buffer(Input(j, leaf.arg.size, leaf.dtype)))
    return dataclasses.replace(sched, inputs=inputs)


def bind_inputs(sched: Schedule, args: Sequence[Buffer], device: Device | None = None,
                consts: Sequence[Any] = ()) -> list[Buffer]:
    """The buffers of a schedule's input leaves: captured buffers, a jitted call's arguments,
    parameter blocks written with this run's scalars (`consts`: the lifted values of the graph a
    cached eager schedule runs)."""
    out = []
    for leaf in sched.inputs:
        a = leaf.arg
        if isinstance(a, Input):
            out.append(args[a.index])
        elif isinstance(a, params.ParamBlock):
            buf = Buffer(device, a.size, a.dtype, "kernel parameters")
            buf.write(hostdata.pack(a.values(consts), a.dtype))
            out.append(buf)
        else:
            out.append(a)
    return out


def copied_slice(device: Device, n: Node) -> Node | None:
    """A contiguous slice of a buffer (a batch cut from a dataset at a new offset each step)
    as a new buffer filled by a device copy: no kernel, so no kernel per offset either.
    None where a copy cannot do it (another view, or bytes not word-aligned)."""
    base, views = n.src[0].arg, n.arg.views
    if not isinstance(base, Buffer) or len(views) != 1:
        return None
    v = views[0]
    size = base.dtype.itemsize
    if v.mask is not None or v.strides != strides_for(v.shape) or v.offset < 0 \
            or (v.offset * size) % 4 or (n.size * size) % 4:
        return None
    buf = Buffer(device, n.size, n.dtype)
    backend = device.backend
    backend.copy(buf.handle, backend.offset(base.handle, v.offset * size), n.size * size)
    return graph.view(graph.buffer(buf), ShapeTracker.from_shape((n.size,)).reshape(n.shape))


def run_schedule(device: Device, sched: Schedule, inputs: list[Buffer], program: Any = None,
                 plan: list | None = None) -> list[Node]:
    """Run `sched` on `device` reading `inputs`; its outputs as realized nodes (`plan`: its
    `output_plan`, where the caller keeps one)."""
    backend = device.backend
    if program is None:
        program = backend.prepare(sched)
    alloc = memory.allocator(device)
    got = backend.submit(program, list(map(_handle, inputs)), alloc, alloc.free)
    return wrap_outputs(device, sched, got, inputs, output_plan(sched) if plan is None else plan)


_handle = operator.attrgetter("handle")

#: `output_plan` kinds: an output alone reading a new buffer; a new buffer several outputs read;
#: (a view of) an input's buffer; a constant or a legalized complex output
NEW, SHARED, INPUT, OTHER = range(4)


def output_plan(sched: Schedule) -> list:
    """How each output of `sched` reads its buffer, worked out once per program (an Executable
    keeps it, as the eager flush cache keeps its templates'): rows (kind, output, schedule
    buffer, elements, dtype, view), the view None where the output reads all of the buffer in
    order (the buffer's own node serves)."""
    n_in, readers = len(sched.inputs), {}
    for spec in sched.outputs:
        if spec.buf is not None:
            readers[spec.buf] = readers.get(spec.buf, 0) + 1
    rows = []
    for i, spec in enumerate(sched.outputs):
        if spec.buf is None or i in sched.complex_outputs:
            rows.append((OTHER, i, spec.buf, 0, None, None))
            continue
        st = spec.view()
        whole = st.shape == (spec.buf_size,) and st.is_contiguous
        kind = INPUT if spec.buf < n_in else NEW if readers[spec.buf] == 1 else SHARED
        rows.append((kind, i, spec.buf, spec.buf_size, spec.dtype, None if whole else st))
    return rows


def wrap_outputs(device: Device, sched: Schedule, got: dict, inputs: list[Buffer], plan: list) -> list[Node]:
    """Nodes for a run's outputs as `plan` (`output_plan(sched)`) says: new memory becomes
    `Buffer`s (freed with their last reference), outputs that are (views of) inputs share the
    input's buffer. An output alone in its new buffer costs a `Buffer` and its node(s)
    (graph.fresh_output); buffers several outputs read get one `Buffer` for them all."""
    n_in, made, out = len(sched.inputs), {}, []
    adopt, fresh = Buffer.adopt, graph.fresh_output
    for kind, i, b, size, dt, st in plan:
        if kind == NEW:
            out.append(fresh(adopt(device, got[b], size, dt), st))
            continue
        if kind == OTHER:  # a constant, or a legalized complex output
            spec = sched.outputs[i]
            if spec.buf is None:
                out.append(graph.const(spec.const, spec.dtype, spec.shape))
            else:
                out.append(_complex_output(device, spec, sched.complex_outputs[i], got, inputs, n_in, made))
            continue
        base = made.get(b)
        if base is None:
            if kind == INPUT:
                buf = inputs[b]
                if buf.dtype.kind == "c":  # a real view (a part) of a complex input: its floats
                    buf = RealAlias(buf)
                base = made[b] = graph.buffer(buf)
            else:
                base = made[b] = graph.fresh_buffer(adopt(device, got[b], size, dt))
        out.append(graph.view(base, st) if kind == INPUT and st is not None else graph.fresh_view(base, st))
    return out


def _complex_output(device: Device, spec: Any, cdt: Any, got: dict, inputs: list, n_in: int,
                    made: dict) -> Node:
    """The complex node of a legalized complex output (a new contiguous buffer of pairs).
    Outputs sharing a buffer (a value returned twice) share its one `Buffer` (kept in `made`
    under ("complex", buffer)): two owners would free the memory twice."""
    shape = spec.shape[:-1]
    if spec.buf < n_in:  # the program wrote it over a donated complex input
        buf = getattr(inputs[spec.buf], "base", inputs[spec.buf])
    else:
        key = ("complex", spec.buf)
        buf = made.get(key)
        if buf is None:
            buf = made[key] = Buffer.adopt(device, got[spec.buf], spec.buf_size // 2, cdt)
    assert spec.st is None or spec.view().is_contiguous, "complex outputs are contiguous"
    return graph.view(graph.buffer(buf), ShapeTracker.from_shape((buf.size,)).reshape(shape))
