"""A dedicated f32 matmul for kernels of the form C[i, j] = sum_k A[i, k] * B[k, j].

The generic "outer" vector loop (vectorize.py) reads B straight from its view and
blocks 4 rows x 2 vectors; this path is the classic packed GEMM instead:

1. `pack_kernel`: B is first copied into a scratch buffer as strips of NR = 8
   columns, each strip K x 8 contiguous (an ordinary IR kernel, so the normal
   codegen vectorizes it and the runtime splits it over threads).
2. `build`: the compute module walks column panels of NC columns and k-blocks of
   KC (the B panel, KC x NC floats, stays in L2), and within them row blocks of
   MR rows x one strip: an MR x 8 register tile (MR * 2 f32x4 accumulators) fed
   per k by two v128 loads of the packed strip and MR `v128.load32_splat`s of A
   whose addresses differ by constant offsets (no index arithmetic in the loop),
   with `f32x4.relaxed_madd` when the engine has relaxed SIMD. The k loop is
   unrolled by UK with immediate offsets. The first k-block stores the tile,
   later ones add to C. Leftover rows (fewer than MR) run 1-row tiles.

The outer loop [start, end) is over rows of C, so threads split rows; every
thread reads the one packed B. `match` accepts 2-D kernels without epilogue whose
loads are affine in the indices with positive strides and B contiguous along j,
and N a multiple of 8; anything else stays on the generic path.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...compiler import expr as E
from ...compiler.kernel import Kernel, gidx
from .assembler import Func, Module

NR = 8          # columns per packed strip (2 vectors)
MR = 6          # rows per register tile (12 accumulators)
UK = 2          # k unroll
KC = 256        # k-block
NC = 256        # column panel (KC x NC x 4 B = 256 KiB of packed B)
MIN_DIM = 16    # smaller problems stay on the generic path (packing would not pay)


@dataclass(frozen=True)
class Spec:
    M: int
    N: int
    K: int
    a_slot: int
    b_slot: int
    a_off: int
    a_si: int   # A stride along i (elements)
    a_sk: int   # A stride along k
    b_off: int
    b_sk: int   # B stride along k (B stride along j is 1)


def _affine(e: E.Expr) -> dict | None:
    """{index name: coefficient, "": constant} if e is affine in the loop indices."""
    if e.op == "idx":
        return {e.arg[0]: 1}
    if e.op == "const":
        return {"": int(e.arg)} if isinstance(e.arg, int) and not isinstance(e.arg, bool) else None
    if e.op in ("add", "sub"):
        a, b = _affine(e.src[0]), _affine(e.src[1])
        if a is None or b is None:
            return None
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + (v if e.op == "add" else -v)
        return out
    if e.op == "mul":
        x, y = e.src
        if y.op == "const":
            x, y = y, x
        if x.op != "const":
            return None
        c, rest = _affine(x), _affine(y)
        if c is None or rest is None:
            return None
        return {k: v * c[""] for k, v in rest.items()}
    return None


def match(kernel: Kernel) -> Spec | None:
    """The matmul description of `kernel`, or None if it is not a plain f32 matmul."""
    if (kernel.reduce_op != "add" or kernel.epilogue is not None or len(kernel.shape) != 2
            or len(kernel.reduce_shape) != 1 or kernel.out_dtype.name != "float32"):
        return None
    body = kernel.body
    if body.op != "mul" or any(s.op != "load" or len(s.src) != 1 or s.dtype.name != "float32" for s in body.src):
        return None
    M, N = kernel.shape
    K = kernel.reduce_shape[0]
    if min(M, N, K) < MIN_DIM or N % NR:
        return None
    coefs = []
    for ld in body.src:
        c = _affine(ld.src[0])
        if c is None or set(c) - {"", "g0", "g1", "r0"}:
            return None
        coefs.append((ld.arg, c))
    for (sa, ca), (sb, cb) in (coefs, coefs[::-1]):
        if ca.get("g1", 0) == 0 and cb.get("g0", 0) == 0 and cb.get("g1", 0) == 1:
            a_si, a_sk, b_sk = ca.get("g0", 0), ca.get("r0", 0), cb.get("r0", 0)
            a_off, b_off = ca.get("", 0), cb.get("", 0)
            if a_si <= 0 or a_sk <= 0 or b_sk <= 0 or a_off < 0 or b_off < 0:
                return None
            return Spec(M, N, K, sa, sb, a_off, a_si, a_sk, b_off, b_sk)
    return None


def pack_kernel(s: Spec) -> Kernel:
    """Packed B: out[strip, k, l] = B[k, 8 * strip + l] (strips of NR columns)."""
    g = gidx((s.N // NR, s.K, NR))
    index = g[1] * s.b_sk + g[0] * NR + g[2] + s.b_off
    f32 = _f32()
    return Kernel((s.N // NR, s.K, NR), E.load(0, f32, index), f32, (f32,), name="pack_b")


def _f32():
    from ... import dtypes
    return dtypes.float32


def build(s: Spec, features: frozenset) -> bytes:
    """The compute module: run(start, end, out, A, packedB) over rows [start, end)."""
    f = Func(["i32"] * 5)
    fma = "relaxed_simd" in features
    L = {n: f.local("i32") for n in ("jc", "jend", "pc", "kc", "i", "col", "pa", "pb", "pcc", "k")}
    accs = [f.local("v128") for _ in range(MR * 2)]
    bv = [f.local("v128") for _ in range(2)]
    sv = f.local("v128")

    def loop_while(cond, body):
        """while cond(): body()  (cond pushes an i32)."""
        f.block().loop()
        cond()
        f.emit("i32.eqz").br_if(1)
        body()
        f.br(0)
        f.end().end()

    def micro(mr: int):
        # pointers for the tile at rows i.., columns col.., k-block pc
        f.get(3).get(L["i"]).i32(s.a_si).emit("i32.mul").get(L["pc"]).i32(s.a_sk).emit("i32.mul")
        f.emit("i32.add").i32(s.a_off).emit("i32.add").i32(2).emit("i32.shl").emit("i32.add").set(L["pa"])
        f.get(4).get(L["col"]).i32(s.K * 4).emit("i32.mul").emit("i32.add")
        f.get(L["pc"]).i32(NR * 4).emit("i32.mul").emit("i32.add").set(L["pb"])
        f.get(2).get(L["i"]).i32(s.N).emit("i32.mul").get(L["col"]).emit("i32.add")
        f.i32(2).emit("i32.shl").emit("i32.add").set(L["pcc"])
        # accumulators: 0 on the first k-block, else the partial C
        f.get(L["pc"]).emit("i32.eqz").if_()
        for r in range(mr):
            for u in range(2):
                f.v128_const(bytes(16)).set(accs[2 * r + u])
        f.else_()
        for r in range(mr):
            for u in range(2):
                f.get(L["pcc"]).mem("v128.load", offset=4 * (r * s.N + 4 * u), align=2).set(accs[2 * r + u])
        f.end()

        def kstep(uk: int):
            for u in range(2):
                f.get(L["pb"]).mem("v128.load", offset=uk * NR * 4 + 16 * u, align=4).set(bv[u])
            for r in range(mr):
                f.get(L["pa"]).mem("v128.load32_splat", offset=4 * (r * s.a_si + uk * s.a_sk), align=2).set(sv)
                for u in range(2):
                    a = accs[2 * r + u]
                    if fma:
                        f.get(sv).get(bv[u]).get(a).emit("f32x4.relaxed_madd").set(a)
                    else:
                        f.get(a).get(sv).get(bv[u]).emit("f32x4.mul").emit("f32x4.add").set(a)

        def advance(steps: int):
            f.get(L["pa"]).i32(4 * steps * s.a_sk).emit("i32.add").set(L["pa"])
            f.get(L["pb"]).i32(NR * 4 * steps).emit("i32.add").set(L["pb"])
            f.get(L["k"]).i32(steps).emit("i32.add").set(L["k"])

        f.i32(0).set(L["k"])
        loop_while(lambda: f.get(L["k"]).i32(UK).emit("i32.add").get(L["kc"]).emit("i32.le_s"),
                   lambda: ([kstep(uk) for uk in range(UK)], advance(UK)))
        loop_while(lambda: f.get(L["k"]).get(L["kc"]).emit("i32.lt_s"), lambda: (kstep(0), advance(1)))
        for r in range(mr):
            for u in range(2):
                f.get(L["pcc"]).get(accs[2 * r + u]).mem("v128.store", offset=4 * (r * s.N + 4 * u), align=2)

    def rows(mr: int):
        """for i in [i, end) step mr (while i + mr <= end): for col in panel: micro(mr)."""
        def body():
            f.get(L["jc"]).set(L["col"])
            loop_while(lambda: f.get(L["col"]).get(L["jend"]).emit("i32.lt_s"),
                       lambda: (micro(mr), f.get(L["col"]).i32(NR).emit("i32.add").set(L["col"])))
            f.get(L["i"]).i32(mr).emit("i32.add").set(L["i"])
        loop_while(lambda: f.get(L["i"]).i32(mr).emit("i32.add").get(1).emit("i32.le_s"), body)

    def kblock():
        f.i32(s.K).get(L["pc"]).emit("i32.sub").set(L["kc"])
        f.get(L["kc"]).i32(KC).get(L["kc"]).i32(KC).emit("i32.lt_s").emit("select").set(L["kc"])
        f.get(0).set(L["i"])
        rows(MR)
        rows(1)
        f.get(L["pc"]).i32(KC).emit("i32.add").set(L["pc"])

    def panel():
        f.get(L["jc"]).i32(NC).emit("i32.add").set(L["jend"])
        f.get(L["jend"]).i32(s.N).get(L["jend"]).i32(s.N).emit("i32.lt_s").emit("select").set(L["jend"])
        f.i32(0).set(L["pc"])
        loop_while(lambda: f.get(L["pc"]).i32(s.K).emit("i32.lt_s"), kblock)
        f.get(L["jend"]).set(L["jc"])

    f.i32(0).set(L["jc"])
    loop_while(lambda: f.get(L["jc"]).i32(s.N).emit("i32.lt_s"), panel)
    shared = "threads" in features
    m = Module(memory_pages=1, shared=shared, max_pages=65536 if shared else None)
    m.add(f, export="run")
    return m.encode()
