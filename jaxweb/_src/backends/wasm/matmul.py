"""The f32 GEMM routine (`Routine("gemm_f32", GemmSpec)`): a packed, register-tiled matmul.

The compiler (`compiler/gemm.py`) recognizes matmul kernels and stages their operands
with ordinary kernels (A computed contiguous when it is not a plain strided read, B
packed into strips of NR = 8 columns, each K x 8 contiguous); this module is only the
compute program on those operands, C[i, j] = sum_k A[i, k] * B'(k, j):

the module walks column panels of NC columns and k-blocks of KC (the B panel, KC x NC
floats, stays in L2), and within them row blocks of MR rows x one strip: an MR x 8
register tile (MR * 2 f32x4 accumulators) fed per k by two v128 loads of the packed
strip and MR `v128.load32_splat`s of A whose addresses differ by constant offsets (no
index arithmetic in the loop), with `f32x4.relaxed_madd` when the engine has relaxed
SIMD. The k loop is unrolled by UK with immediate offsets. The first k-block stores the
tile, later ones add to C. Leftover rows (fewer than MR) run 2- and 1-row tiles.

The outer loop [start, end) is over rows of C, so threads split rows; every thread
reads the one packed B. Batched GEMMs (spec.B > 1) loop over batches outside instead,
and threads split batches. C's rows are N8 (N rounded up to whole strips) apart.
"""
from __future__ import annotations

from ...compiler.gemm import GemmSpec
from .assembler import Func
from .tile import MR, NR, Tile, inc, loop_while, module

UK = 2          # k unroll
KC = 256        # k-block
NC = 256        # column panel (KC x NC x 4 B = 256 KiB of packed B)


def build(s: GemmSpec, features: frozenset) -> bytes:
    """The compute module: run(start, end, out, A, B') over rows [start, end) (batches when
    B > 1); B' is the packed B, or B itself when not `s.packed` (strips read in place)."""
    assert s.nr == NR
    return _Gemm(s, features, s.packed).build()


class _Gemm:
    LOCALS = ("jc", "jend", "pc", "kc", "i", "col", "pa", "pb", "pcc", "k", "abase", "bbase", "cbase", "rlo",
              "rhi", "b")

    def __init__(self, s: GemmSpec, features: frozenset, packed: bool):
        self.s, self.features, self.packed = s, features, packed
        self.f = f = Func(["i32"] * 5)
        self.L = {n: f.local("i32") for n in self.LOCALS}
        self.tile = Tile(f, features)
        self.N8 = s.N8  # columns computed; C's row stride here (a temporary when N8 != N)
        self.bstep = NR * 4 if packed else s.b_sk * 4  # bytes from one k to the next in a strip

    def micro(self, mr: int) -> None:
        """The mr x 8 tile at rows i.., columns col.., over the k-block [pc, pc + kc)."""
        f, L, s, t = self.f, self.L, self.s, self.tile
        f.get(L["abase"]).get(L["i"]).i32(s.a_si).emit("i32.mul").get(L["pc"]).i32(s.a_sk).emit("i32.mul")
        f.emit("i32.add").i32(s.a_off).emit("i32.add").i32(2).emit("i32.shl").emit("i32.add").set(L["pa"])
        if self.packed:
            f.get(L["bbase"]).get(L["col"]).i32(s.K * 4).emit("i32.mul").emit("i32.add")
        else:
            f.get(L["bbase"]).get(L["col"]).i32(s.b_off).emit("i32.add").i32(4).emit("i32.mul").emit("i32.add")
        f.get(L["pc"]).i32(self.bstep).emit("i32.mul").emit("i32.add").set(L["pb"])
        f.get(L["cbase"]).get(L["i"]).i32(self.N8).emit("i32.mul").get(L["col"]).emit("i32.add")
        f.i32(2).emit("i32.shl").emit("i32.add").set(L["pcc"])
        f.get(L["pc"]).emit("i32.eqz").if_()  # 0 on the first k-block, else the partial C
        t.zero(mr)
        f.else_()
        t.load(mr, L["pcc"], 4 * self.N8)
        f.end()

        def steps(n: int):
            for uk in range(n):
                t.step(mr, L["pb"], uk * self.bstep, L["pa"], 4 * uk * s.a_sk, 4 * s.a_si)
            inc(f, L["pa"], 4 * n * s.a_sk)
            inc(f, L["pb"], self.bstep * n)
            inc(f, L["k"], n)
        f.i32(0).set(L["k"])
        loop_while(f, lambda: f.get(L["k"]).i32(UK).emit("i32.add").get(L["kc"]).emit("i32.le_s"),
                   lambda: steps(UK))
        loop_while(f, lambda: f.get(L["k"]).get(L["kc"]).emit("i32.lt_s"), lambda: steps(1))
        t.store(mr, L["pcc"], 4 * self.N8)

    def rows(self, mr: int) -> None:
        """while i + mr <= rhi: every strip of the panel with tile height mr; i += mr."""
        f, L = self.f, self.L

        def body():
            f.get(L["jc"]).set(L["col"])
            loop_while(f, lambda: f.get(L["col"]).get(L["jend"]).emit("i32.lt_s"),
                       lambda: (self.micro(mr), inc(f, L["col"], NR)))
            inc(f, L["i"], mr)
        loop_while(f, lambda: f.get(L["i"]).i32(mr).emit("i32.add").get(L["rhi"]).emit("i32.le_s"), body)

    def kblock(self) -> None:
        f, L = self.f, self.L
        f.i32(self.s.K).get(L["pc"]).emit("i32.sub").set(L["kc"])
        f.get(L["kc"]).i32(KC).get(L["kc"]).i32(KC).emit("i32.lt_s").emit("select").set(L["kc"])  # min
        f.get(L["rlo"]).set(L["i"])
        for mr in (MR, 2, 1):
            self.rows(mr)
        inc(f, L["pc"], KC)

    def panel(self) -> None:
        f, L, N8 = self.f, self.L, self.N8
        f.get(L["jc"]).i32(NC).emit("i32.add").set(L["jend"])
        f.get(L["jend"]).i32(N8).get(L["jend"]).i32(N8).emit("i32.lt_s").emit("select").set(L["jend"])  # min
        f.i32(0).set(L["pc"])
        loop_while(f, lambda: f.get(L["pc"]).i32(self.s.K).emit("i32.lt_s"), self.kblock)
        f.get(L["jend"]).set(L["jc"])

    def matrix(self) -> None:
        f, L = self.f, self.L
        f.i32(0).set(L["jc"])
        loop_while(f, lambda: f.get(L["jc"]).i32(self.N8).emit("i32.lt_s"), self.panel)

    def build(self) -> bytes:
        f, L, s = self.f, self.L, self.s
        if s.B == 1:  # rows [start, end)
            for name, param in (("cbase", 2), ("abase", 3), ("bbase", 4), ("rlo", 0), ("rhi", 1)):
                f.get(param).set(L[name])
            self.matrix()
            return module(f, self.features)
        b_bytes = self.N8 * s.K * 4 if self.packed else s.b_sb * 4
        # (inner, outer) batch strides in bytes: batches pair up (b / bi, b % bi) where s.bi > 1,
        # except in C and packed strips (contiguous over b)
        strides = (("cbase", 2, s.M * self.N8 * 4, None), ("abase", 3, s.a_sb * 4, s.a_sbo * 4),
                   ("bbase", 4, b_bytes, None if self.packed else s.b_sbo * 4))

        def batch():  # batches [start, end), all rows of each
            for name, param, size, outer in strides:
                f.get(param)
                if s.bi > 1 and outer is not None:
                    f.get(L["b"]).i32(s.bi).emit("i32.div_u").i32(outer).emit("i32.mul").emit("i32.add")
                    f.get(L["b"]).i32(s.bi).emit("i32.rem_u").i32(size).emit("i32.mul").emit("i32.add")
                else:
                    f.get(L["b"]).i32(size).emit("i32.mul").emit("i32.add")
                f.set(L[name])
            f.i32(0).set(L["rlo"])
            f.i32(s.M).set(L["rhi"])
            self.matrix()
            inc(f, L["b"], 1)
        f.get(0).set(L["b"])
        loop_while(f, lambda: f.get(L["b"]).get(1).emit("i32.lt_s"), batch)
        return module(f, self.features)
