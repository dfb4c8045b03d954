"""Long reductions into few outputs as two kernels: a fragment cannot share its work.

A kernel reducing R >= SPLIT_MIN terms into at most SPLIT_OUTS outputs (a full sum, a
norm, a loss's mean) would run R iterations in each of a handful of fragments while the
rest of the GPU idles. It becomes two kernels of the same IR: `part` reduces P chunks of
CHUNK terms per output (P * outputs fragments' worth of parallel work), and `final`
reduces the P partials per output and applies the original epilogue (its loads of the
kernel's inputs renumbered after the partials, which `final` reads as input 0).
"""
from __future__ import annotations

from ... import dtypes
from ...compiler import expr as E
from ...compiler.gemm import remap_loads
from ...compiler.kernel import Kernel, gidx, identity
from ...compiler.shapetracker import prod

SPLIT_MIN = 8192   # reduction length from which a kernel splits
SPLIT_OUTS = 4096  # outputs at most (more outputs are parallel work enough)
CHUNK = 1024       # terms per partial


def split(kernel: Kernel) -> tuple[Kernel, Kernel] | None:
    """(part, final) for a long reduction into few outputs, else None."""
    if not kernel.reduce_op or len(kernel.outs) != 1:
        return None
    R = prod(kernel.reduce_shape)
    if R < SPLIT_MIN or kernel.size > SPLIT_OUTS:
        return None
    P = -(-R // CHUNK)
    acc_dt = kernel.body.dtype
    i32 = dtypes.int32
    g = gidx(tuple(kernel.shape) + (P,))
    r = E.idx("r0", CHUNK)
    flat = g[-1] * CHUNK + r
    mapping, stride = {}, 1
    ranges = {}
    for k in reversed(range(len(kernel.reduce_shape))):
        n = kernel.reduce_shape[k]
        ranges[f"r{k}"] = E.binary("rem", E.binary("div", flat, E.const(stride, i32)), E.const(n, i32)) \
            if n != R else flat
        stride *= n
    for n in E.walk(kernel.body):
        if n.op == "idx" and n.arg[0] in ranges:
            mapping[id(n)] = ranges[n.arg[0]]
    body = E.substitute(kernel.body, mapping)
    if P * CHUNK != R:
        body = E.where(E.binary("lt", flat, E.const(R, i32)), body, identity(kernel.reduce_op, acc_dt))
    part = Kernel(tuple(kernel.shape) + (P,), body, None, kernel.in_dtypes, (CHUNK,), kernel.reduce_op,
                  name=f"{kernel.name}_part")
    out_g, row, stride = gidx(kernel.shape), E.const(0, i32), 1
    for k in reversed(range(len(kernel.shape))):
        row = row + out_g[k] * stride
        stride *= kernel.shape[k]
    partial = E.load(0, acc_dt, row * P + E.idx("r0", P))
    slots = {s: s + 1 for s in range(len(kernel.in_dtypes))}
    outs = tuple(remap_loads(o, slots) for o in kernel.outs)
    final = Kernel(kernel.shape, partial, None, (acc_dt, *kernel.in_dtypes), (P,), kernel.reduce_op,
                   name=kernel.name, outs=outs)
    return part, final
