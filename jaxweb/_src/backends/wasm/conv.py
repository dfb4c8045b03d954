"""A dedicated f32 2-D convolution (stride 1, no dilation): implicit GEMM on a padded input.

conv_general_dilated lowers to one reduction kernel over output (n, co, ho, wo) and
reduced (ci, kh, kw): where(in-bounds, X[n, ci, ho + kh - p, wo + kw - p] * W[co, ci, kh, kw], 0).
The masks and clamps keep it off the vector paths, so here:

1. `pad_kernel`: the X factor (mask included) evaluated at kh = kw = 0 over the
   padded grid (Hp = Ho + KH - 1, Wp = Wo + KW - 1) is a zero-padded copy of X
   (an ordinary IR kernel). `match` checks on sample points, boundaries included,
   that the X factor depends on (ho, kh) and (wo, kw) only through ho + kh and
   wo + kw, which is what makes that copy exact.
2. `build`: the compute module tiles MR output channels x 8 output columns (MR * 2
   f32x4 accumulators, as matmul.py) and runs the reduction as a loop over ci with
   the KH * KW taps unrolled: every tap's loads are immediate offsets from two
   pointers (weights: `v128.load32_splat`; padded input: two `v128.load`s).

The outer loop [start, end) is over output channels, so threads split channels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...compiler import expr as E
from ...compiler.kernel import Kernel, gidx
from .assembler import Func, Module
from .matmul import _affine

MR = 6


@dataclass(frozen=True, eq=False)
class Spec:
    shape: tuple          # (Nb, Co, Ho, Wo)
    rshape: tuple         # (Ci, KH, KW)
    x_slot: int
    w_slot: int
    xexpr: Any            # the X factor (masked), an Expr over g0, r0, g2, r1, g3, r2
    w_off: int
    w_sco: int
    w_sci: int
    w_skh: int
    w_skw: int

    @property
    def M(self) -> int:
        return self.shape[1]

    @property
    def padded(self) -> tuple:
        nb, co, ho, wo = self.shape
        ci, kh, kw = self.rshape
        return (nb, ci, ho + kh - 1, wo + kw - 1)

    @property
    def work(self) -> int:
        n = 1
        for d in self.shape + self.rshape:
            n *= d
        return n


def _names(e: E.Expr) -> set:
    return {n.arg[0] for n in E.walk(e) if n.op == "idx"}


def match(kernel: Kernel) -> Spec | None:
    if (kernel.reduce_op != "add" or kernel.epilogue is not None or len(kernel.shape) != 4
            or len(kernel.reduce_shape) != 3 or kernel.out_dtype.name != "float32"):
        return None
    nb, co, ho, wo = kernel.shape
    ci, kh, kw = kernel.reduce_shape
    if wo % 8 or co < 4 or ci * kh * kw < 8:
        return None
    body, cond = kernel.body, None
    if body.op == "where":
        cond, body, zero = body.src
        if not (zero.op == "const" and zero.arg == 0):
            return None
    if body.op != "mul" or any(s.op != "load" or s.dtype.name != "float32" for s in body.src):
        return None
    for lw, lx in (body.src, body.src[::-1]):
        if len(lw.src) != 1:
            continue
        c = _affine(lw.src[0])
        if c is None or set(c) - {"", "g1", "r0", "r1", "r2"} or any(v < 0 for v in c.values()):
            continue
        xexpr = lx if cond is None else E.where(cond, lx, E.const(0.0, lx.dtype))
        if "g1" in _names(xexpr) or (cond is not None and "g1" in _names(cond)):
            return None
        spec = Spec(tuple(kernel.shape), tuple(kernel.reduce_shape), lx.arg, lw.arg, xexpr,
                    c.get("", 0), c.get("g1", 0), c.get("r0", 0), c.get("r1", 0), c.get("r2", 0))
        return spec if _shift_invariant(spec) else None
    return None


def _at(spec: Spec, n, c, h, kh, w, kw):
    """The X factor at one point, folded to a constant: ("zero",) or ("load", slot, index)."""
    from ... import dtypes
    ix = {nm: E.const(v, dtypes.int32) for nm, v in
          (("g0", n), ("r0", c), ("g2", h), ("r1", kh), ("g3", w), ("r2", kw))}
    mapping = {}
    for node in E.walk(spec.xexpr):
        if node.op == "idx" and node.arg[0] in ix:
            mapping[id(node)] = ix[node.arg[0]]
    v = E.substitute(spec.xexpr, mapping)
    if v.op == "const":
        return ("zero",) if v.arg == 0 else None
    if v.op == "load" and len(v.src) == 1 and v.src[0].op == "const":
        return ("load", v.arg, v.src[0].arg)
    return None


def _shift_invariant(spec: Spec) -> bool:
    nb, co, ho, wo = spec.shape
    ci, KH, KW = spec.rshape
    hs = sorted({0, 1, ho // 2, ho - 2, ho - 1} & set(range(ho)))
    ws = sorted({0, 1, 7, wo // 2, wo - 2, wo - 1} & set(range(wo)))
    for n in sorted({0, nb - 1}):
        for c in sorted({0, ci - 1}):
            for h in hs:
                for w in ws:
                    for kh in range(KH):
                        for kw in range(KW):
                            a = _at(spec, n, c, h, kh, w, kw)
                            if a is None or a != _at(spec, n, c, h + kh, 0, w + kw, 0):
                                return False
    return True


def pad_kernel(spec: Spec) -> Kernel:
    """Xpad[n, ci, hp, wp] = the X factor at (ho, kh) = (hp, 0), (wo, kw) = (wp, 0)."""
    g = gidx(spec.padded)
    zero = E.const(0, g[0].dtype)
    repl = {"g0": g[0], "r0": g[1], "g2": g[2], "r1": zero, "g3": g[3], "r2": zero}
    mapping = {id(node): repl[node.arg[0]] for node in E.walk(spec.xexpr)
               if node.op == "idx" and node.arg[0] in repl}
    body = E.substitute(spec.xexpr, mapping)
    dt = body.dtype
    n_in = max(spec.x_slot, spec.w_slot) + 1
    return Kernel(spec.padded, body, dt, (dt,) * n_in, name="conv_pad")


def build(spec: Spec, features: frozenset) -> bytes:
    """run(start, end, out, W, Xpad): output channels [start, end)."""
    nb, co, ho, wo = spec.shape
    ci, KH, KW = spec.rshape
    _, _, hp, wp = spec.padded
    f = Func(["i32"] * 5)
    fma = "relaxed_simd" in features
    L = {n: f.local("i32") for n in ("n", "i", "h", "w", "c", "pa", "pb", "po", "xbase", "obase")}
    accs = [f.local("v128") for _ in range(MR * 2)]
    bv = [f.local("v128") for _ in range(2)]
    sv = f.local("v128")

    def loop_while(cond, body):
        f.block().loop()
        cond()
        f.emit("i32.eqz").br_if(1)
        body()
        f.br(0)
        f.end().end()

    def inc(name, by):
        f.get(L[name]).i32(by).emit("i32.add").set(L[name])

    def micro(mr: int):
        # weights of rows i.., ci = 0
        f.get(3).get(L["i"]).i32(spec.w_sco).emit("i32.mul").i32(spec.w_off).emit("i32.add")
        f.i32(2).emit("i32.shl").emit("i32.add").set(L["pa"])
        # padded input at (n, ci = 0, h, w)
        f.get(L["xbase"]).get(L["h"]).i32(wp).emit("i32.mul").get(L["w"]).emit("i32.add")
        f.i32(2).emit("i32.shl").emit("i32.add").set(L["pb"])
        for a in accs[:2 * mr]:
            f.v128_const(bytes(16)).set(a)
        f.i32(0).set(L["c"])

        def step():
            for kh in range(KH):
                for kw in range(KW):
                    for u in range(2):
                        f.get(L["pb"]).mem("v128.load", offset=4 * (kh * wp + kw + 4 * u), align=2).set(bv[u])
                    for r in range(mr):
                        off = 4 * (r * spec.w_sco + kh * spec.w_skh + kw * spec.w_skw)
                        f.get(L["pa"]).mem("v128.load32_splat", offset=off, align=2).set(sv)
                        for u in range(2):
                            a = accs[2 * r + u]
                            if fma:
                                f.get(sv).get(bv[u]).get(a).emit("f32x4.relaxed_madd").set(a)
                            else:
                                f.get(a).get(sv).get(bv[u]).emit("f32x4.mul").emit("f32x4.add").set(a)
            inc("pa", 4 * spec.w_sci)
            inc("pb", 4 * hp * wp)
            inc("c", 1)
        loop_while(lambda: f.get(L["c"]).i32(ci).emit("i32.lt_s"), step)
        # out[n, i + r, h, w + 4u]
        f.get(L["obase"]).get(L["i"]).i32(ho * wo).emit("i32.mul").get(L["h"]).i32(wo).emit("i32.mul")
        f.emit("i32.add").get(L["w"]).emit("i32.add").i32(2).emit("i32.shl").emit("i32.add").set(L["po"])
        for r in range(mr):
            for u in range(2):
                f.get(L["po"]).get(accs[2 * r + u]).mem("v128.store", offset=4 * (r * ho * wo + 4 * u), align=2)

    def rows(mr: int):
        def body():
            f.i32(0).set(L["h"])

            def hbody():
                f.i32(0).set(L["w"])
                loop_while(lambda: f.get(L["w"]).i32(wo).emit("i32.lt_s"), lambda: (micro(mr), inc("w", 8)))
                inc("h", 1)
            loop_while(lambda: f.get(L["h"]).i32(ho).emit("i32.lt_s"), hbody)
            inc("i", mr)
        loop_while(lambda: f.get(L["i"]).i32(mr).emit("i32.add").get(1).emit("i32.le_s"), body)

    def batch():
        f.get(4).get(L["n"]).i32(4 * ci * hp * wp).emit("i32.mul").emit("i32.add").set(L["xbase"])
        f.get(2).get(L["n"]).i32(4 * co * ho * wo).emit("i32.mul").emit("i32.add").set(L["obase"])
        f.get(0).set(L["i"])
        rows(MR)
        rows(1)
        inc("n", 1)

    f.i32(0).set(L["n"])
    loop_while(lambda: f.get(L["n"]).i32(nb).emit("i32.lt_s"), batch)
    shared = "threads" in features
    m = Module(memory_pages=1, shared=shared, max_pages=65536 if shared else None)
    m.add(f, export="run")
    return m.encode()
