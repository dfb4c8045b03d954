"""A K-split product's partial sums added where they are read, not by a pass of their own.

A product whose K is split (`gemm.py`: the routine writes S partial C's) is followed by a
split-sum kernel adding them up (and applying the product's epilogue). Where every reader
of that kernel's outputs is an ordinary kernel, each can add the S partials itself at the
index it reads: one launch less (on the H200 a launch costs ~7.5 us of host time) for S - 1
more loads per element read. `split_sums` folds a split-sum kernel into its readers when
those extra bytes stay within the backend's budget (`GemmCaps.fold_bytes`; 0: never). The
sum runs in the split-sum kernel's order (partial 0, then 1, ...), so the values are the same.
"""
from __future__ import annotations

from typing import Any, Sequence

from . import expr as E
from .gemm import Temp, remap_loads
from .kernel import Kernel
from .shapetracker import prod, unflatten


def split_sums(launches: list, outputs: Sequence[Any], max_bytes: int, max_buffers: int | None) -> list:
    """`launches` ((program, outs, ins) triples in order) with the split-sum kernels whose
    outputs only ordinary kernels read, and no program output is, folded into those readers
    where that re-reads at most `max_bytes` more (and each fits `max_buffers` bindings)."""
    if not max_bytes:
        return launches
    kept = _output_nodes(outputs)
    launches = list(launches)
    i = 0
    while i < len(launches):
        k, outs, ins = launches[i]
        folded = None
        if _is_split_sum(k, ins) and not any(id(o) in kept for o in outs):
            folded = _fold(launches, i, max_bytes, max_buffers)
        if folded is None:
            i += 1
            continue
        for j, launch in folded.items():
            launches[j] = launch
        del launches[i]
    return launches


def _is_split_sum(k: Any, ins: Sequence[Any]) -> bool:
    """gemm.epilogue's sums pass over partial C's (`gemm._epilogue_kernel`, split): C is its in0."""
    return (isinstance(k, Kernel) and k.name.endswith("_split_sum") and k.reduce_op == "add"
            and len(k.reduce_shape) == 1 and bool(ins) and isinstance(ins[0], Temp))


def _output_nodes(outputs: Sequence[Any]) -> set[int]:
    """Ids of the nodes the program's outputs hold (through views): their buffers must exist."""
    out = set()
    for o in outputs:
        while True:
            out.add(id(o))
            if getattr(o, "op", None) != "view":
                break
            o = o.src[0]
    return out


def _fold(launches: list, i: int, max_bytes: int, max_buffers: int | None) -> dict | None:
    """{reader's position: its launch reading the partials} for split-sum launch `i`, or None."""
    sk, outs, s_ins = launches[i]
    which = {id(o): n for n, o in enumerate(outs)}
    readers = [j for j, (_, _, ins) in enumerate(launches) if any(id(v) in which for v in ins)]
    if not readers or any(not isinstance(launches[j][0], Kernel) or j < i for j in readers):
        return None
    extra = 0
    folded = {}
    for j in readers:
        rk, r_outs, r_ins = launches[j]
        got = _fold_into(rk, r_ins, which, sk, s_ins)
        if got is None:
            return None
        kernel, ins, reads = got
        if max_buffers is not None and len(ins) + len(r_outs) > max_buffers:
            return None
        extra += reads * (sk.reduce_shape[0] - 1) * 4
        folded[j] = (kernel, r_outs, ins)
    return folded if extra <= max_bytes else None


def _fold_into(rk: Kernel, r_ins: list, which: dict, sk: Kernel, s_ins: list) -> tuple | None:
    """(reader kernel `rk` computing the split-sum kernel's outputs itself where it loads them,
    its inputs, the loads of them it evaluates), or None where a load of the split product is
    masked or reads it at a position computed from the split product itself."""
    ins = [v for v in r_ins if id(v) not in which]
    at = {id(v): n for n, v in enumerate(ins)}
    for v in s_ins:
        if id(v) not in at:
            at[id(v)] = len(ins)
            ins.append(v)
    old = {s: at[id(v)] for s, v in enumerate(r_ins) if id(v) not in which}
    from_sum = {s: at[id(v)] for s, v in enumerate(s_ins)}
    out_of = {s: which[id(v)] for s, v in enumerate(r_ins) if id(v) in which}
    roots = list(rk.outs) + ([rk.body] if rk.reduce_op else [])
    free = E.free_indices(roots)
    subst, reads = {}, 0
    for e in E.walk_all(roots):
        if e.op != "load" or e.arg not in out_of:
            continue
        if len(e.src) > 1 or any(n.op == "load" and n.arg in out_of for n in E.walk(e.src[0])):
            return None
        # the position read may itself load other inputs (a gather: h[ids]): renumbered here, as
        # remap_loads below does not renumber inside what it substitutes
        subst[id(e)] = _sum_at(sk, out_of[e.arg], remap_loads(e.src[0], old), from_sum)
        loops = prod(rk.reduce_shape) if rk.reduce_op and any(x[0] == "r" for x in free[id(e)]) else 1
        reads += rk.size * loops
    outs = tuple(remap_loads(o, old, subst) for o in rk.outs)
    body = remap_loads(rk.body, old, subst) if rk.reduce_op else None
    kernel = Kernel(rk.shape, body, None, tuple(v.dtype for v in ins), rk.reduce_shape, rk.reduce_op,
                    name=rk.name, outs=outs)
    return kernel, ins, reads


def _sum_at(sk: Kernel, n: int, flat: E.Expr, slots: dict) -> E.Expr:
    """Output `n` of split-sum kernel `sk` at flat position `flat`: its accumulator the partials
    added in order, its g indices those of `flat`, its loads renumbered per `slots`."""
    g = unflatten(flat, sk.shape)
    names = {f"g{d}": x for d, x in enumerate(g)}
    roots = [sk.body, sk.outs[n]]
    idx = [e for e in E.walk_all(roots) if e.op == "idx"]
    acc = None
    for s in range(sk.reduce_shape[0]):
        at = {id(e): names.get(e.arg[0], E.const(s, e.dtype)) for e in idx}
        term = remap_loads(sk.body, slots, at)
        acc = term if acc is None else E.binary("add", acc, term)
    at = {id(e): names[e.arg[0]] for e in idx if e.arg[0] in names}
    at[id(E.acc(sk.body.dtype))] = acc
    return remap_loads(sk.outs[n], slots, at)
