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
   later ones add to C. Leftover rows (fewer than MR) run 2- and 1-row tiles.

The outer loop [start, end) is over rows of C, so threads split rows; every
thread reads the one packed B. Batched kernels (one leading batch index) loop
over batches outside instead, and threads split batches. `match` accepts 2-D kernels without epilogue whose
loads are affine in the indices with positive strides and B contiguous along j;
anything else stays on the generic path. When N is not a multiple of 8, B is
packed with zero columns up to N8, C is computed N8 wide into a temporary and
cropped (`crop_kernel`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...compiler import expr as E
from ...compiler.kernel import Kernel, gidx
from .assembler import Func
from .tile import MR, NR, Tile, inc, loop_while, module

UK = 2          # k unroll
KC = 256        # k-block
NC = 256        # column panel (KC x NC x 4 B = 256 KiB of packed B)
PACK_MIN_BYTES = 1 << 20  # B smaller than this is read in place (it stays in L2 anyway)
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
    B: int = 1     # batch (a leading output index); threads split batches when B > 1
    a_sb: int = 0  # A stride along the batch
    b_sb: int = 0  # B stride along the batch

    @property
    def N8(self) -> int:
        """N rounded up to whole strips: the row stride of C as computed (cropped after)."""
        return -(-self.N // NR) * NR


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
    if (kernel.reduce_op != "add" or kernel.epilogue is not None or len(kernel.shape) not in (2, 3)
            or len(kernel.reduce_shape) != 1 or kernel.out_dtype.name != "float32"):
        return None
    body = kernel.body
    if body.op != "mul" or any(s.op != "load" or len(s.src) != 1 or s.dtype.name != "float32" for s in body.src):
        return None
    *batch, M, N = kernel.shape
    nb = batch[0] if batch else 1
    bn, rn, cn = ("g0", "g1", "g2") if batch else (None, "g0", "g1")
    K = kernel.reduce_shape[0]
    if min(M, N, K) < MIN_DIM:
        return None
    coefs = []
    for ld in body.src:
        c = _affine(ld.src[0])
        if c is None or set(c) - {"", bn, rn, cn, "r0"}:
            return None
        coefs.append((ld.arg, c))
    for (sa, ca), (sb, cb) in (coefs, coefs[::-1]):
        if ca.get(cn, 0) == 0 and cb.get(rn, 0) == 0 and cb.get(cn, 0) == 1:
            a_si, a_sk, b_sk = ca.get(rn, 0), ca.get("r0", 0), cb.get("r0", 0)
            a_off, b_off = ca.get("", 0), cb.get("", 0)
            a_sb, b_sb = (ca.get(bn, 0), cb.get(bn, 0)) if nb > 1 else (0, 0)
            if min(a_si, a_sk, b_sk) <= 0 or min(a_off, b_off, a_sb, b_sb) < 0:
                return None
            return Spec(M, N, K, sa, sb, a_off, a_si, a_sk, b_off, b_sk, nb, a_sb, b_sb)
    return None


def use_pack(s: Spec) -> bool:
    return s.K * s.N * 4 >= PACK_MIN_BYTES or s.N8 != s.N


def pack_kernel(s: Spec) -> Kernel:
    """Packed B: out[b, strip, k, l] = B[b, k, 8 * strip + l] (strips of NR columns, 0 past N;
    no batch index when B == 1)."""
    shape = (s.N8 // NR, s.K, NR) if s.B == 1 else (s.B, s.N8 // NR, s.K, NR)
    g = gidx(shape)
    base = s.b_off if s.B == 1 else g[0] * s.b_sb + s.b_off
    g = g[-3:]
    f32 = _f32()
    j = g[0] * NR + g[2]
    if s.N8 == s.N:
        body = E.load(0, f32, g[1] * s.b_sk + j + base)
    else:  # the index clamped too, so that no lane reads past B
        jc = E.binary("min", j, E.const(s.N - 1, j.dtype))
        body = E.where(E.binary("lt", j, E.const(s.N, j.dtype)), E.load(0, f32, g[1] * s.b_sk + jc + base),
                       E.const(0.0, f32))
    return Kernel(shape, body, f32, (f32,), name="pack_b")


def crop_kernel(rows: int, n: int, stride: int) -> Kernel:
    """out[r, j] = tmp[r * stride + j]: the first n of every `stride` columns."""
    g = gidx((rows, n))
    f32 = _f32()
    return Kernel((rows, n), E.load(0, f32, g[0] * stride + g[1]), f32, (f32,), name="crop")


def _f32():
    from ... import dtypes
    return dtypes.float32


def build(s: Spec, features: frozenset, packed: bool = True) -> bytes:
    """The compute module: run(start, end, out, A, B') over rows [start, end) (batches when
    B > 1); B' is the packed B (`pack_kernel`), or B itself when not `packed` (strips
    read in place)."""
    return _Gemm(s, features, packed).build()


class _Gemm:
    LOCALS = ("jc", "jend", "pc", "kc", "i", "col", "pa", "pb", "pcc", "k", "abase", "bbase", "cbase", "rlo",
              "rhi", "b")

    def __init__(self, s: Spec, features: frozenset, packed: bool):
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

        def batch():  # batches [start, end), all rows of each
            for name, param, size in (("cbase", 2, s.M * self.N8 * 4), ("abase", 3, s.a_sb * 4), ("bbase", 4, b_bytes)):
                f.get(param).get(L["b"]).i32(size).emit("i32.mul").emit("i32.add").set(L[name])
            f.i32(0).set(L["rlo"])
            f.i32(s.M).set(L["rhi"])
            self.matrix()
            inc(f, L["b"], 1)
        f.get(0).set(L["b"])
        loop_while(f, lambda: f.get(L["b"]).get(1).emit("i32.lt_s"), batch)
        return module(f, self.features)
