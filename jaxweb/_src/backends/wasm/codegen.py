"""Kernel IR -> one Wasm module exporting `run(start, end, out0, .., in0, in1, ...)`.

The loop nest walks the output grid row-major (g0 outermost, over [start, end)
so a threaded runtime can split it), then the reduction indices. Every IR node is
computed once, at the shallowest loop level where all its inputs exist (loop-
invariant code motion by index dependence), into a local; Cranelift/V8 turn the
locals into registers. A nested `reduce` node is computed where its free indices
put it, by a loop of its own over its body's nodes that depend on its indices (a
softmax's row sum runs once per row, before the row's elements). Every output is
stored at each point of the nest. Transcendental ops are first expanded into
primitive ops by `mathlib`, so the emitter only knows primitives. When the
innermost loop is a vectorizable elementwise or reduction loop, `simd.py` emits
an f32x4/i32x4 main loop and this scalar code handles the remainder.
"""
from __future__ import annotations

from ...compiler import expr as E, mathlib
from ...compiler.kernel import Kernel, identity
from ...compiler.expr import INT32_MAX
from ...errors import JaxRuntimeError
from .assembler import Func, Module
from . import numerics as N, vectorize as S
from .scalar import Emitter
from .types import STORE, vt

POST = 1 << 20  # level of epilogue nodes that need the finished accumulator


class Plan:
    """The kernel's expressions after expansion, with each node's loop level, and the
    nodes each nested reduction computes per step of its own loop (its region)."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.gshape = tuple(kernel.shape) or (1,)
        self.rshape = tuple(kernel.reduce_shape) if kernel.reduce_op else ()
        roots = list(kernel.outs) + ([kernel.body] if kernel.reduce_op else [])
        expanded = mathlib.expand_all(roots)
        self.values = expanded[:len(kernel.outs)]
        self.body = expanded[-1] if kernel.reduce_op else None
        G = len(self.gshape)
        names = {f"g{i}": 1 + i for i in range(G)}
        names.update({f"r{j}": G + 1 + j for j in range(len(self.rshape))})
        roots = list(self.values) + ([self.body] if self.body is not None else [])
        if kernel.reduce_op:
            self.acc = E.acc(self.body.dtype)
            self.combined = E.binary(kernel.reduce_op, self.acc, self.body)
            roots.append(self.combined)
        self.level: dict[int, int] = {}
        self.region: dict[int, E.Expr] = {}   # node id -> the nested reduce whose loop computes it
        free: dict[int, frozenset] = {}
        self.order = list(E.walk_all(roots))
        _check_loop_extents(kernel, self.order)
        owner = {name: n for n in self.order if n.op == "reduce" for name, _ in n.arg[1]}
        names["acc"] = POST  # the top-level accumulator: available after its loop
        for n in self.order:
            if n.op == "idx":
                free[id(n)] = frozenset((n.arg[0],))
            elif n.op == "acc":
                free[id(n)] = frozenset(("acc",))
            elif n.op == "reduce":
                free[id(n)] = free[id(n.src[0])] - {name for name, _ in n.arg[1]}
            else:
                acc = frozenset()
                for src in n.src:
                    acc = acc | free[id(src)]
                free[id(n)] = acc
            inner = [owner[x] for x in free[id(n)] if x in owner]
            if inner:
                self.region[id(n)] = inner[0]
                continue
            self.level[id(n)] = max((names[x] for x in free[id(n)] if x in names), default=0)
        self.nested = any(n.op == "reduce" for n in self.order)

    def nodes_at(self, lvl: int) -> list[E.Expr]:
        return [n for n in self.order if self.level.get(id(n)) == lvl and n.op not in ("const", "idx", "acc")]

    def region_nodes(self, r: E.Expr) -> list[E.Expr]:
        return [n for n in self.order if self.region.get(id(n)) is r and n.op not in ("const", "idx")]


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
        self.n_out = len(kernel.outs)
        self.f = f = Func(["i32"] * (2 + self.n_out + len(kernel.in_dtypes)))
        self.em = Emitter(f, in_base=2 + self.n_out)
        self.G, self.R = len(plan.gshape), len(plan.rshape)
        self.loops = {f"g{i}": f.local("i32") for i in range(self.G)}
        self.loops.update({f"r{j}": f.local("i32") for j in range(self.R)})
        self.idx_nodes = {}
        for n in plan.order:
            if n.op == "idx" and n.arg[0] in self.loops:
                self.em.local_of[id(n)] = self.loops[n.arg[0]]
                self.idx_nodes[n.arg[0]] = n
        self.mode = S.choose_mode(self) if "simd" in features else None

    # ------------------------------------------------------------ pieces
    def compute_level(self, lvl: int, skip: set | None = None) -> None:
        plan = self.plan
        for n in plan.nodes_at(lvl):
            if plan.kernel.reduce_op and n is plan.combined:
                continue
            if skip is not None and id(n) in skip:
                continue
            self.compute(n)

    def compute(self, n: E.Expr) -> None:
        """Compute node `n` into a fresh local."""
        if n.op == "reduce":
            self.nested_reduce(n)
            return
        loc = self.f.local(vt(n.dtype))
        self.em.compute(n)
        self.f.set(loc)
        self.em.local_of[id(n)] = loc

    def nested_reduce(self, r: E.Expr) -> None:
        """acc = identity; for each index of r's range: acc = op(acc, body) (its region's nodes)."""
        f, em = self.f, self.em
        op, ranges = r.arg
        acc = E.acc(r.dtype, f"{id(r)}")
        loc = f.local(vt(r.dtype))
        em.push(identity(op, r.dtype))
        f.set(loc)
        em.local_of[id(acc)] = loc
        combined = E.binary(op, acc, r.src[0])
        region = self.plan.region_nodes(r)
        loops = []
        for name, extent in ranges:
            var = f.local("i32")
            em.local_of[id(E.idx(name, extent))] = var
            loops.append((var, extent))

        def body(j: int) -> None:
            if j < len(loops):
                var, extent = loops[j]
                f.i32(0).set(var)
                _loop_rest(f, var, _const_emit(f, extent), lambda: body(j + 1))
                return
            for n in region:
                self.compute(n)
            _value(em, combined)
            f.set(loc)
        body(0)
        em.local_of[id(r)] = loc

    def bounds(self, i: int):
        """(lo, hi) emitters of g loop i."""
        f = self.f
        if i == 0:
            return (lambda: f.get(0)), (lambda: f.get(1))
        return (lambda: f.i32(0)), _const_emit(f, self.plan.gshape[i])

    def build(self) -> bytes:
        f, plan, kernel = self.f, self.plan, self.kernel
        self.optrs = [f.local("i32") for _ in range(self.n_out)]
        inner = 1
        for d in plan.gshape[1:]:
            inner *= d
        for k, dt in enumerate(kernel.out_dtypes):
            f.get(2 + k).get(0).i32(inner * dt.itemsize).emit("i32.mul").emit("i32.add").set(self.optrs[k])
        self.compute_level(0)
        self.g_loop(0)
        return _module(f, shared="shared_memory" in self.features)

    @property
    def optr(self) -> int:
        return self.optrs[0]

    def g_loop(self, i: int) -> None:
        """The loop over g_i and everything inside it."""
        f = self.f
        var = self.loops[f"g{i}"]
        lo, hi = self.bounds(i)
        lo()
        f.set(var)
        if (i == self.G - 2 and self.mode == "outer" and self.plan.gshape[-2] >= S.ROW_BLOCK[0]
                and f"g{i}" in self.idx_nodes and S.row_blockable(self)):
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

    def emit_out_addr(self, k: int = 0) -> None:
        """Push out_k + (linear index of the current (g0 .. g_{G-1})) * itemsize."""
        f = self.f
        self.emit_lin_prefix()
        f.i32(self.plan.gshape[-1]).emit("i32.mul").get(self.loops[f"g{self.G - 1}"]).emit("i32.add")
        f.i32(self.kernel.out_dtypes[k].itemsize).emit("i32.mul").get(2 + k).emit("i32.add")

    def reset_optr(self) -> None:
        for k in range(self.n_out):
            self.emit_out_addr(k)
            self.f.set(self.optrs[k])

    def g_body(self, i: int) -> None:
        self.compute_level(1 + i)
        if i + 1 < self.G:
            self.g_loop(i + 1)
        else:
            self.point()

    def point(self) -> None:
        """One output element: reduce (if any), epilogues, stores."""
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
        for k, (value, dt) in enumerate(zip(plan.values, kernel.out_dtypes)):
            optr = self.optrs[k]
            f.get(optr)
            _value(em, value)
            em.to_storage(dt)
            f.mem(STORE[dt.name])
            f.get(optr).i32(dt.itemsize).emit("i32.add").set(optr)

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


def _check_loop_extents(kernel: Kernel, order: list) -> None:
    """Loop counters are i32: a loop past 2**31 - 1 steps is an error, not a silent skip. The
    graph splits long reductions, so only an output of over 2**31 - 1 elements (a 2 GiB+ array
    of bytes) gets here."""
    for n in order:
        if n.op == "idx" and n.arg[1] > INT32_MAX:
            raise JaxRuntimeError(
                f"UNIMPLEMENTED: kernel {kernel.name} loops over {n.arg[1]} elements on the wasm "
                f"device, more than its 32-bit loop counters reach (2**31 - 1); split the array")


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


