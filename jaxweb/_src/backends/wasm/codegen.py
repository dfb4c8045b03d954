"""Kernel IR -> one Wasm module exporting `run(start, end, out, in0, in1, ...)`.

The loop nest walks the output grid row-major (g0 outermost, over [start, end)
so a threaded runtime can split it), then the reduction indices. Every IR node is
computed once, at the shallowest loop level where all its inputs exist (loop-
invariant code motion by index dependence), into a local; Cranelift/V8 turn the
locals into registers. Transcendental ops are first expanded into primitive ops
by `mathlib`, so the emitter only knows primitives. When the innermost loop is a
vectorizable elementwise or reduction loop, `simd.py` emits an f32x4/i32x4 main
loop and this scalar code handles the remainder.
"""
from __future__ import annotations

from ...compiler import expr as E
from ...compiler.kernel import Kernel, identity
from .assembler import Func, Module
from ...compiler import mathlib
from . import numerics as N, vectorize as S
from .scalar import Emitter
from .types import STORE, vt

POST = 1 << 20  # level of epilogue nodes that need the finished accumulator


class Plan:
    """The kernel's expressions after expansion, with each node's loop level."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.gshape = tuple(kernel.shape) or (1,)
        self.rshape = tuple(kernel.reduce_shape) if kernel.reduce_op else ()
        self.body = mathlib.expand(kernel.body)
        epi = kernel.epilogue if kernel.reduce_op else None
        self.epilogue = mathlib.expand(epi) if epi is not None else None
        G = len(self.gshape)
        self.level: dict[int, int] = {}
        self.order: list[E.Expr] = []
        seen: set = set()
        roots = [self.body] + ([self.epilogue] if self.epilogue is not None else [])
        if kernel.reduce_op:
            self.acc = E.acc(self.body.dtype)
            self.combined = E.binary(kernel.reduce_op, self.acc, self.body)
            roots.append(self.combined)
        for root in roots:
            for n in E.walk(root, seen):
                self.order.append(n)
                self.level[id(n)] = self._level(n, G)

    def _level(self, n: E.Expr, G: int) -> int:
        if n.op == "const":
            return 0
        if n.op == "idx":
            name = n.arg[0]
            k = int(name[1:])
            return 1 + k if name[0] == "g" else G + 1 + k
        if n.op == "acc":
            return POST
        return max((self.level[id(s)] for s in n.src), default=0)

    def nodes_at(self, lvl: int) -> list[E.Expr]:
        return [n for n in self.order if self.level[id(n)] == lvl and n.op not in ("const", "idx", "acc")]


def build(kernel: Kernel, features: frozenset = frozenset()) -> bytes:
    """Wasm bytes for `kernel`; `features` may hold "simd" and "relaxed_simd"."""
    return Builder(kernel, features).build()


def build_info(kernel: Kernel, features: frozenset = frozenset()) -> tuple[bytes, str | None]:
    """(Wasm bytes, vectorization mode or None)."""
    b = Builder(kernel, features)
    return b.build(), b.mode


class Builder:
    """Emits the loop nest. Scalar code everywhere; one loop may be vectorized (`mode`):
    "elementwise" (innermost output index), "inner" (innermost reduction index) or
    "outer" (innermost output index of a reduction, reduction loops inside: the
    matmul shape, U=4 vectors = 16 outputs per block)."""

    def __init__(self, kernel: Kernel, features: frozenset):
        self.kernel, self.features = kernel, features
        self.plan = plan = Plan(kernel)
        self.f = f = Func(["i32"] * (3 + len(kernel.in_dtypes)))
        self.em = Emitter(f)
        self.G, self.R = len(plan.gshape), len(plan.rshape)
        self.loops = {f"g{i}": f.local("i32") for i in range(self.G)}
        self.loops.update({f"r{j}": f.local("i32") for j in range(self.R)})
        self.idx_nodes = {}
        for n in plan.order:
            if n.op == "idx":
                self.em.local_of[id(n)] = self.loops[n.arg[0]]
                self.idx_nodes[n.arg[0]] = n
        self.mode = S.choose_mode(self) if "simd" in features else None

    # ------------------------------------------------------------ pieces
    def compute_level(self, lvl: int, skip: set | None = None) -> None:
        f, em, plan = self.f, self.em, self.plan
        for n in plan.nodes_at(lvl):
            if plan.kernel.reduce_op and n is plan.combined:
                continue
            if skip is not None and id(n) in skip:
                continue
            loc = f.local(vt(n.dtype))
            em.compute(n)
            f.set(loc)
            em.local_of[id(n)] = loc

    def bounds(self, i: int):
        """(lo, hi) emitters of g loop i."""
        f = self.f
        if i == 0:
            return (lambda: f.get(0)), (lambda: f.get(1))
        return (lambda: f.i32(0)), _const_emit(f, self.plan.gshape[i])

    def build(self) -> bytes:
        f, plan, kernel = self.f, self.plan, self.kernel
        out_dt = kernel.out_dtype
        self.optr = f.local("i32")
        inner = 1
        for d in plan.gshape[1:]:
            inner *= d
        f.get(2).get(0).i32(inner * out_dt.itemsize).emit("i32.mul").emit("i32.add").set(self.optr)
        self.compute_level(0)
        self.g_loop(0)
        return _module(f, shared="threads" in self.features)

    def g_loop(self, i: int) -> None:
        """The loop over g_i and everything inside it."""
        f = self.f
        var = self.loops[f"g{i}"]
        lo, hi = self.bounds(i)
        lo()
        f.set(var)
        if (i == self.G - 2 and self.mode == "outer" and self.plan.gshape[-2] >= S.ROW_BLOCK[0]
                and f"g{i}" in self.idx_nodes):
            S.row_block_loops(self, var, hi)
        if i == self.G - 1:
            if self.mode in ("elementwise", "outer"):
                S.vector_g_loops(self, var, hi)
            self.reset_optr()
        _loop_rest(f, var, hi, lambda: self.g_body(i))

    def emit_lin_prefix(self) -> None:
        """Push the row-major linear index of (g0 .. g_{G-2}) (0 when G == 1)."""
        f = self.f
        f.i32(0)
        stride = 1
        for i in reversed(range(self.G - 1)):
            f.get(self.loops[f"g{i}"]).i32(stride).emit("i32.mul").emit("i32.add")
            stride *= self.plan.gshape[i]

    def emit_out_addr(self) -> None:
        """Push out + (linear index of the current (g0 .. g_{G-1})) * itemsize."""
        f = self.f
        self.emit_lin_prefix()
        f.i32(self.plan.gshape[-1]).emit("i32.mul").get(self.loops[f"g{self.G - 1}"]).emit("i32.add")
        f.i32(self.kernel.out_dtype.itemsize).emit("i32.mul").get(2).emit("i32.add")

    def reset_optr(self) -> None:
        self.emit_out_addr()
        self.f.set(self.optr)

    def g_body(self, i: int) -> None:
        self.compute_level(1 + i)
        if i + 1 < self.G:
            self.g_loop(i + 1)
        else:
            self.point()

    def point(self) -> None:
        """One output element: reduce (if any), epilogue, store."""
        f, em, plan, kernel = self.f, self.em, self.plan, self.kernel
        if kernel.reduce_op:
            self.acc_loc = acc_loc = f.local(vt(plan.acc.dtype))
            em.local_of[id(plan.acc)] = acc_loc
            em.push(identity(kernel.reduce_op, plan.acc.dtype))
            f.set(acc_loc)
            if self.R:
                self.r_loop(0)
            else:
                self.combine()
            self.compute_level(POST)
            value = plan.epilogue if plan.epilogue is not None else plan.acc
        else:
            value = plan.body
        out_dt = kernel.out_dtype
        f.get(self.optr)
        _value(em, value)
        em.to_storage(out_dt)
        f.mem(STORE[out_dt.name])
        f.get(self.optr).i32(out_dt.itemsize).emit("i32.add").set(self.optr)

    def r_loop(self, j: int) -> None:
        f = self.f
        var = self.loops[f"r{j}"]
        hi = _const_emit(f, self.plan.rshape[j])
        f.i32(0).set(var)
        if j == self.R - 1 and self.mode == "inner":
            S.vector_r_loops(self, var, hi)
        _loop_rest(f, var, hi, lambda: self.r_body(j))

    def r_body(self, j: int) -> None:
        self.compute_level(self.G + 1 + j)
        if j + 1 < self.R:
            self.r_loop(j + 1)
        else:
            self.combine()

    def combine(self) -> None:
        plan = self.plan
        if plan.combined is not plan.acc:
            _value(self.em, plan.combined)
            self.f.set(self.acc_loc)


def _loop_rest(f: Func, var: int, hi, body) -> None:
    """while var < hi: body; var += 1 (var already initialized)."""
    f.block()
    f.get(var)
    hi()
    f.emit("i32.ge_s").br_if(0)
    f.loop()
    body()
    f.get(var).i32(1).emit("i32.add").tee(var)
    hi()
    f.emit("i32.lt_s").br_if(0)
    f.end()
    f.end()


def _module(run: Func, shared: bool = False) -> bytes:
    m = Module(memory_pages=1, shared=shared, max_pages=65536 if shared else None)
    m.add(run, export="run")
    for name, (index, make) in sorted(N.HELPERS.items(), key=lambda kv: kv[1][0]):
        assert m.add(make()) == index
    return m.encode()


def _value(em: Emitter, n: E.Expr) -> None:
    if n.op == "const" or id(n) in em.local_of:
        em.push(n)
    else:
        em.compute(n)


def _const_emit(f: Func, v: int):
    return lambda: f.i32(v)


