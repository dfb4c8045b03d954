"""More collectives over a named vmap axis: all_gather, ppermute, pshuffle, pbroadcast,
psum_scatter and axis_size (one named axis each, as on one device a
named axis is a vmap axis; shard_map/pmap over size-1 meshes reduce to the same).

Each is a CollectivePrimitive (parallel.py) whose batching rule sees the whole mapped
axis: the value of every member stacked in front, from which each member's result is
a gather, a permutation or a broadcast."""
from __future__ import annotations

__all__ = ["all_gather", "axis_size", "pbroadcast", "ppermute", "pshuffle", "psum_scatter"]

from typing import Any, Sequence

from .. import core
from ..interpreters import batching
from ..interpreters import rules as R
from ..tree_util import tree_map
from . import structural as S
from .indexing import dynamic_index_in_dim
from .parallel import CollectivePrimitive, _names, axis_index, psum


def _size(axis_name: tuple) -> int:
    if len(axis_name) != 1:
        raise NotImplementedError("jaxweb: this collective takes one axis name")
    main = batching.find_named_axis(axis_name[0])
    if main is None:
        raise NameError(f"unbound axis name: {axis_name[0]}")
    return main.global_data[0]


def _collective(name: str, abstract, per_member) -> core.Primitive:
    """A primitive whose batching rule computes every member's output from X (the members'
    values stacked on axis 0) as per_member(X, size, **params), batched on axis 0."""
    prim = CollectivePrimitive(name)
    core.def_abstract_eval(prim)(abstract)

    def rule(trace, vals, dims, *, axis_name, **params):
        (x,), (d,) = vals, dims
        size = trace.axis_size
        return per_member(batching.bdim_at_front(x, d, size), size, **params), 0

    batching.collective_rules[prim] = rule
    return prim


# ---------------------------------------------------------------- all_gather
def _gather_abstract(x, *, axis_name, axis, tiled):
    n = _size(axis_name)
    shape = list(x.shape)
    if tiled:
        shape[axis] *= n
    else:
        shape.insert(axis, n)
    return x.update(shape=tuple(shape), weak_type=x.weak_type)


def _gather_members(xs, size, *, axis, tiled):
    nd = len(core.get_aval(xs).shape) - 1
    moved = S.transpose(xs, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, nd + 1)))
    shape = core.get_aval(moved).shape
    if tiled:
        moved = S.reshape(moved, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])
        shape = core.get_aval(moved).shape
    return S.broadcast_in_dim(moved, (size,) + shape, tuple(range(1, len(shape) + 1)))


all_gather_p = _collective("all_gather", _gather_abstract, _gather_members)
R.defnondifferentiable(all_gather_p)


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0, tiled: bool = False) -> Any:
    """Every member's x, stacked along `axis` (concatenated if tiled), on every member."""
    if axis_index_groups is not None:
        raise NotImplementedError("all_gather: axis_index_groups is not supported")
    names = _names(axis_name)

    def one(v):
        nd = len(core.get_aval(v).shape)
        ax = axis % (nd + (0 if tiled else 1)) if nd or not tiled else 0
        return all_gather_p.bind(v, axis_name=names, axis=ax, tiled=tiled)
    return tree_map(one, x)


# ---------------------------------------------------------------- permutations
def _permute_members(xs, size, *, perm, fill_zero):
    rows = []
    zero = None
    for dst in range(size):
        src = perm.get(dst)
        if src is None:
            if zero is None:
                shape = core.get_aval(xs).shape[1:]
                zero = S.broadcast_in_dim(S.slice_in_dim(xs, 0, 1, 1, 0), (1,) + shape, tuple(range(len(shape) + 1)))
                zero = zero * 0
            rows.append(zero)
        else:
            rows.append(S.slice_in_dim(xs, src, src + 1, 1, 0))
    return S.concatenate(rows, 0)


ppermute_p = _collective("ppermute", lambda x, *, axis_name, perm, fill_zero: x, _permute_members)
R.deflinear(ppermute_p, lambda ct, x, *, axis_name, perm, fill_zero: [
    ppermute_p.bind(R.instantiate_zeros(ct), axis_name=axis_name,
                    perm=_Perm({s: d for d, s in perm.items()}), fill_zero=fill_zero)])


class _Perm(dict):
    """A hashable {destination: source} map (a primitive parameter)."""

    def __hash__(self):
        return hash(tuple(sorted(self.items())))


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """Member `dst` receives the x of member `src` for each (src, dst) pair; others get 0."""
    names = _names(axis_name)
    pairs = [(int(s), int(d)) for s, d in perm]
    if len({s for s, _ in pairs}) != len(pairs) or len({d for _, d in pairs}) != len(pairs):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    size = _size(names)
    for s, d in pairs:
        if not (0 <= s < size and 0 <= d < size):
            raise ValueError(f"ppermute perm contains an index out of range for axis size {size}: {(s, d)}")
    table = _Perm({d: s for s, d in pairs})
    return tree_map(lambda v: ppermute_p.bind(v, axis_name=names, perm=table, fill_zero=True), x)


def pshuffle(x: Any, axis_name: Any, perm: Sequence[int]) -> Any:
    """Member i receives the x of member perm[i] (perm a permutation of the axis)."""
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


def pbroadcast(x: Any, axis_name: Any, source: int) -> Any:
    """Every member receives the x of member `source`."""
    size = _size(_names(axis_name))
    names = _names(axis_name)
    table = _Perm({d: int(source) for d in range(size)})
    return tree_map(lambda v: ppermute_p.bind(v, axis_name=names, perm=table, fill_zero=False), x)


# ---------------------------------------------------------------- scatter
def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0, axis_index_groups: Any = None,
                 tiled: bool = False) -> Any:
    """The sum over the axis split along `scatter_dimension`: member i keeps block i (the
    dimension, of the axis size, dropped unless tiled; tiled, it must divide by it)."""
    if axis_index_groups is not None:
        raise NotImplementedError("psum_scatter: axis_index_groups is not supported")
    n = _size(_names(axis_name))

    def one(v):
        total = psum(v, axis_name)
        shape = core.get_aval(total).shape
        d = scatter_dimension % len(shape)
        if (shape[d] % n) if tiled else (shape[d] != n):
            raise ValueError(f"psum_scatter: dimension {d} of size {shape[d]} does not match the axis size {n}")
        parts = S.reshape(total, shape[:d] + (n, shape[d] // n) + shape[d + 1:])
        mine = dynamic_index_in_dim(parts, axis_index(axis_name), d, keepdims=False)
        return mine if tiled else S.reshape(mine, shape[:d] + shape[d + 1:])
    return tree_map(one, x)


def axis_size(axis_name: Any) -> int:
    """The size of the named axis (a Python int)."""
    names = _names(axis_name)
    total = 1
    for n in names:
        total *= _size((n,))
    return total
