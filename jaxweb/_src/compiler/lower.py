"""Lowering one kernel's graph nodes to IR expressions: one memoized pass.

The scheduler hands `KernelLowering` the kernel's output nodes (`members`) and the
nodes whose values live in memory (`stored`: buffers, and nodes other kernels
compute). Every other node is fused: its expression is built at the index it is
read at, memoized by (node, index expressions, validity), so a DAG lowers in time
linear in its size and shared subexpressions stay shared (expressions are
hash-consed too). Views become index arithmetic, reductions become `reduce`
expressions over fresh loop indices, `fn` nodes call their element function.

Lowering also finds what the scheduler must change before the kernel is right and
cheap (it then retries): a reduction read inside another reduction's loop at an
index that moves with that loop (`realize`: it would be recomputed per step), a
reduction computed more often than it has elements (`realize`), and a member read
at anything but its own index (`split`: it cannot be both written and read by the
same loop).
"""
from __future__ import annotations

from typing import Any, Sequence

from .. import dtypes
from . import expr as E
from . import graph, params
from .graph import Node, reduce_index
from .kernel import Kernel, gidx
from .shapetracker import index_dtype, prod, unflatten


#: a fused node lowered at more indices than this, or a kernel of more lowered values, is cut
MAX_INDEXINGS = 32
MAX_EXPRESSIONS = 20000


class _Cut(Exception):
    """Lowering stopped: `node` must become a buffer first."""

    def __init__(self, node: Node):
        super().__init__(node)
        self.node = node


def flat_index(idxs: Sequence[E.Expr], shape: Sequence[int]) -> E.Expr:
    """Row-major linear index of `idxs` in `shape` (int64 when the shape needs it)."""
    it = index_dtype(prod(shape) - 1, *idxs)
    flat = E.const(0, it)
    for i, n in zip(idxs, shape):
        flat = flat * n + E.cast(i, it)
    return flat


def _and(a: E.Expr | None, b: E.Expr) -> E.Expr | None:
    if b.is_const:
        return a if b.arg else b
    return b if a is None else a & b


class KernelLowering:
    """Builds the kernel computing `members` (all of one shape) from the graph."""

    def __init__(self, shape: tuple[int, ...], members: Sequence[Node], stored: set[int],
                 nested_reduce: bool = True, params: dict | None = None, inline_reduce: int = 0):
        self.shape = shape
        self.inline_reduce = inline_reduce  # without nested_reduce: Capabilities.inline_reduce
        self.params = params or {}  # id(node) -> its lifted values (`params.lift`)
        self._placed: dict[int, tuple[Node, list[int]]] | None = None  # id(node) -> (block, slots)
        self.nested_reduce = nested_reduce
        self.g = tuple(gidx(shape))
        self._gkey = tuple(map(id, self.g))
        self.members = list(members)
        self.outs: list[E.Expr] = []  # the members' expressions, once built
        self._member_ids = {id(m) for m in members}
        self.stored = stored
        self._scratch: dict = {}  # dtype -> the provisional parameter block of the first pass
        self._start([])

    def _start(self, inputs: list[Node]) -> None:
        """Fresh lowering state, with `inputs` taking the first slots."""
        self.inputs: list[Node] = list(inputs)
        self._slots: dict[int, int] = {id(n): k for k, n in enumerate(inputs)}
        self.memo: dict[tuple, E.Expr] = {}
        self._keep: list = []
        self.reduces: dict[int, Node] = {}  # id(reduce expr) -> its graph node
        self.realize: list[Node] = []
        self.split: list[Node] = []
        self._fn_stack: list[tuple] = []
        self._names = 0
        self.tags: dict[str, None] = {}  # the primitives fused here, in order (the kernel's name)
        self._region: dict[int, Node] = {}  # the graph nodes this kernel lowers, by id
        self._lowerings: dict[int, int] = {}  # node id -> indices it was lowered at
        self._used: dict[int, tuple] = {}  # id(node) -> its lifted values, in first-read order

    def _param(self, n: Node, lifted: tuple) -> list[E.Expr]:
        """Loads of node `n`'s lifted values: from the kernel's own blocks once they are made
        (`_lower_all`), from a provisional one in the pass that finds what the kernel reads."""
        self._used.setdefault(id(n), lifted)
        if self._placed is not None:
            block, ks = self._placed[id(n)]
        else:
            block, ks = self._provisional(lifted[0]), list(range(len(lifted[1])))
        slot = self.slot(block)
        return [params.load(block, slot, k) for k in ks]

    def _provisional(self, dt: Any) -> Node:
        found = self._scratch.get(dt)
        if found is None:
            found = self._scratch[dt] = graph.buffer(params.ParamBlock(dt, ()))
        return found

    def _lower_all(self) -> list[E.Expr]:
        """The members' expressions; a kernel reading lifted values is lowered twice: to find
        them, then with blocks of its own bound after the data inputs (so its text is the
        same whatever else its flush lifts)."""
        outs = [self.lower(m, self.g) for m in self.members]
        if not self._used:
            return outs
        provisional = {id(b) for b in self._scratch.values()}
        data = [n for n in self.inputs if id(n) not in provisional]
        nodes, where = params.blocks(list(self._used.values()))
        placed = dict(zip(self._used, where))
        self._start(data + nodes)
        self._placed = placed
        return [self.lower(m, self.g) for m in self.members]

    # ------------------------------------------------------------ reading nodes
    def slot(self, node: Node) -> int:
        k = id(node)
        s = self._slots.get(k)
        if s is None:
            s = self._slots[k] = len(self.inputs)
            self.inputs.append(node)
        return s

    def read(self, node: Node, idxs: tuple) -> E.Expr:
        """A source's element, from an `fn` node's element function."""
        fn_node, _, valid = self._fn_stack[-1]
        if not any(s is node for s in fn_node.src):
            raise AssertionError(f"{fn_node.arg.name}: element function reads {node}, not a declared source")
        return self.lower(node, idxs, valid)

    def _key(self, n: Node, ix: tuple, v: E.Expr | None) -> tuple:
        # the memo is keyed by ids: keep the index expressions alive, or a read whose value
        # does not refer to its index (a constant) lets the id be reused by another index
        self._keep.append((ix, v))
        return (id(n), tuple(map(id, ix)), 0 if v is None else id(v))

    def _is_load(self, n: Node, ix: tuple, v: E.Expr | None) -> bool:
        if n.op == "buffer":
            return True
        if id(n) in self._member_ids:
            if tuple(map(id, ix)) == self._gkey:
                return False
            self.split.append(n)  # read at another index: it must come from memory
            return True
        return id(n) in self.stored

    def lower(self, node: Node, idxs: Sequence[E.Expr], valid: E.Expr | None = None) -> E.Expr:
        """The expression of `node`'s element at `idxs` (loads masked by `valid`)."""
        memo = self.memo
        top = self._key(node, tuple(idxs), valid)
        if top in memo:
            return memo[top]
        pending: dict[tuple, tuple] = {}
        stack = [(node, tuple(idxs), valid, top)]
        while stack:
            n, ix, v, k = stack[-1]
            if k in memo:
                stack.pop()
                continue
            plan = pending.get(k)
            if plan is None:
                plan = pending[k] = self._expand(n, ix, v)
                self._count(n)
            deps, build = plan
            missing = [d for d in deps if d[3] not in memo]
            if missing:
                stack.extend(missing)
                continue
            memo[k] = build([memo[d[3]] for d in deps])
            stack.pop()
        return memo[top]

    def _count(self, n: Node) -> None:
        """A node lowered at many different indices (a chain of gathers or updates each
        reading the one before at several places grows exponentially) is cut out: it
        becomes a buffer of its own and the kernel is lowered again."""
        if self._is_input(n):
            return
        c = self._lowerings[id(n)] = self._lowerings.get(id(n), 0) + 1
        if c > MAX_INDEXINGS or len(self.memo) > MAX_EXPRESSIONS:
            worst = max((m for m in self._region.values() if self._lowerings.get(id(m), 0) > 1
                         and m.op != "view" and not self._is_input(m)),
                        key=lambda m: self._lowerings[id(m)], default=n)
            raise _Cut(worst)

    def _dep(self, n: Node, ix: tuple, v: E.Expr | None) -> tuple:
        return (n, ix, v, self._key(n, ix, v))

    def _expand(self, n: Node, ix: tuple, v: E.Expr | None) -> tuple[list, Any]:
        """(the (node, index, valid) values `n` needs, a function building its expression)."""
        op = n.op
        self.tags[n.tag] = None
        self._region[id(n)] = n
        if op == "const":
            lifted = self.params.get(id(n))
            if lifted is not None:  # a runtime scalar: read from a parameter block
                return [], lambda xs: self._param(n, lifted)[0]
            return [], lambda xs: E.const(n.arg, n.dtype)
        if self._is_load(n, ix, v):
            return [], lambda xs: E.load(self.slot(n), n.dtype, flat_index(ix, n.shape), v)
        if op == "view":
            src = n.src[0]
            lifted = self.params.get(id(n))
            if lifted is None:
                index, ok = n.arg.index(ix)
            else:  # its offset and mask bounds are runtime values
                index, ok = params.view_index(n.arg.views[0], ix, self._param(n, lifted), src.size)
            inner = _and(v, ok)
            if inner is not None and inner.is_const and not inner.arg:
                return [], lambda xs: E.const(0, n.dtype)
            if src.op == "buffer" or (id(src) in self.stored and id(src) not in self._member_ids):
                return [], lambda xs: E.load(self.slot(src), n.dtype, index, inner)
            d = self._dep(src, tuple(unflatten(index, src.shape)), inner)
            return [d], lambda xs: E.where(ok, xs[0], E.const(0, n.dtype))
        if op == "reduce":
            rop, axes = n.arg
            ranges = tuple(E.idx(f"q{self._names}_{j}", n.src[0].shape[a]) for j, a in enumerate(axes))
            self._names += 1
            d = self._dep(n.src[0], tuple(reduce_index(n, ix, ranges)), v)

            def build(xs):
                e = E.reduce(rop, xs[0], ranges)
                if e.op == "reduce":
                    self.reduces[id(e)] = n
                return e
            return [d], build
        if op == "fn":
            def call(xs):
                self._fn_stack.append((n, ix, v))
                try:
                    return n.arg.fn(self, list(ix))
                finally:
                    self._fn_stack.pop()
            return [], call
        deps = [self._dep(s, ix, v) for s in n.src]
        return deps, _builder(op, n)

    # ------------------------------------------------------------ the kernel
    def build(self) -> Kernel | None:
        """The kernel, or None when `realize`/`split` list what the scheduler must change."""
        try:
            outs = self.outs = self._lower_all()
        except _Cut as cut:
            self.realize.append(cut.node)
            return None
        tags = [t for t in reversed(self.tags) if t != "kernel"]
        name = "_".join(tags)[:48] or "kernel"
        for o, m in zip(outs, self.members):
            assert o.dtype is m.dtype, (m, o.dtype)
        if self.realize or self.split:
            return None
        self._check_reductions(outs)
        self._check_recomputation(outs)
        self.split += [n for n in self.realize if id(n) in self._member_ids]  # to its own kernel
        self.realize = [n for n in self.realize if id(n) not in self._member_ids]
        if self.realize or self.split:
            return None
        k = self._canonical(outs, name)
        if not self.nested_reduce:  # reductions but the top-level one get kernels of their own
            self.realize = self._not_inlined(outs)
            self.split += [n for n in self.realize if id(n) in self._member_ids]  # to its own kernel
            self.realize = [n for n in self.realize if id(n) not in self._member_ids]
            if self.realize or self.split:
                return None
        return k

    def _not_inlined(self, outs: list[E.Expr]) -> list[Node]:
        """The nested reductions (all but the top-level one) a backend without nested_reduce
        computes in kernels of their own: each invocation of its kernels computes one output
        (or four) and would recompute a nested reduction for every output that reads it, so
        one is kept inline only if it has at most `inline_reduce` terms and each of its
        values is recomputed at most `inline_reduce` times (a 10-class softmax's row max and
        sum in its elementwise kernel: 10 and 10; a 768-wide layer norm's row mean: kernel)."""
        top = self._top
        # a sum of products may become a GEMM routine, which computes no nested reduction (gemm.match)
        limit = 0 if top is not None and top.arg[0] == "add" and top.src[0].op == "mul" else self.inline_reduce
        out = []
        for e in E.walk_all(outs):
            if e.op != "reduce" or e is top:
                continue
            node = self.reduces[id(e)]
            if not inline_fits(prod(n for _, n in e.arg[1]), self.size, node.size, limit):
                out.append(node)
        return out

    def _check_reductions(self, outs: list[E.Expr]) -> None:
        free = E.free_indices(outs)
        level_of = {f"g{i}": i + 1 for i in range(len(self.shape))}
        for e in E.walk_all(outs):
            if e.op != "reduce":
                continue
            own = {name for name, _ in e.arg[1]}
            for inner in E.walk(e.src[0]):
                if inner.op == "reduce" and free[id(inner)] & own:
                    self.realize.append(self.reduces[id(inner)])
            level = max((level_of.get(x, 0) for x in free[id(e)]), default=0)
            node = self.reduces[id(e)]
            if prod(self.shape[:level]) > max(node.size, 1):
                self.realize.append(node)  # computed more often than it has elements

    def _check_recomputation(self, outs: list[E.Expr]) -> None:
        """Costly fused values (transcendental functions, divisions) evaluated many times
        more often than they have elements — a softmax gradient read inside a matrix
        product's loop — become buffers: the outermost such node of each fused chain."""
        costly = _costly(outs)
        if not any(costly.values()):
            return
        trips = _trip_counts(outs, self.shape)
        evals: dict[int, int] = {}
        for key, e in self.memo.items():
            if costly.get(id(e)) and id(e) in trips:
                evals[key[0]] = evals.get(key[0], 0) + trips[id(e)]
        nodes = self._region
        flagged = {nid for nid, t in evals.items() if nid in nodes and nodes[nid].op != "view"
                   and t > RECOMPUTE_LIMIT * max(nodes[nid].size, 1) and not self._is_input(nodes[nid])}
        if not flagged:
            return
        users: dict[int, list] = {}
        for n in nodes.values():
            for src in n.src:
                users.setdefault(id(src), []).append(n)

        def used_by_flagged(nid: int) -> bool:
            stack = list(users.get(nid, ()))
            while stack:
                u = stack.pop()
                if id(u) in flagged:
                    return True
                if u.op == "view":
                    stack.extend(users.get(id(u), ()))
            return False
        self.realize += [nodes[nid] for nid in flagged if not used_by_flagged(nid)]

    @property
    def size(self) -> int:
        """Elements the kernel writes (per output)."""
        return prod(self.shape)

    def fused(self) -> dict[int, tuple[Node, list[E.Expr]]]:
        """id(node) -> (node, the expressions it was lowered to) for every node the kernel
        computes itself: not its inputs or members, views or constants."""
        out: dict[int, tuple[Node, list[E.Expr]]] = {}
        for key, e in self.memo.items():
            n = self._region.get(key[0])
            if n is None or n.op in ("view", "const") or self._is_input(n):
                continue
            out.setdefault(key[0], (n, []))[1].append(e)
        return out

    def _is_input(self, n: Node) -> bool:
        return n.op in ("buffer", "const") or id(n) in self._member_ids or id(n) in self.stored

    def _canonical(self, outs: list[E.Expr], name: str) -> Kernel:
        """A kernel whose one reduction over the full index space is its top-level one (the
        form the fast backend paths know); other reductions stay nested expressions."""
        free = E.free_indices(outs)
        level_of = {f"g{i}": i + 1 for i in range(len(self.shape))}
        top = [o for o in outs if o.op == "reduce"]  # an output that is a reduction
        for e in _outer_reduces(outs):
            level = max((level_of.get(x, 0) for x in free[id(e)]), default=0)
            if prod(self.shape[level:]) == 1 and e not in top:  # once per output element
                top.append(e)
        in_dtypes = tuple(n.dtype for n in self.inputs)
        self._top = top[0] if top else None
        if not top:
            return Kernel(self.shape, None, None, in_dtypes, name=name, outs=tuple(outs))
        r = top[0]
        ranges = E.reduce_ranges(r)
        renamed = {id(q): E.idx(f"r{j}", q.arg[1]) for j, q in enumerate(ranges)}
        body = E.substitute(r.src[0], renamed)
        acc = E.acc(r.dtype)
        stored = tuple(E.substitute(o, {id(r): acc}) for o in outs)
        return Kernel(self.shape, body, None, in_dtypes, tuple(q.arg[1] for q in ranges), r.arg[0],
                      name=name, outs=stored)


#: a costly fused value evaluated this many times more often than it has elements is computed once
RECOMPUTE_LIMIT = 8
_COSTLY = frozenset("""exp exp2 log log1p expm1 sqrt rsqrt cbrt sin cos tan asin acos atan sinh cosh tanh
asinh acosh atanh erf erfc erf_inv lgamma digamma logistic pow atan2 div rem""".split())


def _costly(roots) -> dict[int, bool]:
    """id(expr) -> whether its value needs a costly op (not counting what a load reads)."""
    out: dict[int, bool] = {}
    for e in E.walk_all(roots):
        out[id(e)] = (e.dtype.kind == "f" and e.op in _COSTLY) or (
            e.op != "load" and any(out[id(s)] for s in e.src))
    return out


def _trip_counts(roots, shape: Sequence[int]) -> dict[int, int]:
    """id(expr) -> how often a loop nest evaluates it when every value is computed at the
    shallowest loop its indices allow: the product of the loops down to its deepest index
    (a nested reduction's indices run inside the loop it is computed in)."""
    free = E.free_indices(roots)
    g_level = {f"g{i}": i for i in range(len(shape))}
    ranges: dict[str, int] = {}
    for e in E.walk_all(roots):
        if e.op == "reduce":
            ranges.update(dict(e.arg[1]))
    out: dict[int, int] = {}
    for e in E.walk_all(roots):
        names = free[id(e)]
        deepest = max((g_level[x] for x in names if x in g_level), default=-1)
        n = prod(shape[:deepest + 1])
        for x in names:
            if x not in g_level:
                n *= ranges.get(x, 1)
        out[id(e)] = n
    return out


def _outer_reduces(roots: list[E.Expr]) -> list[E.Expr]:
    """Reduce nodes of `roots` not inside another reduction's body."""
    out, seen = [], set()
    stack = list(roots)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.op == "reduce":
            out.append(e)
        else:
            stack.extend(e.src)
    return out


def inline_fits(terms: int, size: int, reduced: int, bound: int) -> bool:
    """Whether a nested reduction of `terms` terms per value, `reduced` values, read by a kernel of
    `size` outputs, is computed inline under `bound` (Capabilities.inline_reduce): at most `bound`
    terms, and each value recomputed at most `bound` times (once per output reading it)."""
    return terms <= bound and size <= bound * max(reduced, 1)


def _builder(op: str, n: Node):
    """The expression of an elementwise node from its operands' expressions."""
    if op == "cast":
        return lambda xs: E.cast(xs[0], n.dtype)
    if op == "bitcast":
        return lambda xs: E.bitcast(xs[0], n.dtype)
    if op == "where":
        return lambda xs: E.where(*xs)
    if op in E.UNARY:
        return lambda xs: E.unary(op, xs[0])
    if op in E.BINARY:
        return lambda xs: E.binary(op, xs[0], xs[1])
    raise NotImplementedError(f"lowering: graph op {op!r} (from {n.tag})")
