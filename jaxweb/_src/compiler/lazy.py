"""Symbolic arrays for lowering: what a primitive's lowering rule works on.

A `Sym` has a shape and dtype and knows how to produce the IR expression of its
element at an index (`at`). Lowering rules compose Syms: elementwise ops build
expression trees, movement ops fold into ShapeTrackers (so they never copy),
reductions mark kernel boundaries. `realize` turns a Sym into a Kernel (plus any
kernels its inner reductions need) and runs it. Eager dispatch lowers one primitive
at a time; jit will lower a whole jaxpr through the same rules, fusing as it goes.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import dtypes
from ..dtypes import DType
from . import expr as E
from .kernel import Kernel, gidx, identity, ridx
from .shapetracker import ShapeTracker, prod, unflatten

Index = Sequence[E.Expr]
#: float sums over more elements than this are done in two stages of SUM_BLOCK-sized blocks
SPLIT_SUM = 16384
SUM_BLOCK = 1024


class Sym:
    shape: tuple[int, ...]
    dtype: DType

    def at(self, ctx: "KernelBuilder", idxs: Index) -> E.Expr:
        raise NotImplementedError

    ndim = property(lambda self: len(self.shape))

    # movement ops: all free (see `_move`)
    def reshape(self, shape): return _move(self, "reshape", tuple(shape))
    def permute(self, order): return _move(self, "permute", tuple(order))
    def expand(self, shape): return _move(self, "expand", tuple(shape))
    def shrink(self, bounds): return _move(self, "shrink", tuple(tuple(b) for b in bounds))
    def flip(self, axes): return _move(self, "flip", tuple(axes)) if axes else self
    def stride(self, steps): return _move(self, "stride", tuple(steps))

    def pad(self, widths, value: Any = 0) -> "Sym":
        """Pad with non-negative (lo, hi) widths; the padding reads as `value`."""
        widths = tuple(tuple(w) for w in widths)
        if all(w == (0, 0) for w in widths):
            return self
        if value == 0 or (isinstance(value, Sym) and isinstance(value, ConstSym) and value.value == 0):
            return _move(self, "pad", widths)
        shape = tuple(n + a + b for n, (a, b) in zip(self.shape, widths))
        mask = ConstSym(True, dtypes.bool_, self.shape).pad(widths)
        fill = value if isinstance(value, Sym) else ConstSym(value, self.dtype, ())
        return where(mask, _move(self, "pad", widths), fill.expand_to(shape))

    def expand_to(self, shape) -> "Sym":
        """Broadcast a lower-rank Sym to `shape` (numpy rules, leading dims added)."""
        shape = tuple(shape)
        if self.shape == shape:
            return self
        lead = (1,) * (len(shape) - self.ndim)
        return self.reshape(lead + self.shape).expand(shape)

    def cast(self, dtype: DType) -> "Sym":
        return self if dtype is self.dtype else MapSym("cast", (self,), dtype)

    def bitcast(self, dtype: DType) -> "Sym":
        return self if dtype is self.dtype else MapSym("bitcast", (self,), dtype)

    def reduce(self, op: str, axes: Sequence[int]) -> "Sym":
        axes = tuple(sorted(a % self.ndim for a in axes)) if self.ndim else ()
        if not axes:
            return self
        if op == "add" and self.dtype.kind == "f" and prod(self.shape[a] for a in axes) > SPLIT_SUM:
            return self._two_stage_sum(axes)
        return ReduceSym(self, op, axes)

    def _two_stage_sum(self, axes: tuple[int, ...]) -> "Sym":
        """A long float sum as sums of blocks, then the sum of those: a running sum of n terms
        loses ~n ulps (2^24 + 1 == 2^24 in float32), blocks bound that to ~SUM_BLOCK + n/SUM_BLOCK."""
        keep = [a for a in range(self.ndim) if a not in axes]
        n = prod(self.shape[a] for a in axes)
        blocks = -(-n // SUM_BLOCK)
        flat = self.permute(keep + list(axes)).reshape(tuple(self.shape[a] for a in keep) + (n,))
        padded = flat.pad([(0, 0)] * len(keep) + [(0, blocks * SUM_BLOCK - n)])
        tiles = padded.reshape(padded.shape[:-1] + (blocks, SUM_BLOCK))
        partial = ReduceSym(tiles, "add", (tiles.ndim - 1,))
        return ReduceSym(partial, "add", (partial.ndim - 1,))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.dtype.name}{list(self.shape)})"


class BufSym(Sym):
    """A device buffer read through a ShapeTracker."""

    def __init__(self, buf: Any, st: ShapeTracker, dtype: DType):
        self.buf, self.st, self.dtype, self.shape = buf, st, dtype, st.shape

    def at(self, ctx, idxs):
        index, valid = self.st.index(idxs)
        return E.load(ctx.slot(self.buf), self.dtype, index, valid)


class ConstSym(Sym):
    """A scalar broadcast to a shape: costs no buffer at all."""

    def __init__(self, value: Any, dtype: DType, shape: tuple[int, ...] = ()):
        self.value, self.dtype, self.shape = E.normalize_scalar(value, dtype), dtype, tuple(shape)

    def at(self, ctx, idxs):
        return E.const(self.value, self.dtype)


class MapSym(Sym):
    """An elementwise op (ALU op, cast, bitcast or where) of same-shaped Syms."""

    def __init__(self, op: str, srcs: tuple, dtype: DType):
        shapes = {s.shape for s in srcs}
        assert len(shapes) == 1, (op, [s.shape for s in srcs])
        self.op, self.srcs, self.dtype, self.shape = op, srcs, dtype, srcs[0].shape

    def at(self, ctx, idxs):
        xs = [s.at(ctx, idxs) for s in self.srcs]
        if self.op == "cast":
            return E.cast(xs[0], self.dtype)
        if self.op == "bitcast":
            return E.bitcast(xs[0], self.dtype)
        if self.op == "where":
            return E.where(*xs)
        return E.unary(self.op, xs[0]) if len(xs) == 1 else E.binary(self.op, *xs)


class FnSym(Sym):
    """Elements given by a function of the index (iota, gathers, windows)."""

    def __init__(self, shape, dtype: DType, fn: Callable[["KernelBuilder", Index], E.Expr]):
        self.shape, self.dtype, self.fn = tuple(shape), dtype, fn

    def at(self, ctx, idxs):
        return self.fn(ctx, idxs)


class ViewSym(Sym):
    """A movement op over a computed (non-buffer) Sym: index arithmetic on its grid."""

    def __init__(self, base: Sym, st: ShapeTracker):
        self.base, self.st, self.dtype, self.shape = base, st, base.dtype, st.shape

    def at(self, ctx, idxs):
        index, valid = self.st.index(idxs)
        inner = self.base.at(ctx, unflatten(index, self.base.shape))
        return E.where(valid, inner, E.const(0, self.dtype))


class ReduceSym(Sym):
    """A reduction over `axes`: the value of a kernel's accumulator."""

    def __init__(self, src: Sym, op: str, axes: tuple[int, ...]):
        self.src, self.op, self.axes, self.dtype = src, op, axes, src.dtype
        self.shape = tuple(n for i, n in enumerate(src.shape) if i not in axes)
        self.reduce_shape = tuple(src.shape[i] for i in axes)

    def at(self, ctx, idxs):
        return ctx.reduce_at(self, tuple(idxs))

    def body_index(self, g: Index, r: Index) -> list[E.Expr]:
        gi, ri = iter(g), iter(r)
        return [next(ri) if i in self.axes else next(gi) for i in range(len(self.src.shape))]


def _move(s: Sym, op: str, arg: Any) -> Sym:
    if op == "reshape" and arg == s.shape or op == "expand" and arg == s.shape:
        return s
    if op == "permute" and arg == tuple(range(s.ndim)):
        return s
    if isinstance(s, BufSym):
        return BufSym(s.buf, getattr(s.st, op)(arg), s.dtype)
    if isinstance(s, ConstSym) and op != "pad":
        probe = getattr(ShapeTracker.from_shape(s.shape), op)(arg)
        return ConstSym(s.value, s.dtype, probe.shape)
    if isinstance(s, ViewSym):
        return ViewSym(s.base, getattr(s.st, op)(arg))
    return ViewSym(s, getattr(ShapeTracker.from_shape(s.shape), op)(arg))


# ---------------------------------------------------------------- elementwise helpers
def alu(op: str, *srcs: Sym) -> Sym:
    """Elementwise ALU op; the result dtype is the operands' (bool for comparisons)."""
    dt = dtypes.bool_ if op in E.COMPARISONS or op == "is_finite" else srcs[0].dtype
    if all(isinstance(s, ConstSym) for s in srcs) and dt.kind in "iub":
        ctx = KernelBuilder(None)
        e = MapSym(op, srcs, dt).at(ctx, ())
        if e.is_const:
            return ConstSym(e.arg, dt, srcs[0].shape)
    return MapSym(op, tuple(srcs), dt)


def where(c: Sym, a: Sym, b: Sym) -> Sym:
    if isinstance(c, ConstSym):
        return a if c.value else b
    return MapSym("where", (c, a, b), a.dtype)


def const_like(s: Sym, value: Any, dtype: DType | None = None) -> ConstSym:
    return ConstSym(value, dtype or s.dtype, s.shape)


def iota(dtype: DType, shape: Sequence[int], dimension: int) -> Sym:
    return FnSym(shape, dtype, lambda ctx, idxs: E.cast(idxs[dimension], dtype))


# ---------------------------------------------------------------- kernels
class KernelBuilder:
    """Collects input buffers (by slot) and the one reduction a kernel may hold."""

    def __init__(self, realize_fn: Callable[[Sym], "BufSym"] | None, g: Index = ()):
        self.realize_fn = realize_fn
        self.buffers: list[Any] = []
        self._slots: dict[int, int] = {}
        self.g = tuple(g)
        self.reduce: ReduceSym | None = None
        self.allow_reduce = True

    def slot(self, buf: Any) -> int:
        k = id(buf)
        if k not in self._slots:
            self._slots[k] = len(self.buffers)
            self.buffers.append(buf)
        return self._slots[k]

    def reduce_at(self, rs: ReduceSym, idxs: tuple) -> E.Expr:
        if self.allow_reduce and idxs == self.g and self.reduce in (None, rs):
            self.reduce = rs
            return E.acc(rs.dtype)
        if self.realize_fn is None:
            raise ValueError("reduction cannot be evaluated here")
        return self.realize_fn(rs).at(self, idxs)


def build_kernel(sym: Sym, realize_fn: Callable[[Sym], BufSym], name: str = "kernel") -> tuple[Kernel, list]:
    """The Kernel computing `sym` (contiguous), and its input buffers by slot."""
    g = gidx(sym.shape)
    ctx = KernelBuilder(realize_fn, g)
    value = sym.at(ctx, g)
    rs = ctx.reduce
    if rs is None:
        k = Kernel(sym.shape, value, sym.dtype, tuple(b.dtype for b in ctx.buffers), name=name)
        return k, ctx.buffers
    ctx.allow_reduce = False
    r = ridx(rs.reduce_shape)
    body = rs.src.at(ctx, rs.body_index(g, r))
    if prod(rs.reduce_shape) == 0:  # empty reduction: the identity, no loop
        value = E.substitute(value, {id(E.acc(rs.dtype)): identity(rs.op, rs.dtype)})
        return Kernel(sym.shape, value, sym.dtype, tuple(b.dtype for b in ctx.buffers), name=name), ctx.buffers
    epilogue = None if value is E.acc(rs.dtype) else value
    k = Kernel(sym.shape, body, sym.dtype, tuple(b.dtype for b in ctx.buffers),
               reduce_shape=rs.reduce_shape, reduce_op=rs.op, epilogue=epilogue, name=name)
    return k, ctx.buffers
