"""Complex nodes become pairs of real nodes before scheduling: backends see floats only.

Lowering rules treat complex dtypes like any other: structural ops (views, gathers,
scatters, selects, sums) carry complex nodes through unchanged, and arithmetic builds
ALU nodes of complex dtype. `legalize(outputs)` then rewrites the graph so that no
kernel ever meets a complex value:

- a complex buffer of n elements is read as 2n interleaved floats (re, im, re, ...),
  its parts are strided views of that memory (`RealAlias`);
- every complex node becomes a pair (re, im) of real nodes: views and selects apply to
  each part, ALU ops expand into the formulas of `complex_math`, `fn` nodes (gathers,
  scatters, windows) run their element function once per part, reductions reduce each
  part (products by a tree of complex multiplications);
- a complex program output is the two parts interleaved again (`join`) into a new
  buffer of 2n floats, which `wrap` hands back as a complex buffer of n elements.

So the reference interpreter, the Wasm code generator and any later backend compute
complex numbers with no code of their own, and complex kernels fuse like real ones.
"""
from __future__ import annotations

import copy
from typing import Any, Sequence

from .. import dtypes
from . import complex_math as C
from . import expr as E
from . import graph
from .graph import Input, Node
from .shapetracker import ShapeTracker, View, prod


class RealAlias:
    """The memory of a complex buffer (or a jitted program's complex input) read as
    twice as many floats; the complex buffer stays alive while the alias is used."""

    __slots__ = ("base", "dtype", "size")

    def __init__(self, base: Any):
        self.base, self.dtype, self.size = base, dtypes.real_part_dtype(base.dtype), 2 * base.size

    def __getattr__(self, name: str) -> Any:  # handle, device, nbytes: those of the base
        return getattr(self.base, name)

    def __repr__(self) -> str:
        return f"RealAlias({self.base!r})"


def needs_legalizing(order: Sequence[Node]) -> bool:
    return any(n.dtype.kind == "c" for n in order)


def legalize(outputs: Sequence[Node], effects: Sequence[Node]) -> tuple[list[Node], list[Node], dict]:
    """(outputs, effects) with every complex node replaced by real ones, and
    {output position: complex dtype} for the outputs that were complex (now interleaved)."""
    lg = _Legalizer()
    for n in graph.toposort(list(outputs) + list(effects)):
        graph.current_tag.append(n.tag)
        try:
            lg.visit(n)
        finally:
            graph.current_tag.pop()
    outs, kinds = [], {}
    for i, o in enumerate(outputs):
        if o.dtype.kind == "c":
            kinds[i] = o.dtype
            outs.append(join(lg.pair(o)))
        else:
            outs.append(lg.real(o))
    return outs, [lg.real(e) for e in effects], kinds


def join(p: C.Pair) -> Node:
    """The interleaved (..., 2) float node of a pair: re at [..., 0], im at [..., 1]."""
    re, im = p
    shape = re.shape + (1,)
    first = graph.const(True, dtypes.bool_, shape).pad([(0, 0)] * re.ndim + [(0, 1)])
    lo = re.reshape(shape).pad([(0, 0)] * re.ndim + [(0, 1)])
    hi = im.reshape(shape).pad([(0, 0)] * re.ndim + [(1, 0)])
    return graph.where(first, lo, hi)


class _Legalizer:
    """One pass over a graph in topological order: each complex node's (re, im) pair, each
    real node's replacement (itself unless something under it was complex)."""

    def __init__(self):
        self.pairs: dict[int, C.Pair] = {}
        self.reals: dict[int, Node] = {}
        self.aliases: dict[int, Any] = {}  # id(complex buffer or Input) -> its real alias

    def pair(self, n: Node) -> C.Pair:
        return self.pairs[id(n)]

    def real(self, n: Node) -> Node:
        return self.reals[id(n)]

    def visit(self, n: Node) -> None:
        if n.op in ("call", "output"):
            self._control(n)
        elif n.dtype.kind == "c":
            self.pairs[id(n)] = self._complex(n)
        elif any(s.dtype.kind == "c" or self.reals[id(s)] is not s for s in n.src):
            self.reals[id(n)] = self._real(n)  # a real node over rewritten sources
        else:
            self.reals[id(n)] = n

    def _src(self, s: Node) -> Any:
        return self.pairs[id(s)] if s.dtype.kind == "c" else self.reals[id(s)]

    # ------------------------------------------------------------ complex nodes
    def _complex(self, n: Node) -> C.Pair:
        op = n.op
        part = dtypes.real_part_dtype(n.dtype)
        if op == "buffer":
            return _interleaved_parts(graph.buffer(self._alias(n)), n.shape)
        if op == "const":
            v = complex(n.arg)
            return graph.const(v.real, part, n.shape), graph.const(v.imag, part, n.shape)
        if op == "view":
            return tuple(_view_of(p, n.arg) for p in self.pair(n.src[0]))
        if op == "where":
            c = self.real(n.src[0])
            a, b = self.pair(n.src[1]), self.pair(n.src[2])
            return graph.where(c, a[0], b[0]), graph.where(c, a[1], b[1])
        if op == "complex":
            return self.real(n.src[0]), self.real(n.src[1])
        if op == "cast":
            return self._cast_to_complex(n, part)
        if op == "reduce":
            return self._reduce(n)
        if op == "fn":
            return tuple(self._fn(n, part, k) for k in (0, 1))
        rule = C.COMPLEX_RESULT.get(op)
        if rule is None:
            raise NotImplementedError(f"{n.tag}: jaxweb cannot compute {op!r} on complex values")
        return rule(*[self.pair(s) for s in n.src])

    def _cast_to_complex(self, n: Node, part: dtypes.DType) -> C.Pair:
        s = n.src[0]
        if s.dtype.kind == "c":
            re, im = self.pair(s)
            return re.cast(part), im.cast(part)
        re = self.real(s).cast(part)
        return re, graph.const(0.0, part, n.shape)

    def _reduce(self, n: Node) -> C.Pair:
        op, axes = n.arg
        re, im = self.pair(n.src[0])
        if op == "add":
            return re.reduce("add", axes), im.reduce("add", axes)
        if op == "mul":
            return _product((re, im), axes)
        # max/min in numpy's order: the extreme real part, then the extreme imaginary part
        # among the elements that have it
        best = re.reduce(op, axes)
        shape = tuple(1 if i in axes else d for i, d in enumerate(re.shape))
        hit = graph.alu("eq", re, best.reshape(shape).expand(re.shape))
        fill = graph.const(E.REDUCE_IDENTITY[op](im.dtype), im.dtype, im.shape)
        return best, graph.where(hit, im, fill).reduce(op, axes)

    def _fn(self, n: Node, part: dtypes.DType, k: int) -> Node:
        srcs, pairs = _fn_sources(n, self)
        element = n.arg.fn

        def component(ctx, idxs):
            pctx = _PartCtx(ctx, pairs)
            return _part_expr(element(pctx, idxs), k, ctx, pctx.slots)
        return graph.fn(n.shape, part, component, srcs, n.arg.name)

    # ------------------------------------------------------------ real nodes over complex ones
    def _real(self, n: Node) -> Node:
        op = n.op
        if op in C.REAL_RESULT and n.src and n.src[0].dtype.kind == "c":
            return C.REAL_RESULT[op](*[self.pair(s) for s in n.src])
        if op == "cast" and n.src[0].dtype.kind == "c":
            return self._cast_from_complex(n)
        if op == "bitcast" and n.src[0].dtype.kind == "c":
            raise NotImplementedError(f"{n.tag}: jaxweb cannot bitcast complex values")
        if any(s.dtype.kind == "c" for s in n.src):
            raise NotImplementedError(f"{n.tag}: jaxweb cannot compute {op!r} on complex values")
        if op == "view":
            return _view_of(self.real(n.src[0]), n.arg)
        if op == "reduce":
            return graph._reduce(self.real(n.src[0]), *n.arg)
        if op == "where":
            return graph.where(*[self.real(s) for s in n.src])
        if op in ("cast", "bitcast"):
            return getattr(self.real(n.src[0]), op)(n.dtype)
        if op == "fn":  # a real fn over real sources some complex node fed
            srcs, pairs = _fn_sources(n, self)
            element = n.arg.fn
            return graph.fn(n.shape, n.dtype, lambda ctx, idxs: element(_PartCtx(ctx, pairs), idxs),
                            srcs, n.arg.name)
        return graph.alu(op, *[self.real(s) for s in n.src])

    # ------------------------------------------------------------ control flow
    def _control(self, n: Node) -> None:
        """A control-flow step moves buffers: complex operands and results are passed as
        their interleaved floats (the sub-programs, scheduled on their own, read and write
        exactly that layout)."""
        if n.op == "call":
            self.reals[id(n)] = self._call(n)
            return
        call = self.reals[id(n.src[0])]
        out = n if call is n.src[0] else call.arg.outs[n.arg]
        if n.dtype.kind == "c":
            self.pairs[id(n)] = _interleaved_parts(out, n.shape)
        else:
            self.reals[id(n)] = out

    def _call(self, n: Node) -> Node:
        program = n.arg
        srcs = [self._call_src(s) for s in n.src]
        if all(a is b for a, b in zip(srcs, n.src)) and not any(o.dtype.kind == "c" for o in program.outs):
            return n
        types = [(o.shape + (2,), dtypes.real_part_dtype(o.dtype)) if o.dtype.kind == "c" else (o.shape, o.dtype)
                 for o in program.outs]
        step = copy.copy(program)  # the same sub-programs, with this graph's result nodes
        graph.call(step, srcs, types)
        return step.node

    def _call_src(self, s: Node) -> Node:
        if s.dtype.kind != "c":
            return self.reals[id(s)]
        base = graph.whole_buffer(s)
        if base is not None:  # the buffer holds the pairs as they are
            return graph.buffer(self._alias(base))
        return join(self.pair(s))

    def _alias(self, n: Node) -> Any:
        base = n.arg
        a = self.aliases.get(id(base))
        if a is None:
            a = self.aliases[id(base)] = (Input(base.index, 2 * base.size, dtypes.real_part_dtype(base.dtype),
                                                base.donated) if isinstance(base, Input) else RealAlias(base))
        return a

    def _cast_from_complex(self, n: Node) -> Node:
        re, im = self.pair(n.src[0])
        if n.dtype.kind == "b":  # nonzero: either part
            return graph.alu("or", graph.alu("ne", re, graph.const_like(re, 0.0)),
                             graph.alu("ne", im, graph.const_like(im, 0.0)))
        return re.cast(n.dtype)  # the real part, as JAX's convert_element_type


def _interleaved_parts(flat: Node, shape: tuple[int, ...]) -> C.Pair:
    """The (re, im) views, of `shape`, of a real node whose elements are interleaved pairs."""
    n = prod(shape)
    return tuple(graph.view(flat, ShapeTracker((View((n,), (2,), k, None),)).reshape(shape)) for k in (0, 1))


def _view_of(src: Node, st: ShapeTracker) -> Node:
    """`st` (over src's elements) applied to real node `src`, composed with src's own view."""
    if src.op == "view":
        return graph.view(src.src[0], ShapeTracker(src.arg.views + st.views))
    if src.op == "const":
        return graph.const(src.arg, src.dtype, st.shape)
    return graph.view(src, st)


def _product(p: C.Pair, axes: tuple[int, ...]) -> C.Pair:
    """A complex product over `axes`: the reduced axes flattened last, padded with ones to
    a power of two, halved by complex multiplications (log2 n levels that fuse)."""
    re, im = p
    keep = [a for a in range(re.ndim) if a not in axes]
    n = prod(re.shape[a] for a in axes)
    lead = tuple(re.shape[a] for a in keep)
    size = 1
    while size < n:
        size *= 2
    widths = [(0, 0)] * len(lead) + [(0, size - n)]
    re = re.permute(keep + list(axes)).reshape(lead + (n,)).pad(widths, 1.0)
    im = im.permute(keep + list(axes)).reshape(lead + (n,)).pad(widths, 0.0)
    while size > 1:
        size //= 2
        lo = [(0, d) for d in lead] + [(0, size)]
        hi = [(0, d) for d in lead] + [(size, 2 * size)]
        re, im = C.mul((re.shrink(lo), im.shrink(lo)), (re.shrink(hi), im.shrink(hi)))
    return re.reshape(lead), im.reshape(lead)


# ---------------------------------------------------------------- fn nodes, part by part
def _fn_sources(n: Node, lg: _Legalizer) -> tuple[list[Node], dict]:
    """The legalized sources of an `fn` node (both parts of complex ones), and a map from
    each original source to its replacement: a node, or a (re, im) pair."""
    srcs, pairs = [], {}
    for s in n.src:
        r = lg._src(s)
        pairs[id(s)] = r
        srcs.extend(r if isinstance(r, tuple) else (r,))
    return srcs, pairs


class _PartCtx:
    """What an element function of an `fn` node sees while one part is lowered: reading a
    complex source gives a placeholder load of complex dtype (resolved by `_part_expr`);
    reading a real source reads its legalized node."""

    def __init__(self, ctx: Any, pairs: dict):
        #: placeholder slot -> (pair, index), live while this one element is lowered: its
        #: own, since resolving a slot may lower another complex element (nested fns)
        self._ctx, self._pairs, self.slots = ctx, pairs, {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def read(self, node: Node, idxs: tuple) -> E.Expr:
        r = self._pairs[id(node)]
        if not isinstance(r, tuple):
            return self._ctx.read(r, idxs)
        key = len(self.slots)
        self.slots[key] = (r, tuple(idxs))
        return E.load(-1 - key, node.dtype, E.const(0, dtypes.int32))


def _part_expr(e: E.Expr, k: int, ctx: Any, slots: dict) -> E.Expr:
    """Part k of an element expression that computed a complex value from complex reads:
    placeholders become reads of part k, complex constants their part k, and every
    complex-typed op the same op on parts (only ops linear in each part are allowed)."""
    if e.dtype.kind != "c":
        return e
    memo: dict[int, E.Expr] = {}
    for x in E.walk(e):
        if x.dtype.kind != "c":
            memo[id(x)] = x if not x.src else E.rebuild(x, tuple(memo[id(s)] for s in x.src))
        elif x.op == "load" and x.arg < 0:
            pair, idxs = slots[-1 - x.arg]
            memo[id(x)] = ctx.read(pair[k], idxs)
        elif x.op == "const":
            v = complex(x.arg)
            memo[id(x)] = E.const(v.imag if k else v.real, dtypes.real_part_dtype(x.dtype))
        elif x.op in ("where", "add", "sub", "neg"):
            memo[id(x)] = E.rebuild(x, tuple(memo[id(s)] for s in x.src))
        elif x.op == "cast" and x.src[0].dtype.kind != "c":
            src = memo[id(x.src[0])]
            memo[id(x)] = E.cast(src, dtypes.real_part_dtype(x.dtype)) if k == 0 else \
                E.const(0.0, dtypes.real_part_dtype(x.dtype))
        else:
            raise NotImplementedError(f"jaxweb cannot compute {x.op!r} of complex values inside "
                                      "an indexing or window operation")
    return memo[id(e)]
