"""A cap on the size of one kernel (`Capabilities.max_kernel_nodes`): where a backend's shader
compiler slows down steeply with the length of a shader (SwiftShader's JIT behind WebGL), the
scheduler splits a fused kernel past the cap by computing part of it in a kernel of its own.

A kernel's size is the number of distinct IR expression nodes of its stored expressions and
reduction body (hash-consed: a shared subexpression counts once). The part cut out is a fused
graph node whose lowered expressions are closest to half the kernel (and fit the cap on their
own), so a kernel twice the cap becomes two of about half; the scheduler lowers again and
repeats while a kernel is still too big. Backends without a cap (None) never reach this.
"""
from __future__ import annotations

from . import expr as E
from .kernel import Kernel


def kernel_nodes(k: Kernel) -> int:
    """Distinct expression nodes of kernel `k` (its outputs' expressions and reduction body)."""
    return _count(list(k.outs) + ([k.body] if k.reduce_op else []))


def size_cut(kl, cap: int) -> int | None:
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
    order = list(E.walk_all(kl.outs))
    size = len(order)
    owned = _dominated(order, kl.outs)
    bounds = []
    most = max(kl.size, sum(n.size for n in kl.inputs))
    for n, exprs in kl.fused().values():
        if n.size > most:
            continue
        mine = sum(owned.get(id(e), 0) for e in exprs)
        rest = size - mine + len(exprs)
        if rest < size:
            bounds.append((mine * mine + rest * rest, id(n), exprs, rest))
    bounds.sort(key=lambda b: b[0])
    best, best_score = None, None
    for bound, nid, exprs, rest in bounds:
        if best_score is not None and bound >= best_score:
            break
        part = _count(exprs, cap)
        score = part * part + rest * rest
        if 2 <= part <= cap and (best_score is None or score < best_score):
            best, best_score = nid, score
    return best


def _dominated(order: list, roots) -> dict[int, int]:
    """id(node) -> how many nodes (itself included) every path from `roots` to passes
    through it: its subtree in the dominator tree of the DAG (`order`: post-order)."""
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
    owned = {id(e): 1 for e in order}
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


def _count(roots, limit: int | None = None, stop=None) -> int:
    """Distinct nodes under `roots` (counted up to just past `limit`; not entering `stop`)."""
    n = 0
    for _ in E.walk_all(roots, stop=stop):
        n += 1
        if limit is not None and n > limit:
            break
    return n
