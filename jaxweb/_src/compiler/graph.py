"""The lazy graph: what primitives' lowering rules build and the scheduler cuts into kernels.

A `Node` is one array-valued operation: `op`, `dtype`, `shape`, source nodes `src`
and an argument `arg`. Nodes are hash-consed (building the same operation on the
same sources twice gives the same object), so a jaxpr or a stretch of eager code
becomes one DAG with its common subexpressions shared, whose size is linear in the
program however the values are reused. Ops:

- `buffer`: device memory, flat (`shape == (size,)`); `arg` is a `Buffer` or, in a
  jitted program, an `Input` placeholder.
- `const`: a scalar broadcast to `shape` (costs no memory).
- `view`: a movement op (reshape, permute, expand, shrink, pad, flip, stride) of its
  source as a ShapeTracker over the source's row-major elements: views never copy;
  a view of a view composes into one ShapeTracker.
- elementwise: IR ALU ops (`expr.UNARY`, `expr.BINARY`), `cast`, `bitcast`, `where`, and
  `complex` (re + i im). Nodes may have complex dtypes; `complex_pairs.legalize` turns
  them into pairs of real nodes before scheduling, so kernels never see complex values.
- `reduce`: `arg = (op, axes)` with op one of add/mul/max/min.
- `fn`: elements given by a function of the output index (iota, gathers, windows,
  scatters): `arg` is an `IndexFn` whose `fn(ctx, idxs)` returns the element's
  expression, reading its declared sources with `src.at(ctx, index_exprs)`.
- `call` and `output`: a control-flow step (`kernel.Call`: a cond, while or scan over
  sub-programs, themselves lazy graphs) applied to its sources, and its results; the
  scheduler gives a call buffers in and buffers out and never fuses across it.

Nothing here decides kernel boundaries or touches a device: `schedule.py` does.
"""
from __future__ import annotations

import functools
import math
import weakref
from typing import Any, Callable, Sequence

from .. import dtypes
from ..dtypes import DType
from . import expr as E
from .shapetracker import ShapeTracker, prod

#: float sums over more elements than this are done in two stages of SUM_BLOCK-sized blocks
SPLIT_SUM = 16384
SUM_BLOCK = 1024
#: any reduction over more elements than this is done in two stages too, so that no loop
#: counts past int32 (backends' loop counters are 32-bit)
SPLIT_ANY = E.INT32_MAX

ELEMENTWISE = frozenset(E.UNARY | E.BINARY | {"cast", "bitcast", "where", "complex"})


class Input:
    """A jitted program's input buffer (bound to a real buffer at each call); a donated one
    may be overwritten by the program once it has read it (`donate_argnums`)."""

    __slots__ = ("index", "size", "dtype", "donated")

    def __init__(self, index: int, size: int, dtype: DType, donated: bool = False):
        self.index, self.size, self.dtype, self.donated = index, size, dtype, donated

    def __repr__(self) -> str:
        return f"Input({self.index}: {self.dtype.name}[{self.size}])"


class IndexFn:
    """An `fn` node's element function, named for kernel names and error messages.
    `buffered`: the node is computed into a buffer of its own (a lowering rule that knows
    its value is read at many indices, such as a sorting network's stage, says so up front
    rather than have the scheduler find each cut by retrying)."""

    __slots__ = ("fn", "name", "buffered")

    def __init__(self, fn: Callable, name: str, buffered: bool = False):
        self.fn, self.name, self.buffered = fn, name, buffered

    def __repr__(self) -> str:
        return f"IndexFn({self.name})"


#: the primitive whose lowering is running (a node's `tag`: kernel names, error messages)
current_tag: list[str] = ["kernel"]


class Node:
    """One lazy array operation. Build with the functions below; never mutate."""

    __slots__ = ("op", "dtype", "shape", "src", "arg", "tag", "__weakref__")

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: prod(self.shape))

    def __repr__(self) -> str:
        return f"Node({self.op}: {self.dtype.name}{list(self.shape)})"

    __hash__ = object.__hash__
    __eq__ = object.__eq__

    @property
    def value(self) -> Any:
        """A const node's scalar."""
        assert self.op == "const"
        return self.arg

    # movement ops: all free (views)
    def reshape(self, shape): return _move(self, "reshape", tuple(shape))
    def permute(self, order): return _move(self, "permute", tuple(order))
    def expand(self, shape): return _move(self, "expand", tuple(shape))
    def shrink(self, bounds): return _move(self, "shrink", tuple(tuple(b) for b in bounds))
    def flip(self, axes): return _move(self, "flip", tuple(axes)) if axes else self
    def stride(self, steps): return _move(self, "stride", tuple(steps))

    def pad(self, widths, value: Any = 0) -> "Node":
        """Pad with non-negative (lo, hi) widths; the padding reads as `value`."""
        widths = tuple(tuple(w) for w in widths)
        if all(w == (0, 0) for w in widths):
            return self
        if isinstance(value, Node) and value.op == "const":
            value = value.arg
        if not isinstance(value, Node) and value == 0 and not _is_neg_zero(value):
            return _move(self, "pad", widths)
        shape = tuple(n + a + b for n, (a, b) in zip(self.shape, widths))
        mask = const(True, dtypes.bool_, self.shape).pad(widths)
        fill = value if isinstance(value, Node) else const(value, self.dtype, ())
        return where(mask, _move(self, "pad", widths), fill.expand_to(shape))

    def expand_to(self, shape) -> "Node":
        """Broadcast a lower-rank node to `shape` (numpy rules, leading dims added)."""
        shape = tuple(shape)
        if self.shape == shape:
            return self
        lead = (1,) * (len(shape) - self.ndim)
        return self.reshape(lead + self.shape).expand(shape)

    def cast(self, dtype: DType) -> "Node":
        return self if dtype is self.dtype else _elementwise("cast", (self,), dtype)

    def bitcast(self, dtype: DType) -> "Node":
        return self if dtype is self.dtype else _elementwise("bitcast", (self,), dtype)

    def reduce(self, op: str, axes: Sequence[int]) -> "Node":
        axes = tuple(sorted(a % self.ndim for a in axes)) if self.ndim else ()
        if not axes:
            return self
        n = prod(self.shape[a] for a in axes)
        if n > SPLIT_ANY or (op == "add" and self.dtype.kind == "f" and n > SPLIT_SUM):
            return self._two_stage(op, axes, n)
        return _reduce(self, op, axes)

    def _two_stage(self, op: str, axes: tuple[int, ...], n: int) -> "Node":
        """A long reduction as reductions of blocks, then of those. For float sums this bounds
        rounding (a running sum of n terms loses ~n ulps, 2^24 + 1 == 2^24 in float32; blocks
        bound it to ~SUM_BLOCK + n/SUM_BLOCK); for any reduction past 2^31 - 1 elements it
        keeps every loop within int32. The tail block is padded with the op's identity."""
        keep = [a for a in range(self.ndim) if a not in axes]
        block = SUM_BLOCK if n <= SPLIT_ANY * SUM_BLOCK else -(-n // SPLIT_ANY)
        blocks = -(-n // block)
        flat = self.permute(keep + list(axes)).reshape(tuple(self.shape[a] for a in keep) + (n,))
        padded = flat.pad([(0, 0)] * len(keep) + [(0, blocks * block - n)],
                          E.REDUCE_IDENTITY[op](self.dtype))
        tiles = padded.reshape(padded.shape[:-1] + (blocks, block))
        partial = _reduce(tiles, op, (tiles.ndim - 1,))
        return _reduce(partial, op, (partial.ndim - 1,))

    def at(self, ctx: Any, idxs: Sequence[E.Expr]) -> E.Expr:
        """The expression of the element at `idxs` (inside an `fn` node's function)."""
        return ctx.read(self, tuple(idxs))


#: leaves that are not a device `Buffer` (see `buffer`), under ("buffer", id(leaf))
_CACHE: "weakref.WeakValueDictionary[tuple, Node]" = weakref.WeakValueDictionary()
#: every other node, hash-consed: (op, dtype, shape, its sources' ids, arg key) -> a weak reference
#: to the node (a node holds its sources, so their ids name them while it lives). A dict of plain
#: weak references whose callback (`_forget`) drops the entry if it is still theirs, rather than a
#: WeakValueDictionary, whose get, set (a KeyedRef) and removal are Python calls: ~0.5 us per node
#: made and freed instead of ~1.1, and every scalar a training step makes is a node
_NODES: dict[tuple, weakref.ref] = {}


def _forget(nodes: dict, key: tuple, ref: weakref.ref) -> None:
    """A dead node's entry goes, unless a newer node took the key already (`nodes` is bound:
    the callback may run when the module's globals are gone, at exit)."""
    if nodes.get(key) is ref:
        del nodes[key]


def _mk(op: str, dtype: DType, shape: tuple, src: tuple, arg: Any, arg_key: Any) -> Node:
    key = (op, dtype, shape, tuple(map(id, src)), arg_key)
    ref = _NODES.get(key)
    if ref is not None:
        n = ref()
        if n is not None:
            return n
    n = Node.__new__(Node)
    n.op, n.dtype, n.shape, n.src, n.arg, n.tag = op, dtype, shape, src, arg, current_tag[-1]
    _NODES[key] = weakref.ref(n, functools.partial(_forget, _NODES, key))
    return n


def _is_neg_zero(v: Any) -> bool:
    return isinstance(v, float) and v == 0 and str(v).startswith("-")


# ---------------------------------------------------------------- leaves
def buffer(buf: Any) -> Node:
    """The flat node of a device buffer (or an `Input` placeholder): one per buffer. A device
    `Buffer` (its class says `keeps_node`) holds a weak reference to its node, which is cheaper
    than the cache (a jitted call makes one per output); other leaves are in the cache under the
    buffer's id (the node holds the buffer, so the id names it while the node lives)."""
    if getattr(type(buf), "keeps_node", False):
        ref = buf.node_ref
        n = ref() if ref is not None else None
    else:
        n = _CACHE.get(("buffer", id(buf)))
    return n if n is not None else fresh_buffer(buf)


def fresh_buffer(buf: Any) -> Node:
    """`buffer(buf)` for a buffer no node reads yet (a call's output, just made)."""
    n = Node.__new__(Node)
    n.op, n.dtype, n.shape, n.src, n.arg, n.tag = "buffer", buf.dtype, (buf.size,), (), buf, current_tag[-1]
    if getattr(type(buf), "keeps_node", False):
        buf.node_ref = weakref.ref(n)
    else:
        _CACHE[("buffer", id(buf))] = n
    return n


def view(base: Node, st: ShapeTracker) -> Node:
    """`base` read through `st` (a ShapeTracker over base's row-major elements)."""
    if st.shape == base.shape and st.is_contiguous:
        return base
    return _mk("view", base.dtype, st.shape, (base,), st, st)


def fresh_view(base: Node, st: ShapeTracker | None) -> Node:
    """`view(base, st)` for the node of a buffer just made (a jitted call's output), left out
    of the hash-consing cache: a call's outputs cost no weak reference each. Safe because
    what relies on sharing is the buffer's own node (hash-consed): every array reading the
    buffer holds that node (views compose onto it), which is what `executable._sole_holder`
    counts; a second, equal view node of it only shares less. `st` None: `base` itself."""
    if st is None:
        return base
    n = Node.__new__(Node)
    n.op, n.dtype, n.shape, n.src, n.arg, n.tag = "view", base.dtype, st.shape, (base,), st, current_tag[-1]
    return n


def fresh_output(buf: Any, st: ShapeTracker | None) -> Node:
    """`fresh_view(fresh_buffer(buf), st)` in one call, for a device `Buffer` just made: a
    jitted call makes one per output, every call."""
    tag = current_tag[-1]
    n = Node.__new__(Node)
    n.op, n.dtype, n.shape, n.src, n.arg, n.tag = "buffer", buf.dtype, (buf.size,), (), buf, tag
    buf.node_ref = weakref.ref(n)
    if st is None:
        return n
    v = Node.__new__(Node)
    v.op, v.dtype, v.shape, v.src, v.arg, v.tag = "view", buf.dtype, st.shape, (n,), st, tag
    return v


def const(value: Any, dtype: DType, shape: Sequence[int] = ()) -> Node:
    """A scalar broadcast to `shape`: no memory at all."""
    v = E.normalize_scalar(value, dtype)
    return _mk("const", dtype, tuple(shape), (), v, E._hashable(v))


def ConstSym(value: Any, dtype: DType, shape: Sequence[int] = ()) -> Node:  # noqa: N802  (lowering rules' name)
    return const(value, dtype, shape)


def is_const(x: Any) -> bool:
    return isinstance(x, Node) and x.op == "const"


def fn(shape: Sequence[int], dtype: DType, element: Callable, srcs: Sequence[Node] = (),
       name: str | None = None, buffered: bool = False) -> Node:
    """Elements `element(ctx, idxs)` (an expression reading `srcs` through `src.at(ctx, ...)`)."""
    f = IndexFn(element, name or current_tag[-1], buffered)
    return _mk("fn", dtype, tuple(shape), tuple(srcs), f, id(f))


def FnSym(shape: Sequence[int], dtype: DType, element: Callable, srcs: Sequence[Node] = ()) -> Node:  # noqa: N802
    return fn(shape, dtype, element, srcs)


def call(program: Any, srcs: Sequence[Node], out_types: Sequence[tuple]) -> list[Node]:
    """The result nodes of control-flow step `program` (a `kernel.Call`) on `srcs`;
    `out_types` are (shape, dtype) pairs. The call keeps its result nodes (`program.outs`)."""
    c = _mk("call", dtypes.bool_, (), tuple(srcs), program, id(program))
    outs = [_mk("output", dt, tuple(shape), (c,), i, i) for i, (shape, dt) in enumerate(out_types)]
    program.outs, program.node = outs, c
    return outs


# ---------------------------------------------------------------- movement
def _move(s: Node, op: str, arg: Any) -> Node:
    if (op in ("reshape", "expand") and arg == s.shape) or (op == "permute" and arg == tuple(range(s.ndim))):
        return s
    if s.op == "const" and op != "pad":
        probe = getattr(ShapeTracker.from_shape(s.shape), op)(arg)
        return const(s.arg, s.dtype, probe.shape)
    if s.op == "view":
        return view(s.src[0], getattr(s.arg, op)(arg))
    return view(s, getattr(ShapeTracker.from_shape(s.shape), op)(arg))


# ---------------------------------------------------------------- elementwise
def _elementwise(op: str, srcs: tuple, dtype: DType) -> Node:
    shape = srcs[0].shape
    for s in srcs[1:]:
        assert s.shape == shape, (op, [x.shape for x in srcs])
    return _mk(op, dtype, shape, srcs, None, None)


def alu(op: str, *srcs: Node) -> Node:
    """Elementwise ALU op; the result dtype is the operands' (bool for comparisons)."""
    dt = dtypes.bool_ if op in E.COMPARISONS or op == "is_finite" else srcs[0].dtype
    if op in _TO_REAL:  # |z|, Re z, Im z of a complex z are real
        dt = dtypes.real_part_dtype(dt)
    if all(s.op == "const" for s in srcs) and dt.kind in "iub":
        xs = [E.const(s.arg, s.dtype) for s in srcs]
        e = E.unary(op, xs[0]) if len(xs) == 1 else E.binary(op, *xs)
        if e.is_const:
            return const(e.arg, dt, srcs[0].shape)
    return _elementwise(op, tuple(srcs), dt)


_TO_REAL = frozenset(("abs", "real", "imag"))


def make_complex(re: Node, im: Node) -> Node:
    """The complex node re + i im (of real nodes of one shape and float dtype)."""
    return _elementwise("complex", (re, im), dtypes.complex_of(re.dtype))


def where(c: Node, a: Node, b: Node) -> Node:
    if c.op == "const":
        return a if c.arg else b
    if a is b:
        return a
    return _elementwise("where", (c, a, b), a.dtype)


def const_like(s: Node, value: Any, dtype: DType | None = None) -> Node:
    return const(value, dtype or s.dtype, s.shape)


def iota(dtype: DType, shape: Sequence[int], dimension: int) -> Node:
    return _iota(dtype, tuple(shape), dimension)


def _iota(dtype: DType, shape: tuple, dimension: int) -> Node:
    key = ("iota", dtype, shape, dimension)
    n = _IOTAS.get(key)
    if n is None:
        n = _IOTAS[key] = fn(shape, dtype, lambda ctx, idxs: E.cast(idxs[dimension], dtype), (), "iota")
    return n


_IOTAS: "weakref.WeakValueDictionary[tuple, Node]" = weakref.WeakValueDictionary()


def _reduce(x: Node, op: str, axes: tuple[int, ...]) -> Node:
    assert op in E.REDUCE_OPS, op
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return _mk("reduce", x.dtype, shape, (x,), (op, axes), (op, axes))


def reduce_index(node: Node, g: Sequence[E.Expr], r: Sequence[E.Expr]) -> list[E.Expr]:
    """The source index of a reduce node: output indices `g` with reduced ones `r` inserted."""
    axes = node.arg[1]
    gi, ri = iter(g), iter(r)
    return [next(ri) if i in axes else next(gi) for i in range(node.src[0].ndim)]


# ---------------------------------------------------------------- traversal
def toposort(roots: Sequence[Node]) -> list[Node]:
    """Distinct nodes under `roots`, sources before users (iterative: graphs can be deep)."""
    order: list[Node] = []
    seen: set[int] = set()
    for root in roots:
        if id(root) in seen:
            continue
        stack = [(root, False)]
        while stack:
            n, done = stack.pop()
            if done:
                order.append(n)
                continue
            if id(n) in seen:
                continue
            seen.add(id(n))
            stack.append((n, True))
            stack.extend((s, False) for s in reversed(n.src) if id(s) not in seen)
    return order


def call_outputs(n: Node) -> list[Node]:
    """A call node's result nodes, in order."""
    return n.arg.outs


def whole_buffer(n: Node) -> Node | None:
    """The buffer node whose elements `n` reads all of, in row-major order (`n` itself, or a
    contiguous view of all of it), else None."""
    if n.op == "buffer":
        return n
    if n.op == "view" and n.src[0].op == "buffer" and n.arg.is_contiguous \
            and n.src[0].shape[0] == math.prod(n.shape):  # (a jitted call asks this of each argument)
        return n.src[0]
    return None


def is_realized(n: Node) -> bool:
    """Whether the node's value exists without computing: memory, a view of it, a constant."""
    return n.op in ("buffer", "const") or (n.op == "view" and n.src[0].op == "buffer")
