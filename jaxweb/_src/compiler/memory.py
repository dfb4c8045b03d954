"""Memory planning: where each scheduled value lives and for how long.

Schedule buffer ids: the graph's buffer leaves come first (the program's inputs, in
first-use order), then one id per kernel output. Each buffer is allocated right
before the kernel that writes it and freed right after the last kernel that reads
it (program outputs are never freed), so a program's peak is its largest live set
plus what the device allocator wastes; the allocator reuses the freed blocks for
later buffers. Because execution is in order, a backend may perform all of a
schedule's allocations and frees first and then run every kernel in one call.
"""
from __future__ import annotations

from typing import Sequence

from .graph import Node
from .kernel import Alloc, Free, OutSpec, Run, Schedule


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
    steps: list = []
    for i, (k, outs, ins) in enumerate(launches):
        out_ids = tuple(bid[id(v)] for v in outs)
        steps.extend(Alloc(b, nbytes[b]) for b in out_ids)
        steps.append(Run(k, out_ids, tuple(bid[id(v)] for v in ins)))
        for b in out_ids:
            if b not in keep and b not in last:
                steps.append(Free(b))  # written and never read (a kernel's unused output)
        for b in dict.fromkeys(bid[id(v)] for v in ins):
            if last[b] == i and b >= len(inputs) and b not in keep:
                steps.append(Free(b))
    return Schedule(steps, inputs, out_specs, nbytes, kernels)


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

