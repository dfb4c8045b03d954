"""Memory planning: where each scheduled value lives and for how long.

Schedule buffer ids: the graph's buffer leaves come first (the program's inputs, in
first-use order), then one id per kernel output. Each buffer is allocated right
before the kernel that writes it and freed right after the last kernel that reads
it (program outputs are never freed), so a program's peak is its largest live set
plus what the device allocator wastes; the allocator reuses the freed blocks for
later buffers. A donated input's memory (`donate_argnums`) is taken over by a later
buffer of the same size (a program output takes first the donated input JAX pairs it with)
once the input has been read for the last time — or by the kernel reading it, when that
kernel reads it only at the element it writes. Because
execution is in order, a backend may perform all of a schedule's allocations and
frees first and then run every kernel in one call.
"""
from __future__ import annotations

from typing import Sequence

from . import expr as E
from .graph import Input, Node
from .kernel import Alloc, Call, Free, Kernel, OutSpec, Run, Schedule, gidx
from .lower import flat_index


def plan(launches: list, outputs: Sequence[Node], kernels: list) -> Schedule:
    """`launches`: (Kernel or Routine, output values, input values by slot) in run order,
    where values are graph nodes or `gemm.Temp`s; `kernels` are the fused kernels."""
    bid: dict[int, int] = {}
    inputs: list[Node] = []

    def leaf(n: Node) -> int:
        b = bid.get(id(n))
        if b is None:
            b = bid[id(n)] = len(inputs)
            inputs.append(n)
        return b

    for _, _, ins in launches:
        for v in ins:
            if isinstance(v, Node) and v.op == "buffer":
                leaf(v)
    for o in outputs:
        if o.op == "buffer":
            leaf(o)
        elif o.op == "view" and o.src[0].op == "buffer":
            leaf(o.src[0])
    nbytes: dict[int, int] = {}
    nxt = len(inputs)
    for _, outs, _ in launches:
        for v in outs:
            bid[id(v)] = nxt
            nbytes[nxt] = v.size * v.dtype.itemsize
            nxt += 1
    out_specs = [_out_spec(o, bid) for o in outputs]
    keep = {s.buf for s in out_specs if s.buf is not None}
    last: dict[int, int] = {}
    for i, (_, _, ins) in enumerate(launches):
        for v in ins:
            last[bid[id(v)]] = i
    donated = {b: n.shape[0] * n.dtype.itemsize for b, n in enumerate(inputs)
               if isinstance(n.arg, Input) and n.arg.donated and b not in keep}
    partner = _partners(out_specs, inputs, donated, nbytes)
    paired = set(partner.values())  # kept for their outputs: other buffers take other donated memory
    reused: set[int] = set()
    steps: list = []
    for i, (k, outs, ins) in enumerate(launches):
        out_ids = tuple(bid[id(v)] for v in outs)
        if not isinstance(k, Call):  # a control-flow step's sub-programs allocate what they return
            for v in outs:
                b = bid[id(v)]
                take = partner.get(b)
                width = v.dtype.itemsize
                if take not in donated or not _may_take(take, i, k, ins, bid, last, width):
                    take = next((d for d, n in donated.items() if n == nbytes[b] and d not in paired
                                 and _may_take(d, i, k, ins, bid, last, width)), None)
                if take is not None:
                    del donated[take]
                    reused.add(take)
                steps.append(Alloc(b, nbytes[b], _what(v, k), take))
        steps.append(Run(k, out_ids, tuple(bid[id(v)] for v in ins)))
        for b in out_ids:
            if b not in keep and b not in last:
                steps.append(Free(b))  # written and never read (a kernel's unused output)
        for b in dict.fromkeys(bid[id(v)] for v in ins):
            if last[b] == i and b >= len(inputs) and b not in keep:
                steps.append(Free(b))
    return Schedule(steps, inputs, out_specs, nbytes, kernels, reused)


def _partners(out_specs: list, inputs: list, donated: dict, nbytes: dict) -> dict:
    """The donated input each program output takes first, paired as JAX pairs them (each output
    in turn, the first unpaired donated input of its dtype and size, in argument order): a step
    that returns updated versions of what it was given (a training loop's parameters) then keeps
    each in the same memory every call, rather than the roles rotating through the buffers (which
    would change the buffers a replay is keyed by, backends/*/replay.py)."""
    free = sorted(donated, key=lambda d: inputs[d].arg.index)
    pairs: dict[int, int] = {}
    for spec in out_specs:
        b = spec.buf
        if b is None or b < len(inputs) or b in pairs:
            continue
        d = next((d for d in free if donated[d] == nbytes[b] and inputs[d].dtype == spec.dtype), None)
        if d is not None:
            pairs[b] = d
            free.remove(d)
    return pairs


def _may_take(d: int, i: int, k, ins: list, bid: dict, last: dict, width: int) -> bool:
    """Whether launch i may write its output of `width` bytes per element over donated input d:
    d is not read from launch i on, or launch i is an elementwise kernel reading d only at the
    element it writes, and d's elements are as wide (a float32 output over an int8 input of the
    same bytes would write element j over the bytes of elements 4j..4j+3, still to be read)."""
    end = last.get(d, -1)
    if end < i:
        return True
    if end > i or not isinstance(k, Kernel) or k.reduce_op:
        return False
    here = flat_index(gidx(k.shape), k.shape)
    slots = [s for s, v in enumerate(ins) if bid[id(v)] == d]
    if any(ins[s].dtype.itemsize != width for s in slots):
        return False
    nodes = list(E.walk_all(k.outs))
    loads = [e for e in nodes if e.op == "load" and e.arg in slots]
    return all(len(e.src) == 1 and e.src[0] is here for e in loads) and not any(e.op == "reduce" for e in nodes)


def _what(v, k) -> str:
    shape = list(v.shape) if isinstance(v, Node) else [v.size]
    return f"{v.dtype.name}{shape} in {k.name}"


def _out_spec(o: Node, bid: dict[int, int]) -> OutSpec:
    if id(o) in bid:
        return OutSpec(o.shape, o.dtype, bid[id(o)], o.size if o.op != "buffer" else o.shape[0])
    if o.op == "const":
        return OutSpec(o.shape, o.dtype, None, const=o.arg)
    assert o.op == "view" and id(o.src[0]) in bid, f"output {o} was not scheduled"
    base = o.src[0]
    return OutSpec(o.shape, o.dtype, bid[id(base)], base.size, o.arg)


def live_bytes(s: Schedule) -> int:
    """The largest total size of the buffers one schedule holds at once (its own, not inputs)."""
    live = peak = 0
    for step in s.steps:
        if isinstance(step, Alloc):
            live += step.nbytes
            peak = max(peak, live)
        elif isinstance(step, Free):
            live -= s.nbytes[step.buf]
    return peak

