"""Long sorts as a bitonic network of elementwise kernels (O(n log^2 n) work).

`sorting.py` ranks every element against every other: O(n^2) per row, which is
one or two kernels and the fastest way for short rows but minutes for 60,000
elements. Past `BITONIC_FROM` elements a row is padded to a power of two P and
sorted by log2(P) (log2(P) + 1) / 2 compare-exchange stages, each an ordinary
elementwise kernel over the rows (element i is exchanged with partner i XOR j,
the pair ordered up or down by bit k of i). Only the keys and the original
positions travel through the network; every operand is gathered once at the end
by the sorted positions. Positions are the last key, so the order is a strict
total order: the sort is stable, and the padding (positions >= n) sorts last.
"""
from __future__ import annotations

from typing import Sequence

from .. import dtypes
from ..compiler import expr as E
from ..compiler import graph
from ..compiler.graph import Node

#: rows longer than this may go to the network ...
BITONIC_FROM = 2048
#: ... when ranking would compare more pairs than this (a few tenths of a second on wasm;
#: the network's ~2 log2(n)^2 / 2 kernels take about as long to compile, once)
RANK_PAIRS = 1 << 27


def use_network(n: int, rows: int) -> bool:
    """Whether `rows` rows of `n` elements sort faster by the network than by ranks."""
    return n > BITONIC_FROM and rows * n * n > RANK_PAIRS


_I32 = dtypes.int32


def _c(v: int) -> E.Expr:
    return E.const(v, _I32)


def less_eq(a, b, alu, false) -> tuple:
    """(a before b, a ties b) in ascending order with NaN largest and -0.0 == 0.0: of graph
    nodes (`alu` = graph.alu) or scalar expressions (`alu` = E.binary) alike; `false(x)`
    is a False shaped like x."""
    lt, eq = alu("lt", a, b), alu("eq", a, b)
    if a.dtype.kind == "f":
        an, bn = alu("ne", a, a), alu("ne", b, b)
        lt = alu("or", lt, alu("and", bn, alu("eq", an, false(an))))
        eq = alu("or", eq, alu("and", an, bn))
    return lt, eq


def _false(e: E.Expr) -> E.Expr:
    return E.const(False, dtypes.bool_)


def _sorts_before(b: list[E.Expr], a: list[E.Expr], n: int | None) -> E.Expr:
    """Whether the element with carried values `b` (keys..., position) sorts strictly
    before `a`: valid before padding (positions >= `n`, when padded), then keys (NaN
    last, -0.0 == 0.0), then position."""
    pb, pa = b[-1], a[-1]
    earlier = E.binary("lt", pb, pa)
    for kb, ka in zip(reversed(b[:-1]), reversed(a[:-1])):
        lt, eq = less_eq(kb, ka, E.binary, _false)
        earlier = E.binary("or", lt, E.binary("and", eq, earlier))
    if n is None:
        return earlier
    va, vb = E.binary("lt", pa, _c(n)), E.binary("lt", pb, _c(n))
    only_b = E.binary("and", vb, E.binary("eq", va, E.const(False, dtypes.bool_)))
    return E.binary("or", only_b, E.binary("and", E.binary("and", va, vb), earlier))


def _stage(carried: list[Node], k: int, j: int, n: int | None) -> list[Node]:
    """One compare-exchange stage: blocks of k sorted alternately up and down, pairs j apart."""
    shape = carried[0].shape
    last = len(shape) - 1

    def partner(i: E.Expr) -> tuple[E.Expr, E.Expr]:
        upper = E.binary("eq", E.binary("rem", E.binary("div", i, _c(j)), _c(2)), _c(1))
        return upper, E.where(upper, E.binary("sub", i, _c(j)), E.binary("add", i, _c(j)))

    def swap_at(ctx, idxs):
        i = idxs[last]
        upper, p = partner(i)
        lo = E.where(upper, p, i)
        hi = E.where(upper, i, p)
        at_lo = [c.at(ctx, list(idxs[:last]) + [lo]) for c in carried]
        at_hi = [c.at(ctx, list(idxs[:last]) + [hi]) for c in carried]
        ascending = E.binary("eq", E.binary("rem", E.binary("div", i, _c(k)), _c(2)), _c(0))
        return E.where(ascending, _sorts_before(at_hi, at_lo, n), _sorts_before(at_lo, at_hi, n))

    swap = graph.fn(shape, dtypes.bool_, swap_at, tuple(carried), "sort")

    def moved(c: Node) -> Node:
        def at(ctx, idxs):
            _, p = partner(idxs[last])
            other = c.at(ctx, list(idxs[:last]) + [p])
            return E.where(swap.at(ctx, idxs), other, c.at(ctx, idxs))
        return graph.fn(shape, c.dtype, at, (swap, c), "sort", buffered=True)

    return [moved(c) for c in carried]


def sort_last_axis(keys: Sequence[Node], operands: Sequence[Node]) -> list[Node]:
    """`operands` (each of the keys' shape) sorted along the last axis by `keys`
    (already comparable: bool as int32, low floats as float32)."""
    shape = keys[0].shape
    n = shape[-1]
    size = 1 << max(n - 1, 1).bit_length()
    pad = [(0, 0)] * (len(shape) - 1) + [(0, size - n)]
    padded = tuple(shape[:-1]) + (size,)
    carried = [k.pad(pad) for k in keys] + [graph.iota(_I32, padded, len(shape) - 1)]
    k = 2
    while k <= size:
        j = k // 2
        while j >= 1:
            carried = _stage(carried, k, j, n if size > n else None)
            j //= 2
        k *= 2
    order = carried[-1].shrink([(0, d) for d in shape[:-1]] + [(0, n)])
    last = len(shape) - 1

    def gathered(x: Node) -> Node:
        def at(ctx, idxs):
            return x.at(ctx, list(idxs[:last]) + [order.at(ctx, idxs)])
        return graph.fn(shape, x.dtype, at, (order, x), "sort")

    return [gathered(x) for x in operands]
