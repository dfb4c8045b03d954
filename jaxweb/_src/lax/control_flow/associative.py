"""`lax.associative_scan`: a parallel prefix scan with a user's associative operator.

Not a primitive: it is written with slices, pads and adds of lax, so every
transformation already applies. The recursion is Blelloch's, as in JAX: combine
adjacent pairs, scan the half-size result recursively (the odd outputs), derive
the even outputs from them, and interleave -- O(log n) rounds of whole-array
operations instead of n sequential steps.
"""
from __future__ import annotations

__all__ = ["associative_scan"]

from typing import Any, Callable

from ... import core
from ...tree_util import tree_flatten, tree_unflatten
from ..elementwise import add, bitwise_or
from ..structural import pad, concatenate, rev, slice_in_dim


def _interleave(a: Any, b: Any, axis: int) -> Any:
    """a[0], b[0], a[1], b[1], ... along `axis` (a has as many or one more elements)."""
    na, nb = core.get_aval(a).shape[axis], core.get_aval(b).shape[axis]
    nd = core.get_aval(a).ndim
    cfg_a, cfg_b = [(0, 0, 0)] * nd, [(0, 0, 0)] * nd
    cfg_a[axis] = (0, 1 if na == nb else 0, 1)
    cfg_b[axis] = (1, 0 if na == nb else 1, 1)
    join = bitwise_or if core.get_aval(a).dtype.kind == "b" else add
    zero = False if core.get_aval(a).dtype.kind == "b" else 0
    return join(pad(a, zero, cfg_a), pad(b, zero, cfg_b))


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """`lax.associative_scan`: element k along `axis` is fn applied to elements 0..k
    (k..n-1 with `reverse`); `fn` must be associative and act elementwise along `axis`."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    flat, tree = tree_flatten(elems)
    ndim = core.get_aval(flat[0]).ndim
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis = axis % ndim
    if reverse:
        flat = [rev(e, (axis,)) for e in flat]
    num = core.get_aval(flat[0]).shape[axis]
    if not all(core.get_aval(e).shape[axis] == num for e in flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                         f"(saw: {[tuple(core.get_aval(e).shape) for e in flat]})")

    def combine(a: list, b: list) -> list:
        return tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))[0]

    def sl(e: Any, start: int, stop: int | None, stride: int = 1) -> Any:
        return slice_in_dim(e, start, stop, stride, axis)

    def go(es: list) -> list:
        n = core.get_aval(es[0]).shape[axis]
        if n < 2:
            return es
        odd = go(combine([sl(e, 0, n - 1, 2) for e in es], [sl(e, 1, None, 2) for e in es]))
        if n % 2 == 0:
            even = combine([sl(o, 0, core.get_aval(o).shape[axis] - 1) for o in odd],
                           [sl(e, 2, None, 2) for e in es])
        else:
            even = combine(odd, [sl(e, 2, None, 2) for e in es])
        even = [concatenate([sl(e, 0, 1), r], axis) for e, r in zip(es, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = go(flat)
    if reverse:
        out = [rev(e, (axis,)) for e in out]
    return tree_unflatten(tree, out)
