"""`sort` (multi-operand, lexicographic keys, stable) and `top_k`, as plain kernels.

No sorting routine is needed: the rank of element i along the sorted axis is the
number of elements that come before it (lexicographically over the keys, ties
broken by index, so the sort is stable) -- one reduction kernel -- and the sorted
output is `out[r] = x[i]` for the i whose rank is r -- a second one. That is O(n^2)
work per sorted row, the fastest way for short rows; rows longer than
`bitonic.BITONIC_FROM` go through a bitonic network of elementwise kernels instead.
Order is JAX's: NaNs last (first for top_k, which takes the largest), -0.0 == 0.0.

`gather_along`/`scatter_add_along` (mutually transposed, linear in their first
argument) move tangents through the permutation for the JVPs.
"""
from __future__ import annotations

__all__ = ["sort", "sort_key_val", "top_k", "sort_p", "top_k_p"]

from typing import Any, Sequence

from .. import core, dtypes
from ..compiler import expr as E
from ..compiler import graph
from ..compiler.kernel import REDUCE_IDENTITY
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base, bitonic
from .reductions import batch_size, linear_in_first_jvp, to_front
from . import elementwise as lax_ew


# ---------------------------------------------------------------- ordering kernels
def _pair(x: Node, d: int) -> tuple[Node, Node]:
    """x along a new (i, j) pair of axes at d, d+1: (x[i] broadcast over j, x[j] over i)."""
    full = x.shape[:d] + (x.shape[d], x.shape[d]) + x.shape[d + 1:]
    xi = x.reshape(x.shape[:d + 1] + (1,) + x.shape[d + 1:]).expand(full)
    xj = x.reshape(x.shape[:d] + (1,) + x.shape[d:]).expand(full)
    return xi, xj


def _comparable(x: Node) -> Node:
    if x.dtype.kind == "b":
        return x.cast(dtypes.int32)
    return x.cast(dtypes.float32) if x.dtype in base.LOW_FLOATS else x


def _real_keys(keys: Sequence[Node]) -> list[Node]:
    """A complex key orders by its real part, then its imaginary part (numpy's order)."""
    return [p for key in keys for p in ((graph.alu("real", key), graph.alu("imag", key))
                                        if key.dtype.kind == "c" else (key,))]


def _ranks(keys: Sequence[Node], d: int, descending: bool = False) -> Node:
    """rank[i] = #{j : key[j] sorts before key[i], or ties and j < i} along axis d."""
    shape = keys[0].shape
    full = shape[:d] + (shape[d], shape[d]) + shape[d + 1:]
    before: Node = graph.fn(full, dtypes.bool_, lambda ctx, idxs: E.binary("lt", idxs[d + 1], idxs[d]))
    for key in reversed(_real_keys(keys)):
        ki, kj = _pair(_comparable(key), d)
        a, b = (ki, kj) if descending else (kj, ki)
        lt, eq = bitonic.less_eq(a, b, graph.alu, lambda x: graph.const_like(x, False))
        before = graph.alu("or", lt, graph.alu("and", eq, before))
    return before.cast(dtypes.int32).reduce("add", (d + 1,))


def _select_by_rank(x: Node, rank: Node, d: int, k: int) -> Node:
    """out[r] = x[i] where rank[i] == r, for r < k (exactly one i matches each r)."""
    n = x.shape[d]
    full = x.shape[:d] + (k, n) + x.shape[d + 1:]
    rj = rank.reshape(rank.shape[:d] + (1,) + rank.shape[d:]).expand(full)
    xj = x.reshape(x.shape[:d] + (1,) + x.shape[d:]).expand(full)
    hit = graph.alu("eq", rj, graph.iota(dtypes.int32, full, d))
    if x.dtype.kind == "b":
        return graph.alu("and", hit, xj).reduce("max", (d + 1,))
    if x.dtype.kind == "c":
        return graph.make_complex(*(_select_by_rank(graph.alu(p, x), rank, d, k) for p in ("real", "imag")))
    if x.dtype in base.LOW_FLOATS:  # reduce in float32 (exact: one value is selected)
        return _select_by_rank(x.cast(dtypes.float32), rank, d, k).cast(x.dtype)
    # a max against the lowest value keeps -0.0 and NaN exactly (a sum of zeros would not)
    return graph.where(hit, xj, graph.const(REDUCE_IDENTITY["max"](x.dtype), x.dtype, full)).reduce("max", (d + 1,))


# ---------------------------------------------------------------- sort
sort_p = core.Primitive("sort")
sort_p.multiple_results = True


@core.def_abstract_eval(sort_p)
def _sort_abstract(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise TypeError("sort requires at least one operand")
    shapes = {o.shape for o in operands}
    if len(shapes) != 1:
        raise TypeError(f"sort requires all operands to have the same shape, got "
                        f"{', '.join(str(o.shape) for o in operands)}")
    nd = operands[0].ndim
    if not 0 <= dimension < nd:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {nd}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and the number of operands {len(operands)}")
    return list(operands)


@def_lowering(sort_p)
def _sort_lower(*operands, dimension, is_stable, num_keys):
    n = operands[0].shape[dimension]
    if bitonic.use_network(n, operands[0].size // max(n, 1)):
        nd = operands[0].ndim
        order = [a for a in range(nd) if a != dimension] + [dimension]
        back = [order.index(a) for a in range(nd)]
        moved = [x.permute(order) for x in operands]
        out = bitonic.sort_last_axis([_comparable(k) for k in _real_keys(moved[:num_keys])], moved)
        return [x.permute(back) for x in out]
    rank = _ranks(operands[:num_keys], dimension)
    return [_select_by_rank(x, rank, dimension, n) for x in operands]


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = core.get_aval(primals[0]).shape
    iota = lax_ew.broadcasted_iota(dtypes.int32, shape, dimension)
    *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    touts = [t if isinstance(t, R.Zero) else gather_along(t, perm, dimension) for t in tangents]
    return outs, touts


def _sort_batch(args, dims, *, dimension, **params):
    args = [to_front(a, d, batch_size(args, dims)) for a, d in zip(args, dims)]
    return sort_p.bind(*args, dimension=dimension + 1, **params), [0] * len(args)


R.primitive_jvps[sort_p] = _sort_jvp
R.primitive_batchers[sort_p] = _sort_batch


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """`lax.sort`: sort one array or a sequence of arrays by their first `num_keys`."""
    multi = isinstance(operand, (tuple, list))
    ops = list(operand) if multi else [operand]
    nd = core.get_aval(ops[0]).ndim
    if not -nd <= dimension < nd:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {nd}")
    out = sort_p.bind(*ops, dimension=dimension % nd, is_stable=bool(is_stable), num_keys=int(num_keys))
    return tuple(out) if multi else out[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> tuple:
    """`lax.sort_key_val`: sort `values` by `keys`."""
    return sort((keys, values), dimension, is_stable, 1)


# ---------------------------------------------------------------- top_k
top_k_p = core.Primitive("top_k")
top_k_p.multiple_results = True


@core.def_abstract_eval(top_k_p)
def _top_k_abstract(x, *, k, axis):
    if x.ndim == 0:
        raise TypeError("top_k operand must have >= 1 dimension, got ()")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.shape[axis] < k:
        raise ValueError(f"k argument to top_k must be no larger than size along axis; got k={k} with "
                         f"shape={list(x.shape)} and axis={axis}")
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
    return [x.update(shape=shape), core.ShapedArray(shape, dtypes.int32)]


@def_lowering(top_k_p)
def _top_k_lower(x, *, k, axis):
    rank = _ranks([x], axis, descending=True)
    pos = graph.iota(dtypes.int32, x.shape, axis)
    return [_select_by_rank(x, rank, axis, k), _select_by_rank(pos, rank, axis, k)]


def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    vals, idx = top_k_p.bind(x, k=k, axis=axis)
    zero_idx = R.Zero(core.get_aval(idx).update(dtype=dtypes.float0))
    if isinstance(t, R.Zero):
        return [vals, idx], [R.Zero(core.get_aval(vals)), zero_idx]
    return [vals, idx], [gather_along(t, idx, axis), zero_idx]


def _top_k_batch(args, dims, *, k, axis):
    (x,), (d,) = args, dims
    return top_k_p.bind(x, k=k, axis=axis + (axis >= d)), [d, d]


R.primitive_jvps[top_k_p] = _top_k_jvp
R.primitive_batchers[top_k_p] = _top_k_batch


def top_k(operand: Any, k: int, *, axis: int = -1) -> list:
    """`lax.top_k`: the k largest entries along `axis` (NaN largest; ties by index) and their int32 indices."""
    nd = core.get_aval(operand).ndim
    axis = axis % nd if nd else axis
    return top_k_p.bind(operand, k=int(core.concrete_or_error(k, "k in top_k")), axis=axis)


# ---------------------------------------------------------------- permutation gathers (for JVPs)
gather_along_p = core.Primitive("gather_along")
scatter_add_along_p = core.Primitive("scatter_add_along")


@core.def_abstract_eval(gather_along_p)
def _gather_along_abstract(t, idx, *, axis):
    return t.update(shape=idx.shape)


@def_lowering(gather_along_p)
def _gather_along_lower(t, idx, *, axis):
    n = t.shape[axis]

    def at(ctx, idxs):
        i = E.cast(idx.at(ctx, idxs), dtypes.int32)
        i = E.binary("max", E.binary("min", i, E.const(max(n - 1, 0), dtypes.int32)), E.const(0, dtypes.int32))
        return t.at(ctx, list(idxs[:axis]) + [i] + list(idxs[axis + 1:]))
    return graph.fn(idx.shape, t.dtype, at, (idx, t))


@core.def_abstract_eval(scatter_add_along_p)
def _scatter_add_along_abstract(ct, idx, *, axis, size):
    return ct.update(shape=ct.shape[:axis] + (size,) + ct.shape[axis + 1:])


@base.in_f32
def _scatter_lower(ct, idx, *, axis, size):
    k = ct.shape[axis]
    full = ct.shape[:axis] + (size, k) + ct.shape[axis + 1:]
    cj = ct.reshape(ct.shape[:axis] + (1,) + ct.shape[axis:]).expand(full)
    ij = idx.cast(dtypes.int32).reshape(idx.shape[:axis] + (1,) + idx.shape[axis:]).expand(full)
    hit = graph.alu("eq", ij, graph.iota(dtypes.int32, full, axis))
    return graph.where(hit, cj, graph.const(0, ct.dtype, full)).reduce("add", (axis + 1,))


def_lowering(scatter_add_along_p)(_scatter_lower)


def gather_along(t: Any, idx: Any, axis: int) -> Any:
    """out[.., r, ..] = t[.., idx[.., r, ..], ..] (take_along_axis with in-range indices)."""
    return gather_along_p.bind(t, idx, axis=axis)


def scatter_add_along(ct: Any, idx: Any, axis: int, size: int) -> Any:
    """out[.., i, ..] = sum of ct[.., r, ..] over r with idx[.., r, ..] == i (gather_along's transpose)."""
    return scatter_add_along_p.bind(ct, idx, axis=axis, size=size)


R.primitive_jvps[gather_along_p] = linear_in_first_jvp(gather_along_p)
R.primitive_jvps[scatter_add_along_p] = linear_in_first_jvp(scatter_add_along_p)
R.primitive_transposes[gather_along_p] = lambda ct, t, idx, *, axis: [
    scatter_add_along(R.instantiate_zeros(ct), idx, axis, t.aval.shape[axis]), None]
R.primitive_transposes[scatter_add_along_p] = lambda ct, c, idx, *, axis, size: [
    gather_along(R.instantiate_zeros(ct), idx, axis), None]


def _along_batch(prim: core.Primitive):
    def rule(args, dims, *, axis, **params):
        size = batch_size(args, dims)
        a, i = (to_front(x, d, size) for x, d in zip(args, dims))
        return prim.bind(a, i, axis=axis + 1, **params), 0
    return rule


R.primitive_batchers[gather_along_p] = _along_batch(gather_along_p)
R.primitive_batchers[scatter_add_along_p] = _along_batch(scatter_add_along_p)
