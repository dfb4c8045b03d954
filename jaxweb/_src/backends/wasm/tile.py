"""The register tile of the dedicated GEMM paths (matmul.py, conv.py).

MR rows x NR = 8 columns of f32 accumulate in MR * 2 v128 locals. One reduction
step loads the step's 8 B values as two v128s and each row's A value as a
`v128.load32_splat`, then does MR * 2 multiply-adds (`f32x4.relaxed_madd` with
relaxed SIMD, else mul + add). With MR = 6 that is 12 accumulators + 2 B vectors
+ 1 splat = 15 live v128s: what x86-64 engines keep in registers (V8 reserves one
of the 16 xmm registers as scratch). Every address is a pointer local plus an
immediate offset, so the loop body has no index arithmetic.
"""
from __future__ import annotations

from .assembler import Func

MR = 6  # rows per tile
NR = 8  # columns per tile (two f32x4)


def loop_while(f: Func, cond, body) -> None:
    """while cond(): body()  (cond pushes an i32)."""
    f.block().loop()
    cond()
    f.emit("i32.eqz").br_if(1)
    body()
    f.br(0)
    f.end().end()


def inc(f: Func, local: int, by: int) -> None:
    f.get(local).i32(by).emit("i32.add").set(local)


class Tile:
    def __init__(self, f: Func, features: frozenset):
        self.f, self.fma = f, "relaxed_simd" in features
        self.accs = [f.local("v128") for _ in range(MR * 2)]
        self.bv = [f.local("v128") for _ in range(2)]
        self.sv = f.local("v128")

    def zero(self, mr: int) -> None:
        for a in self.accs[:2 * mr]:
            self.f.v128_const(bytes(16)).set(a)

    def load(self, mr: int, ptr: int, row_bytes: int) -> None:
        """Accumulators = the tile at `ptr` (rows `row_bytes` apart)."""
        for r in range(mr):
            for u in range(2):
                self.f.get(ptr).mem("v128.load", offset=r * row_bytes + 16 * u, align=2).set(self.accs[2 * r + u])

    def store(self, mr: int, ptr: int, row_bytes: int) -> None:
        for r in range(mr):
            for u in range(2):
                self.f.get(ptr).get(self.accs[2 * r + u]).mem("v128.store", offset=r * row_bytes + 16 * u, align=2)

    def step(self, mr: int, pb: int, b_off: int, pa: int, a_off: int, a_row: int) -> None:
        """acc[r] += A(r) * B: B's 8 values at pb + b_off, A(r) at pa + a_off + r * a_row (bytes)."""
        f = self.f
        for u in range(2):
            f.get(pb).mem("v128.load", offset=b_off + 16 * u, align=2).set(self.bv[u])
        for r in range(mr):
            f.get(pa).mem("v128.load32_splat", offset=a_off + r * a_row, align=2).set(self.sv)
            for u in range(2):
                a = self.accs[2 * r + u]
                if self.fma:
                    f.get(self.sv).get(self.bv[u]).get(a).emit("f32x4.relaxed_madd").set(a)
                else:
                    f.get(a).get(self.sv).get(self.bv[u]).emit("f32x4.mul").emit("f32x4.add").set(a)


def module(run: Func, features: frozenset) -> bytes:
    """A kernel module exporting `run`, importing the memory as shared when the runtime's is."""
    from .assembler import Module
    shared = "shared_memory" in features
    m = Module(memory_pages=1, shared=shared, max_pages=65536 if shared else None)
    m.add(run, export="run")
    return m.encode()
