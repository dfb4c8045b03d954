"""SIMD128 code for one vectorized loop: 4 lanes of f32/i32 per v128.

A kernel's vector index `v` (the innermost output index for elementwise kernels
and for reductions vectorized across outputs, the innermost reduction index for
reductions vectorized along the reduction) runs in steps of 4*U. Nodes that do
not depend on `v` are scalars computed by the scalar emitter outside (splatted on
use); nodes that do are emitted here: natively when the op and dtype have a
SIMD instruction (tables below), else lane by lane with scalar code and packed
(`replace_lane`), which is how gathers, masked loads, integer division and
transcendental functions work. Vector booleans are lane masks (0 / all ones).
Contiguous loads (index affine in `v` with coefficient 1, validity independent of
`v`) are single `v128.load`s.
"""
from __future__ import annotations

import struct

from ...compiler import expr as E
from .assembler import Func
from .scalar import Emitter
from .types import vt

F32N, I32N, U32N = "float32", "int32", "uint32"
WORD = (F32N, I32N, U32N)
NARROW_SIGNED = ("int8", "int16")
NARROW_UNSIGNED = ("uint8", "uint16")

# (op, class) -> instruction; class is "f" (float32), "i" (int32), "u" (uint32), "b" (mask)
NATIVE = {
    ("add", "f"): "f32x4.add", ("sub", "f"): "f32x4.sub", ("mul", "f"): "f32x4.mul",
    ("div", "f"): "f32x4.div", ("max", "f"): "f32x4.max", ("min", "f"): "f32x4.min",
    ("add", "i"): "i32x4.add", ("sub", "i"): "i32x4.sub", ("mul", "i"): "i32x4.mul",
    ("add", "u"): "i32x4.add", ("sub", "u"): "i32x4.sub", ("mul", "u"): "i32x4.mul",
    ("max", "i"): "i32x4.max_s", ("min", "i"): "i32x4.min_s",
    ("max", "u"): "i32x4.max_u", ("min", "u"): "i32x4.min_u",
    ("and", "i"): "v128.and", ("or", "i"): "v128.or", ("xor", "i"): "v128.xor",
    ("and", "u"): "v128.and", ("or", "u"): "v128.or", ("xor", "u"): "v128.xor",
    ("and", "b"): "v128.and", ("or", "b"): "v128.or", ("xor", "b"): "v128.xor",
    ("max", "b"): "v128.or", ("min", "b"): "v128.and",
    ("lt", "f"): "f32x4.lt", ("le", "f"): "f32x4.le", ("gt", "f"): "f32x4.gt",
    ("ge", "f"): "f32x4.ge", ("eq", "f"): "f32x4.eq", ("ne", "f"): "f32x4.ne",
    ("lt", "i"): "i32x4.lt_s", ("le", "i"): "i32x4.le_s", ("gt", "i"): "i32x4.gt_s",
    ("ge", "i"): "i32x4.ge_s", ("eq", "i"): "i32x4.eq", ("ne", "i"): "i32x4.ne",
    ("lt", "u"): "i32x4.lt_u", ("le", "u"): "i32x4.le_u", ("gt", "u"): "i32x4.gt_u",
    ("ge", "u"): "i32x4.ge_u", ("eq", "u"): "i32x4.eq", ("ne", "u"): "i32x4.ne",
    ("eq", "b"): "i32x4.eq", ("ne", "b"): "i32x4.ne",
    ("neg", "f"): "f32x4.neg", ("abs", "f"): "f32x4.abs", ("sqrt", "f"): "f32x4.sqrt",
    ("floor", "f"): "f32x4.floor", ("ceil", "f"): "f32x4.ceil", ("round_even", "f"): "f32x4.nearest",
    ("neg", "i"): "i32x4.neg", ("neg", "u"): "i32x4.neg", ("abs", "i"): "i32x4.abs",
    ("not", "i"): "v128.not", ("not", "u"): "v128.not", ("not", "b"): "v128.not",
}

SHIFTS = {"shl": "i32x4.shl", "shr_arith": "i32x4.shr_s", "shr_logical": "i32x4.shr_u"}
SPLAT = {"i32": "i32x4.splat", "f32": "f32x4.splat"}
EXTRACT = {"i32": "i32x4.extract_lane", "f32": "f32x4.extract_lane"}
REPLACE = {"i32": "i32x4.replace_lane", "f32": "f32x4.replace_lane"}


def vclass(dt) -> str | None:
    """The vector class of a dtype, or None if it has no native lanes here."""
    return {"float32": "f", "int32": "i", "uint32": "u", "bool": "b"}.get(dt.name)


def lane_ok(dt) -> bool:
    """Whether values of dt fit 32-bit lanes (natively or packed from scalar code)."""
    return vt(dt) in ("i32", "f32")


def depends(root_nodes, targets: set) -> set:
    """ids of nodes (under root_nodes) that depend on any node id in `targets`."""
    dep: set = set()
    seen: set = set()
    for root in root_nodes:
        for n in E.walk(root, seen):
            if id(n) in targets or any(id(s) in dep for s in n.src):
                dep.add(id(n))
    return dep


def coef(e: E.Expr, v: E.Expr, vdep: set) -> int | None:
    """d(e)/d(v) if e is affine in v with a constant coefficient, else None."""
    if e is v:
        return 1
    if id(e) not in vdep:
        return 0
    if e.op in ("add", "sub"):
        a, b = coef(e.src[0], v, vdep), coef(e.src[1], v, vdep)
        if a is None or b is None:
            return None
        return a + b if e.op == "add" else a - b
    if e.op == "mul":
        a, b = e.src
        if b.is_const:
            ca = coef(a, v, vdep)
            return None if ca is None else ca * b.arg
        if a.is_const:
            cb = coef(b, v, vdep)
            return None if cb is None else cb * a.arg
    return None


class VecEmitter:
    """Emits v128 values of v-dependent nodes at lane offset 4*u from `v`."""

    def __init__(self, em: Emitter, v: E.Expr, vdep: set, vidx_dep: set, acc: E.Expr | None = None,
                 w: E.Expr | None = None, wdep: set = frozenset()):
        self.em, self.f = em, em.f
        self.v, self.vdep, self.vidx_dep = v, vdep, vidx_dep
        self.acc = acc
        self.acc_vec: dict[tuple, int] = {}  # (u, rho) -> v128 local holding accumulator lanes
        self.memo: dict[tuple, int] = {}
        # row blocking: nodes depending on the row index `w` are evaluated at w + rho
        self.w, self.wdep, self.rho = w, wdep, 0

    def reset(self) -> None:
        self.memo.clear()

    # ------------------------------------------------------------ entry
    def push(self, n: E.Expr, u: int) -> None:
        f = self.f
        if id(n) not in self.vdep:
            self._splat_scalar(n)
            return
        if self.acc is not None and n is self.acc:
            f.get(self.acc_vec[(u, self.rho)])
            return
        key = self._key(n, u)
        if key not in self.memo:
            for m in self._pending(n, u):  # deepest first, so no recursion goes deeper than one node
                self._compute(m, u)
                loc = f.local("v128")
                f.set(loc)
                self.memo[self._key(m, u)] = loc
        f.get(self.memo[key])

    def _key(self, n: E.Expr, u: int) -> tuple:
        return (id(n), u, self.rho if id(n) in self.wdep else 0)

    def _pending(self, root: E.Expr, u: int) -> list:
        """The vector nodes under `root` (root included) not computed yet, sources first."""
        order, seen, stack = [], set(), [(root, False)]
        while stack:
            n, done = stack.pop()
            if done:
                order.append(n)
                continue
            if id(n) in seen or id(n) not in self.vdep or n is self.acc or self._key(n, u) in self.memo:
                continue
            seen.add(id(n))
            stack.append((n, True))
            if n is root or lane_ok(n.dtype):  # wider values are only ever computed lane by lane
                stack.extend((s, False) for s in n.src if lane_ok(s.dtype))
        return order

    def _splat_scalar(self, n: E.Expr) -> None:
        f = self.f
        if self.w is not None and id(n) in self.wdep:
            key = (id(n), "splat", self.rho)
            if key not in self.memo:
                loc = self._lane_scalar(n, 0, 0)
                if n.dtype.kind == "b":
                    f.i32(0).get(loc).emit("i32.sub").set(loc)
                f.get(loc).emit(SPLAT[vt(n.dtype)])
                self.memo[key] = f.local("v128")
                f.set(self.memo[key])
            f.get(self.memo[key])
            return
        if n.op == "const":  # a v128.const: one constant-pool operand, no splat in the loop
            f.v128_const(_lanes_const(n))
            return
        self.em.push(n)
        if n.dtype.kind == "b":  # 0/1 -> lane mask 0 - b
            loc = f.local("i32")
            f.set(loc)
            f.i32(0).get(loc).emit("i32.sub")
        f.emit(SPLAT[vt(n.dtype)])

    # ------------------------------------------------------------ nodes
    def _compute(self, n: E.Expr, u: int) -> None:
        op, cls = n.op, vclass(n.dtype)
        f = self.f
        if op == "idx":  # v itself: splat(v + 4u) + [0, 1, 2, 3]
            self.em.push(n)
            if u:
                f.i32(4 * u).emit("i32.add")
            f.emit("i32x4.splat").v128_const(struct.pack("<4i", 0, 1, 2, 3)).emit("i32x4.add")
            return
        if op == "load" and self._contiguous(n):
            return self._vload(n, u)
        if op == "where" and lane_ok(n.dtype) and self._vec_srcs(n):
            c, a, b = n.src
            self.push(a, u)
            self.push(b, u)
            self.push(c, u)
            f.emit("v128.bitselect")
            return
        if op == "cast" and self._vec_srcs(n) and self._cast(n, u):
            return
        if op == "bitcast" and lane_ok(n.dtype) and lane_ok(n.src[0].dtype) and n.dtype.itemsize == 4 \
                and self._vec_srcs(n):
            self.push(n.src[0], u)
            return
        if op in SHIFTS and cls in ("i", "u") and n.src[1].is_const and 0 <= n.src[1].arg < 32:
            self.push(n.src[0], u)
            f.i32(n.src[1].arg).emit(SHIFTS[op])
            return
        if op in ("max", "min") and cls == "f" and self._clamp(n, u):
            return
        if cls is not None or op in E.COMPARISONS:
            scls = vclass(n.src[0].dtype) if n.src else None
            key_cls = scls if op in E.COMPARISONS else cls
            ins = NATIVE.get((op, key_cls))
            if ins is not None and self._vec_srcs(n):
                for s in n.src:
                    self.push(s, u)
                f.emit(ins)
                return
        self._lanewise(n, u)

    def _clamp(self, n: E.Expr, u: int) -> bool:
        """max/min against a nonzero, non-NaN constant: `pmax(x, c)` / `pmin(x, c)` give the
        same result (NaN x stays NaN; no signed-zero tie) in one instruction on x86,
        where f32x4.max/min need a NaN-fixing sequence."""
        a, b = n.src
        if a.is_const:
            a, b = b, a
        if not b.is_const or b.arg != b.arg or b.arg == 0.0 or not self._vec_srcs(n):
            return False
        self.push(a, u)
        self.push(b, u)
        self.f.emit("f32x4.pmax" if n.op == "max" else "f32x4.pmin")
        return True

    def _vec_srcs(self, n: E.Expr) -> bool:
        """All sources have 32-bit lanes with the meaning native ops expect."""
        return all(lane_ok(s.dtype) and s.dtype.name not in NARROW_SIGNED + NARROW_UNSIGNED for s in n.src)

    def _contiguous(self, n: E.Expr) -> bool:
        if n.dtype.name not in WORD or vt(n.src[0].dtype) != "i32":
            return False
        valid = n.src[1] if len(n.src) > 1 else None
        if valid is not None and id(valid) in self.vidx_dep:
            return False
        return coef(n.src[0], self.v, self.vidx_dep) == 1

    def _vload(self, n: E.Expr, u: int) -> None:
        f = self.f
        index = self._lane_scalar(n.src[0], u, 0)
        valid = n.src[1] if len(n.src) > 1 else None
        f.get(self.em.in_base + n.arg).get(index)
        if valid is not None:
            f.i32(0)
            self.em.push(valid)
            f.emit("select")
        f.i32(2).emit("i32.shl").emit("i32.add").mem("v128.load", align=2)
        if valid is not None:
            f.v128_const(bytes(16))
            self.em.push(valid)
            f.emit("select")

    def _cast(self, n: E.Expr, u: int) -> bool:
        src, dst = n.src[0].dtype, n.dtype
        s, d = src.name, dst.name
        f = self.f
        if s in NARROW_SIGNED + NARROW_UNSIGNED and d == F32N:
            self.push(n.src[0], u)
            f.emit("f32x4.convert_i32x4_s")
            return True
        table = {
            (F32N, I32N): ("i32x4.trunc_sat_f32x4_s",), (F32N, U32N): ("i32x4.trunc_sat_f32x4_u",),
            (I32N, F32N): ("f32x4.convert_i32x4_s",), (U32N, F32N): ("f32x4.convert_i32x4_u",),
            (I32N, U32N): (), (U32N, I32N): (),
        }
        if (s, d) in table:
            self.push(n.src[0], u)
            for ins in table[(s, d)]:
                f.emit(ins)
            return True
        if s == "bool" and d in WORD:  # mask & bits of 1 (1.0f or 1)
            self.push(n.src[0], u)
            one = 0x3F800000 if d == F32N else 1
            f.v128_const(struct.pack("<4I", *(one,) * 4)).emit("v128.and")
            return True
        if d == "bool" and s in WORD:
            self.push(n.src[0], u)
            f.v128_const(bytes(16)).emit("f32x4.ne" if s == F32N else "i32x4.ne")
            return True
        return False

    # ------------------------------------------------------------ lane by lane
    def _lanewise(self, n: E.Expr, u: int) -> None:
        """Scalar code per lane, packed. Only for nodes with 32-bit lanes."""
        f = self.f
        t = vt(n.dtype)
        if t not in ("i32", "f32"):
            raise NotImplementedError(f"no vector lanes for {n.dtype.name}")
        locs = [self._lane_scalar(n, u, lane) for lane in range(4)]
        f.get(locs[0]).emit(SPLAT[t])
        for lane in (1, 2, 3):
            f.get(locs[lane]).lane(REPLACE[t], lane)
        if n.dtype.kind == "b":  # 0/1 lanes -> masks
            loc = f.local("v128")
            f.set(loc)
            f.v128_const(bytes(16)).get(loc).emit("i32x4.sub")

    def _lane_scalar(self, n: E.Expr, u: int, lane: int) -> int:
        """Evaluate n's v- (and w-) dependent subtree with scalar code at v + 4u + lane
        (and w + rho); returns a local."""
        f, base = self.f, self.em
        sub = Emitter(f, base.in_base)
        sub.local_of = dict(base.local_of)
        for var, off in ((self.v, 4 * u + lane), (self.w, self.rho)):
            if var is None:
                continue
            loc = f.local("i32")
            base.push(var)
            if off:
                f.i32(off).emit("i32.add")
            f.set(loc)
            sub.local_of[id(var)] = loc
        if self.acc is not None and self.acc_vec:
            aloc = f.local(vt(self.acc.dtype))
            f.get(self.acc_vec[(u, self.rho)]).lane(EXTRACT[vt(self.acc.dtype)], lane)
            if self.acc.dtype.kind == "b":
                f.i32(1).emit("i32.and")
            f.set(aloc)
            sub.local_of[id(self.acc)] = aloc
        rowwise = self.w is not None
        for m in E.walk(n):
            if m.op == "const" or m is self.v or m is self.acc or (rowwise and m is self.w):
                continue
            fresh = id(m) in self.vdep or (rowwise and id(m) in self.wdep)
            if not fresh and id(m) in base.local_of:
                continue  # computed outside the vector loop
            loc = f.local(vt(m.dtype))
            sub.compute(m)
            f.set(loc)
            sub.local_of[id(m)] = loc
        if n.op == "const":
            loc = f.local(vt(n.dtype))
            sub.push(n)
            f.set(loc)
            return loc
        return sub.local_of[id(n)]


def _lanes_const(n: E.Expr) -> bytes:
    """The 16 bytes of a splatted 32-bit constant (bool -> lane mask)."""
    if n.dtype.kind == "b":
        return struct.pack("<4i", *(-1 if n.arg else 0,) * 4)
    if n.dtype.kind == "f":
        import math
        v = n.arg
        if not (math.isnan(v) or math.isinf(v)) and abs(v) > 3.4028234663852886e38:
            v = math.copysign(math.inf, v)
        return struct.pack("<4f", *(v,) * 4)
    return struct.pack("<4I", *((n.arg & 0xFFFFFFFF),) * 4)


def hreduce(f: Func, op: str, dt, vec_local: int, acc_local: int) -> None:
    """acc = op(acc, lane0, lane1, lane2, lane3) in scalar code (f32/i32/u32/bool)."""
    t = vt(dt)
    for lane in range(4):
        f.get(vec_local).lane(EXTRACT[t], lane)
        if dt.kind == "b":
            f.i32(1).emit("i32.and")
        _combine_scalar(f, op, dt, acc_local)


def _combine_scalar(f: Func, op: str, dt, acc_local: int) -> None:
    t = vt(dt)
    x = f.local(t)
    f.set(x)
    if dt.kind == "b":
        f.get(acc_local).get(x).emit("i32.or" if op in ("add", "max") else "i32.and").set(acc_local)
        return
    if op in ("add", "mul"):
        f.get(acc_local).get(x).emit(f"{t}.{op}").set(acc_local)
    elif dt.kind == "f":
        f.get(acc_local).get(x).emit(f"f32.{op}").set(acc_local)
    else:
        sfx = "_s" if dt.kind == "i" else "_u"
        f.get(acc_local).get(x).get(acc_local).get(x)
        f.emit(f"i32.{'gt' if op == 'max' else 'lt'}{sfx}").emit("select").set(acc_local)


VCOMBINE = {
    ("add", "f"): "f32x4.add", ("mul", "f"): "f32x4.mul", ("max", "f"): "f32x4.max", ("min", "f"): "f32x4.min",
    ("add", "i"): "i32x4.add", ("mul", "i"): "i32x4.mul", ("max", "i"): "i32x4.max_s", ("min", "i"): "i32x4.min_s",
    ("add", "u"): "i32x4.add", ("mul", "u"): "i32x4.mul", ("max", "u"): "i32x4.max_u", ("min", "u"): "i32x4.min_u",
}
