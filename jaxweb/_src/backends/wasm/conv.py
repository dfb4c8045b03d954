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
An output width that is not a multiple of 8 is computed wo8 wide into a
temporary (the padded input has zero columns to match) and cropped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...compiler import expr as E
from ...compiler.kernel import Kernel, gidx
from .assembler import Func
from .matmul import _affine
from .tile import MR, Tile, inc, loop_while, module


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
    def wo8(self) -> int:
        """Output width rounded up to whole 8-column tiles: the row stride as computed."""
        return -(-self.shape[3] // 8) * 8

    @property
    def padded(self) -> tuple:
        nb, co, ho, wo = self.shape
        ci, kh, kw = self.rshape
        return (nb, ci, ho + kh - 1, self.wo8 + kw - 1)

    @property
    def work(self) -> int:
        n = 1
        for d in self.shape + self.rshape:
            n *= d
        return n


def _names(e: E.Expr) -> set:
    return {n.arg[0] for n in E.walk(e) if n.op == "idx"}


def match(kernel: Kernel) -> Spec | None:
    """The conv description of `kernel` if the implicit-GEMM path (stride 1) applies."""
    spec = _factor(kernel)
    return spec if spec is not None and _shift_invariant(spec) else None


def _factor(kernel: Kernel) -> Spec | None:
    """W (affine) and the X factor of a 2-D conv-shaped kernel, or None."""
    if (kernel.reduce_op != "add" or kernel.epilogue is not None or len(kernel.shape) != 4
            or len(kernel.reduce_shape) != 3 or kernel.out_dtype.name != "float32"):
        return None
    nb, co, ho, wo = kernel.shape
    ci, kh, kw = kernel.reduce_shape
    if co < 4 or ci * kh * kw < 8:
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
        return Spec(tuple(kernel.shape), tuple(kernel.reduce_shape), lx.arg, lw.arg, xexpr,
                    c.get("", 0), c.get("g1", 0), c.get("r0", 0), c.get("r1", 0), c.get("r2", 0))
    return None


def match_im2col(kernel: Kernel):
    """Any other 2-D conv (strides, dilations, odd padding) as (matmul Spec, pack kernel):
    the X factor gathered per (ci, kh, kw) x (ho, wo) straight into matmul.py's packed-B
    layout (im2col), then the packed GEMM with the weights as A. Needs weights whose
    (ci, kh, kw) flatten to one stride (OIHW, say); else None."""
    from . import matmul
    sp = _factor(kernel)
    if sp is None:
        return None
    nb, co, ho, wo = sp.shape
    ci, KH, KW = sp.rshape
    if sp.w_skw <= 0 or sp.w_skh != KW * sp.w_skw or sp.w_sci != KH * KW * sp.w_skw or sp.w_sco <= 0:
        return None
    mm = matmul.Spec(co, ho * wo, ci * KH * KW, sp.w_slot, sp.x_slot, sp.w_off, sp.w_sco, sp.w_skw, 0, 0, nb)
    return mm, _im2col_kernel(sp, mm)


def _im2col_kernel(sp: Spec, mm) -> Kernel:
    """out[(n,) strip, k, l] = X factor at n, (ci, kh, kw) = unravel(k), (ho, wo) = divmod(8 strip + l, Wo)."""
    from .tile import NR
    nb, co, ho, wo = sp.shape
    ci, KH, KW = sp.rshape
    shape = (mm.N8 // NR, mm.K, NR) if nb == 1 else (nb, mm.N8 // NR, mm.K, NR)
    g = gidx(shape)
    i32 = g[0].dtype
    c = lambda v: E.const(v, i32)  # noqa: E731
    strip, k, lane = g[-3:]
    j = strip * NR + lane
    jc = j if mm.N8 == mm.N else E.binary("min", j, c(mm.N - 1))
    repl = {"g0": g[0] if nb > 1 else c(0), "g2": E.binary("div", jc, c(wo)), "g3": E.binary("rem", jc, c(wo)),
            "r0": E.binary("div", k, c(KH * KW)), "r1": E.binary("rem", E.binary("div", k, c(KW)), c(KH)),
            "r2": E.binary("rem", k, c(KW))}
    mapping = {id(node): repl[node.arg[0]] for node in E.walk(sp.xexpr) if node.op == "idx" and node.arg[0] in repl}
    body = E.substitute(sp.xexpr, mapping)
    dt = body.dtype
    if mm.N8 != mm.N:
        body = E.where(E.binary("lt", j, c(mm.N)), body, E.const(0.0, dt))
    n_in = max(sp.x_slot, sp.w_slot) + 1
    return Kernel(shape, body, dt, (dt,) * n_in, name="conv_im2col")


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# integer / boolean ops of index expressions, with the IR's semantics (truncating div / rem)
_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _trunc_div, "rem": lambda a, b: a - b * _trunc_div(a, b), "max": max, "min": min,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "and": lambda a, b: a and b, "or": lambda a, b: a or b, "not": lambda a: not a,
    "neg": lambda a: -a,
}


class _Opaque(Exception):
    """The X factor does something the point evaluator does not model."""


def _at(spec: Spec, n, c, h, kh, w, kw):
    """The X factor at one point: 0.0 (masked) or ("load", slot, index)."""
    env = {"g0": n, "r0": c, "g2": h, "r1": kh, "g3": w, "r2": kw}
    memo: dict = {}

    def ev(e):
        v = memo.get(id(e), memo)
        if v is not memo:
            return v
        op = e.op
        if op == "idx":
            v = env[e.arg[0]]
        elif op == "const":
            v = e.arg
        elif op == "where":
            v = ev(e.src[1]) if ev(e.src[0]) else ev(e.src[2])
        elif op == "load":
            if e.dtype.kind == "f" and e.src[0].dtype.kind != "f":
                v = ("load", e.arg, ev(e.src[0])) if len(e.src) == 1 or ev(e.src[1]) else 0.0
            else:  # a gather (a load feeding an index): not modelled
                raise _Opaque(op)
        elif op in _OPS:
            v = _OPS[op](*(ev(x) for x in e.src))
        else:
            raise _Opaque(op)
        memo[id(e)] = v
        return v
    return ev(spec.xexpr)


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
                            try:
                                a = _at(spec, n, c, h, kh, w, kw)
                                b = _at(spec, n, c, h + kh, 0, w + kw, 0)
                            except (_Opaque, TypeError, ZeroDivisionError):
                                return False
                            if a != b or not (a == 0.0 or isinstance(a, tuple)):
                                return False
    return True


def pad_kernel(spec: Spec) -> Kernel:
    """Xpad[n, ci, hp, wp] = the X factor at (ho, kh) = (hp, 0), (wo, kw) = (wp, 0);
    0 in the columns past Wo + KW - 1 that only rounding Wo up to wo8 adds."""
    g = gidx(spec.padded)
    zero = E.const(0, g[0].dtype)
    wp_real = spec.shape[3] + spec.rshape[2] - 1
    wcol = g[3] if spec.wo8 == spec.shape[3] else E.binary("min", g[3], E.const(wp_real - 1, g[3].dtype))
    repl = {"g0": g[0], "r0": g[1], "g2": g[2], "r1": zero, "g3": wcol, "r2": zero}
    mapping = {id(node): repl[node.arg[0]] for node in E.walk(spec.xexpr)
               if node.op == "idx" and node.arg[0] in repl}
    body = E.substitute(spec.xexpr, mapping)
    dt = body.dtype
    if spec.wo8 != spec.shape[3]:
        body = E.where(E.binary("lt", g[3], E.const(wp_real, g[3].dtype)), body, E.const(0.0, dt))
    n_in = max(spec.x_slot, spec.w_slot) + 1
    return Kernel(spec.padded, body, dt, (dt,) * n_in, name="conv_pad")


def build(spec: Spec, features: frozenset) -> bytes:
    """run(start, end, out, W, Xpad): output channels [start, end); `out` is wo8 wide."""
    return _Conv(spec, features).build()


class _Conv:
    LOCALS = ("n", "i", "h", "w", "c", "pa", "pb", "po", "xbase", "obase")

    def __init__(self, spec: Spec, features: frozenset):
        self.spec, self.features = spec, features
        self.f = f = Func(["i32"] * 5)
        self.L = {n: f.local("i32") for n in self.LOCALS}
        self.tile = Tile(f, features)
        _, self.co, self.ho, _ = spec.shape
        self.wo = spec.wo8
        _, _, self.hp, self.wp = spec.padded

    def micro(self, mr: int) -> None:
        """Output channels i.., row h, columns w..w+7: all ci, all taps."""
        f, L, sp, t = self.f, self.L, self.spec, self.tile
        ci, KH, KW = sp.rshape
        wp = self.wp
        f.get(3).get(L["i"]).i32(sp.w_sco).emit("i32.mul").i32(sp.w_off).emit("i32.add")  # weights, ci = 0
        f.i32(2).emit("i32.shl").emit("i32.add").set(L["pa"])
        f.get(L["xbase"]).get(L["h"]).i32(wp).emit("i32.mul").get(L["w"]).emit("i32.add")  # input, ci = 0
        f.i32(2).emit("i32.shl").emit("i32.add").set(L["pb"])
        t.zero(mr)
        f.i32(0).set(L["c"])

        def step():
            for kh in range(KH):
                for kw in range(KW):
                    t.step(mr, L["pb"], 4 * (kh * wp + kw), L["pa"], 4 * (kh * sp.w_skh + kw * sp.w_skw), 4 * sp.w_sco)
            inc(f, L["pa"], 4 * sp.w_sci)
            inc(f, L["pb"], 4 * self.hp * wp)
            inc(f, L["c"], 1)
        loop_while(f, lambda: f.get(L["c"]).i32(ci).emit("i32.lt_s"), step)
        ho, wo = self.ho, self.wo  # out[n, i + r, h, w..]
        f.get(L["obase"]).get(L["i"]).i32(ho * wo).emit("i32.mul").get(L["h"]).i32(wo).emit("i32.mul")
        f.emit("i32.add").get(L["w"]).emit("i32.add").i32(2).emit("i32.shl").emit("i32.add").set(L["po"])
        t.store(mr, L["po"], 4 * ho * wo)

    def rows(self, mr: int) -> None:
        f, L = self.f, self.L

        def hbody():
            f.i32(0).set(L["w"])
            loop_while(f, lambda: f.get(L["w"]).i32(self.wo).emit("i32.lt_s"),
                       lambda: (self.micro(mr), inc(f, L["w"], 8)))
            inc(f, L["h"], 1)

        def body():
            f.i32(0).set(L["h"])
            loop_while(f, lambda: f.get(L["h"]).i32(self.ho).emit("i32.lt_s"), hbody)
            inc(f, L["i"], mr)
        loop_while(f, lambda: f.get(L["i"]).i32(mr).emit("i32.add").get(1).emit("i32.le_s"), body)

    def build(self) -> bytes:
        f, L, sp = self.f, self.L, self.spec
        nb, ci = sp.padded[:2]

        def batch():
            f.get(4).get(L["n"]).i32(4 * ci * self.hp * self.wp).emit("i32.mul").emit("i32.add").set(L["xbase"])
            f.get(2).get(L["n"]).i32(4 * self.co * self.ho * self.wo).emit("i32.mul").emit("i32.add").set(L["obase"])
            f.get(0).set(L["i"])
            for mr in (MR, 2, 1):
                self.rows(mr)
            inc(f, L["n"], 1)
        f.i32(0).set(L["n"])
        loop_while(f, lambda: f.get(L["n"]).i32(nb).emit("i32.lt_s"), batch)
        return module(f, self.features)
