"""Runtime scalars as kernel parameters, so that no compile depends on a value.

Eager code is full of scalars that change from call to call: a learning rate, a step
counter, `x * s` for a new Python float, `jnp.full(n, v)`, `jnp.float32(v)` passed to a
jitted function, `x[i]`, `x[i:i + 16]`, `x.at[i].set(v)`. In the lazy graph they are
`const` nodes and the offsets and bounds of views; baked into a kernel's text each new
value would be a new kernel key — a compile. So an eager flush *lifts* them: each becomes
a read of a small per-dtype parameter buffer (a `ParamBlock` leaf of the schedule, written
by the executor before each run), and the kernel text holds only the slot. A kernel then
compiles once for all values, and a cached eager schedule is reused with new values.

Values that change a kernel's structure stay folded where the fold pays: 0, 1 and -1
(`x * 0`, `x * 1`, `x + 0`, `x * -1`), booleans, and non-finite values (masks and
identities of max/min); the kernel for "any other value" is the one reused. (Small
integer powers are `integer_pow`'s parameter, not a constant: `x ** 2` stays `x * x`.)
A view's zero offset and the mask bounds that clip nothing are not checked at all, so `x[0]`
and `x[3]` are two kernels, `x[3]` and `x[4]` one. Jitted programs keep their literals
folded: they are the program's own constants, compiled once with it, and their runtime
scalars arrive as argument buffers anyway.

The lifted values of a graph form one sequence, in toposort order (`lifted_values` per
node); a block's slots name their places in it (`ParamBlock.positions`), so a cached
schedule takes a later flush's values from that flush's sequence.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from .. import dtypes
from ..dtypes import DType
from . import expr as E
from . import graph
from .graph import Node
from .shapetracker import View

#: dtypes whose constants are lifted (those every backend loads natively)
LIFTED = frozenset((dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint32))
#: values kept folded into kernels: their folds change the kernel (x * 0, x * 1, x * -1)
FOLDED = frozenset((0, 1, -1))


class ParamBlock:
    """A schedule input holding runtime scalars of one dtype: slot k holds the value at
    `positions[k]` of the lifted-value sequence of the graph being run (`own`: the values
    of the flush that scheduled it, used when no sequence is given)."""

    __slots__ = ("dtype", "size", "positions", "own")

    def __init__(self, dtype: DType, positions: Sequence[int], own: Sequence[Any] = ()):
        self.dtype, self.size = dtype, len(positions)
        self.positions, self.own = tuple(positions), list(own)

    def values(self, sequence: Sequence[Any] = ()) -> list:
        return [sequence[j] for j in self.positions] if sequence else list(self.own)

    def cached(self) -> "ParamBlock":
        """This block without its values (a cache entry holds no flush's data)."""
        return ParamBlock(self.dtype, self.positions)

    def __repr__(self) -> str:
        return f"ParamBlock({self.dtype.name}[{self.size}])"


def _const_liftable(n: Node) -> bool:
    if n.dtype not in LIFTED:
        return False
    v = n.arg
    if isinstance(v, float) and not math.isfinite(v):
        return False
    return v not in FOLDED


def _lifted_view(n: Node) -> View | None:
    """The one view of view node `n` if its offset or mask bounds are lifted (int32 indices)."""
    views = n.arg.views
    if len(views) != 1:
        return None
    v = views[0]
    if not v.offset and v.mask is None:
        return None
    span = abs(v.offset) + sum((s - 1) * abs(st) for s, st in zip(v.shape, v.strides) if s > 0)
    return v if span <= E.INT32_MAX // 2 else None


def _bounds(v: View) -> list[int]:
    """A view's lifted values: its offset (if nonzero), then each mask bound that clips."""
    out = [v.offset] if v.offset else []
    for (lo, hi), s in zip(v.mask or (), v.shape):
        out += ([lo] if lo > 0 else []) + ([hi] if hi < s else [])
    return out


def lifted_values(n: Node) -> tuple[Any, list] | None:
    """(the node's structure without its lifted values, those values) for a node whose
    values become parameters in an eager flush; None for any other node."""
    if n.op == "const":
        return (("param", n.dtype, n.shape), [n.arg]) if _const_liftable(n) else None
    if n.op == "view":
        v = _lifted_view(n)
        if v is None:
            return None
        flags = None if v.mask is None else tuple((lo > 0, hi < s) for (lo, hi), s in zip(v.mask, v.shape))
        return ("view", n.dtype, v.shape, v.strides, bool(v.offset), flags), _bounds(v)
    return None


def lift(order: Sequence[Node]) -> dict[int, tuple[DType, list[int], list]]:
    """id(node) -> (the dtype its values are read as, their places in the lifted-value
    sequence, the values) for the nodes of `order` (a toposorted graph) whose values are
    lifted. Each kernel gets blocks of its own (`blocks`), so its text does not depend
    on what else the flush computes."""
    out: dict[int, tuple[DType, list[int], list]] = {}
    pos = 0
    for n in order:
        got = lifted_values(n)
        if got is None:
            continue
        values = got[1]
        out[id(n)] = (n.dtype if n.op == "const" else dtypes.int32, list(range(pos, pos + len(values))), values)
        pos += len(values)
    return out


def blocks(used: Sequence[tuple[DType, list[int], list]]) -> tuple[list[Node], list[tuple[Node, list[int]]]]:
    """A kernel's parameter blocks (one per dtype, buffer nodes) holding the lifted values it
    reads (`used`: `lift` entries in first-read order), and where each entry's values sit."""
    entries: dict[DType, tuple[list, list]] = {}
    where: list[tuple[DType, list[int]]] = []
    for dt, positions, values in used:
        pos, vals = entries.setdefault(dt, ([], []))
        where.append((dt, list(range(len(pos), len(pos) + len(positions)))))
        pos += positions
        vals += values
    nodes = {dt: graph.buffer(ParamBlock(dt, pos, vals)) for dt, (pos, vals) in entries.items()}
    return list(nodes.values()), [(nodes[dt], ks) for dt, ks in where]


def load(block: Node, slot: int, k: int) -> E.Expr:
    """The expression reading slot `k` of a parameter block bound at kernel input `slot`."""
    return E.load(slot, block.dtype, E.const(k, dtypes.int32))


def _clamped(p: E.Expr, lo: int, hi: int) -> E.Expr:
    """A lifted index value with the range its place allows (code generators size bindings
    and simplify index arithmetic by ranges; a load's value has none)."""
    return E.binary("min", E.binary("max", p, E.const(lo, p.dtype)), E.const(hi, p.dtype))


def view_index(v: View, idxs: Sequence[E.Expr], bounds: Sequence[E.Expr], base_size: int) -> tuple[E.Expr, E.Expr]:
    """`View.index` with the view's lifted offset and mask bounds read from `bounds`
    (parameter loads, in `_bounds` order); the offset is clamped to the range that keeps
    some element of the view inside its base of `base_size` elements."""
    it = dtypes.int64 if any(ix.dtype is dtypes.int64 for ix in idxs) else dtypes.int32
    params = iter(E.cast(b, it) for b in bounds)
    idxs = [E.cast(ix, it) for ix in idxs]
    span = sum((s - 1) * abs(st) for s, st in zip(v.shape, v.strides) if s > 0)
    index = _clamped(next(params), -span, base_size - 1 + span) if v.offset else E.const(0, it)
    valid = E.const(True, dtypes.bool_)
    for k, (ix, st) in enumerate(zip(idxs, v.strides)):
        if st != 0 and v.shape[k] != 1:
            index = index + ix * st
        if v.mask is not None:
            lo, hi = v.mask[k]
            if lo > 0:
                valid = valid & (ix >= _clamped(next(params), 0, v.shape[k]))
            if hi < v.shape[k]:
                valid = valid & (ix < _clamped(next(params), 0, v.shape[k]))
    return index, valid
