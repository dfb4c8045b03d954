"""The f32 direct-conv routine (`Routine("conv_f32", ConvSpec)`): stride-1 2-D conv as an
implicit GEMM on the zero-padded input.

The compiler (`compiler/conv.py`) recognizes the conv kernel, checks that it is
shift-invariant (stride 1, no dilation) and stages the padded input (Hp = Ho + KH - 1,
Wp = wo8 + KW - 1) with an ordinary kernel; this module is the compute program: it
tiles MR output channels x 8 output columns (MR * 2 f32x4 accumulators, as matmul.py)
and runs the reduction as a loop over ci with the KH * KW taps unrolled: every tap's
loads are immediate offsets from two pointers (weights: `v128.load32_splat`; padded
input: two `v128.load`s).

The outer loop [start, end) is over output channels, so threads split channels. The
output is computed wo8 (Wo rounded up to whole tiles) wide.
"""
from __future__ import annotations

from ...compiler.conv import ConvSpec
from .assembler import Func
from .tile import MR, Tile, inc, loop_while, module


def build(spec: ConvSpec, features: frozenset) -> bytes:
    """run(start, end, out, W, Xpad): output channels [start, end); `out` is wo8 wide."""
    return _Conv(spec, features).build()


class _Conv:
    LOCALS = ("n", "i", "h", "w", "c", "pa", "pb", "po", "xbase", "obase")

    def __init__(self, spec: ConvSpec, features: frozenset):
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
