"""A cap on the size of one kernel (`Capabilities.max_kernel_nodes`): where a backend's shader
compiler slows down steeply with the length of a shader (SwiftShader's JIT behind WebGL), the
scheduler splits a fused kernel past the cap by computing part of it in a kernel of its own.

A kernel's size is the number of distinct IR expression nodes of its stored expressions and
reduction body (hash-consed: a shared subexpression counts once), each weighted by what the
backend makes of it (`Capabilities.node_weights`: op -> nodes, 1 for ops it does not list; a
tanh is one IR node but dozens of shader statements). The part cut out is a fused graph node
chosen so that both kernels are about half (see `size_cut`); the scheduler lowers again and
repeats while a kernel is still too big. Backends without a cap (None) never reach this.
"""
from __future__ import annotations

from typing import Any, Callable

from . import expr as E
from .kernel import Kernel


def weigher(weights: Any) -> Callable[[E.Expr], int]:
    """The size of one node under `weights` (a mapping op -> nodes, or None: 1 each)."""
    if not weights:
        return lambda e: 1
    return lambda e: weights.get(e.op, 1)


def kernel_nodes(k: Kernel, weights: Any = None) -> int:
    """The weighted size of kernel `k` (its outputs' expressions and reduction body)."""
    return _count(list(k.outs) + ([k.body] if k.reduce_op else []), weigher(weights))


def size_cut(kl, cap: int, weights: Any = None) -> int | None:
    """The id of the graph node that lowering `kl` (a `lower.KernelLowering`, built) fuses and
    should compute in a kernel of its own instead, or None when no node helps: the kernel
    then stays as it is (too big, but right).

    A cut splits the kernel's nodes into the part's (its expressions' cone, which must fit
    the cap) and the rest's (what the kernel still computes once the part is a load: nodes
    the part shares with the rest count in both). The cut minimizing the sum of their
    squares wins: balanced, and not recomputing a shared operand (a random-bits kernel
    feeding erf_inv splits at the bits). A candidate's buffer holds no more elements than
    the kernel writes or reads (a reduced elementwise chain, not the broadcast product
    inside a matrix product's loop); a node lowered at several indices cuts all of its
    expressions.

    The rest's size comes from the dominator tree (what only the part reaches leaves the
    kernel); the part's is counted for the candidates whose bound (the part at least what
    it dominates) could still win, best bound first."""
    w = weigher(weights)
    order = list(E.walk_all(kl.outs))
    size = sum(w(e) for e in order)
    owned = _dominated(order, kl.outs, w)
    bounds = []
    most = max(kl.size, sum(n.size for n in kl.inputs))
    for n, exprs in kl.fused().values():
        if n.size > most:
            continue
        mine = sum(owned.get(id(e), 0) for e in exprs)
        rest = size - mine + len(exprs)  # each expression becomes a load
        if rest < size:
            bounds.append((mine * mine + rest * rest, id(n), exprs, rest))
    bounds.sort(key=lambda b: b[0])
    best, best_score = None, None
    for bound, nid, exprs, rest in bounds:
        if best_score is not None and bound >= best_score:
            break
        part = _count(exprs, w, cap)
        score = part * part + rest * rest
        if 2 <= part <= cap and (best_score is None or score < best_score):
            best, best_score = nid, score
    return best


def _dominated(order: list, roots, w) -> dict[int, int]:
    """id(node) -> the weighted size of what every path from `roots` to passes through it
    (itself included): its subtree in the dominator tree of the DAG (`order`: post-order)."""
    parents: dict[int, list] = {}
    for e in order:
        for s in e.src:
            parents.setdefault(id(s), []).append(id(e))
    top = {id(r) for r in roots}
    idom: dict[int, int] = {}
    depth: dict[int, int] = {0: 0}  # 0: a virtual root above the kernel's outputs
    for e in reversed(order):  # parents first
        k = id(e)
        ps = parents.get(k, [])
        d = 0 if k in top or not ps else ps[0]
        for p in ps[1:] if d else ():
            d = _meet(d, p, idom, depth)
        idom[k], depth[k] = d, depth[d] + 1
    owned = {id(e): w(e) for e in order}
    for e in order:  # children first
        d = idom[id(e)]
        if d:
            owned[d] += owned[id(e)]
    return owned


def _meet(a: int, b: int, idom: dict, depth: dict) -> int:
    """The nearest common dominator of nodes `a` and `b`."""
    while a != b:
        if depth[a] < depth[b]:
            a, b = b, a
        a = idom[a]
    return a


def _count(roots, w, limit: int | None = None) -> int:
    """The weighted size of the distinct nodes under `roots` (counted up to just past `limit`)."""
    n = 0
    for e in E.walk_all(roots):
        n += w(e)
        if limit is not None and n > limit:
            break
    return n
