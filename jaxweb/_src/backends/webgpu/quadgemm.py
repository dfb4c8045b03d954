"""The GEMM routine (`gemm_f32`) of software adapters (SwiftShader, lavapipe): quads of
invocations sharing their operands through quad swaps.

A software adapter runs an invocation as one lane of a 4-wide (SwiftShader; 8-wide on
lavapipe) SIMD group on the CPU. What is cheap and what is not there is unlike a GPU,
and was measured in Chromium's SwiftShader (2 cores; `benchmarks/bench_webgpu_browser.py`):

- a load whose index varies per invocation is a *gather*: each lane's element fetched on
  its own behind a branch, the result assembled through memory: ~10 ns for 4 lanes,
  the price of ~10 multiply-adds, whatever the layout (contiguous lanes gain nothing;
  workgroup memory and textures cost the same);
- a multiply-add costs ~1 ns per 4 lanes even when its accumulator lives on the stack
  (registers run out past ~12 values and nothing stays in one across a loop), so large
  register tiles pay: they divide the gathers by the tile's reuse;
- a quad swap (`quadSwapX/Y/Diagonal`) is one shuffle of the SIMD register;
- runtime-sized arrays cost a vector integer division per access (their length), so
  every binding is declared with its size.

So each quad of 4 invocations computes a 4P x 4Q block of C: at each k, lane `l` gathers
A at rows `row0 + 4p + l` (P gathers) and B at columns `col0 + 4q + l` (Q gathers), all
16 (P + Q) elements useful, and the three quad swaps of the smaller operand give every
lane the other lanes' values: lane `l`'s accumulator (p, q, m) holds C at row
`4p + l` and column `4q + (l ^ m)` (B swapped; with A swapped the other way round).
That is P + Q gathers for 16 PQ multiply-adds per quad, against TM + TN gathers for
TM TN in a plain per-invocation register tile. The k loop is unrolled U times with every
gather of the U steps first, then each accumulator's U multiply-adds as one chain (an
accumulator is loaded and stored once per U steps). At n = 512..1024 this ran 4-5
GFLOP/s against ~1 for the per-invocation tile (`matmul._build_direct`).

Quads must be 4 consecutive local invocations (subgroup lanes 4i..4i+3 of a subgroup of
consecutive invocations), as on SwiftShader and lavapipe; the backend uses this kernel
only on software adapters with subgroups.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...compiler.gemm import GemmSpec
from .codegen import Shader, epilogue_fn, epilogue_store

_SWAP = ("{}", "quadSwapX({})", "quadSwapY({})", "quadSwapDiagonal({})")  # lane l reads lane l ^ m


@dataclass(frozen=True)
class QuadTile:
    P: int       # a quad's rows are 4P, its columns 4Q
    Q: int
    QX: int      # quads per workgroup across and down
    QY: int
    U: int = 8   # k steps per loop iteration

    @property
    def BM(self) -> int:
        return 4 * self.P * self.QY

    @property
    def BN(self) -> int:
        return 4 * self.Q * self.QX

    @property
    def threads(self) -> int:
        return 4 * self.QX * self.QY


#: (P, Q) from the most reuse to the least; `choose` takes the cheapest by the cost model
_SHAPES = ((8, 8), (8, 4), (4, 8), (4, 4), (4, 2), (2, 4), (2, 2), (2, 1), (1, 2), (1, 1))
#: cost model, ns per 4 lanes (SwiftShader, measured): gather, quad swap, multiply-add
_GATHER, _SWAP_NS, _FMA = 10.0, 4.0, 1.0
_CORES = 4  # workgroups that run at once (the model's guess of a CPU's cores)
#: ns charged per unrolled multiply-add of the kernel's text: compiling it (SwiftShader ~20 us
#: a line, lavapipe's LLVM far more) is paid once, so small products take small tiles
_CODE_NS = 2000.0
_GROUP_NS = 1000.0  # per workgroup (a call into the compiled routine)


def _cost(s: GemmSpec, t: QuadTile) -> float:
    waves = -(-(s.B * -(-s.M // t.BM) * -(-s.N8 // t.BN)) // _CORES)
    per_k = (t.P + t.Q) * _GATHER + 3 * min(t.P, t.Q) * _SWAP_NS + 4 * t.P * t.Q * _FMA
    return waves * (t.QX * t.QY * s.K * per_k + _GROUP_NS) + _CODE_NS * 4 * t.P * t.Q * t.U


def choose(s: GemmSpec) -> QuadTile:
    """The quad tile for `s`: the least modelled time (gathers, swaps, multiply-adds,
    workgroups in waves of `_CORES`, and compiling the unrolled text): large tiles where
    the product is large."""
    u = min(8, s.K)
    tiles = [QuadTile(p, q, qx, qy, u) for p, q in _SHAPES
             for qx, qy in ((4, 4), (2, 4), (4, 2), (2, 2), (1, 4), (4, 1), (1, 2), (2, 1), (1, 1))]
    return min(tiles, key=lambda t: (_cost(s, t), -t.P * t.Q))


def batch_offset(s: GemmSpec, b: str, sb: int, sbo: int) -> str:
    """WGSL: the offset of batch `b` of an operand with batch stride `sb` — or, where the spec's
    batches pair up (`GemmSpec.bi`), strides `sbo` and `sb` of (b / bi, b % bi)."""
    return f"{b} * {sb}u" if s.bi <= 1 else f"({b} / {s.bi}u) * {sbo}u + ({b} % {s.bi}u) * {sb}u"


def b_batch_offset(s: GemmSpec, b: str, sb: int) -> str:
    """`batch_offset` of B' whose flat batch stride is `sb`: packed strips are contiguous over b."""
    return f"{b} * {sb}u" if s.packed else batch_offset(s, b, sb, s.b_sbo)


def build(s: GemmSpec, b_layout: tuple[int, int, int, int], enable: str,
          t: QuadTile | None = None) -> Shader:
    """The quad kernel for `s`; `b_layout` = (offset, batch, strip, k strides) of B' (strips
    `s.nr` wide), `enable` the directive turning subgroups on ('' where the compiler takes
    quad operations without one)."""
    t = t or choose(s)
    b_off, b_sb, b_ss, b_sk = b_layout
    P, Q, U = t.P, t.Q, t.U
    swap_a = P < Q  # swap the operand with fewer values: 3 min(P, Q) swaps per k step
    n_a = s.a_span
    n_b = s.b_span  # (packed: B * K * N8, the strips' whole extent)
    nl = "\n"
    head = [f"  let ra{p} = a_base + min(row0 + {4 * p}u + l, {s.M - 1}u) * {s.a_si}u;" for p in range(P)]
    for q in range(Q):
        head.append(f"  let j{q} = min(col0 + {4 * q}u + l, {s.N8 - 1}u);")
        head.append(f"  let cb{q} = b_base + (j{q} / {s.nr}u) * {b_ss}u + j{q} % {s.nr}u;")
    decl = [f"  var c{p}_{q}_{m} = 0.0;" for p in range(P) for q in range(Q) for m in range(4)]

    def step(u_count: int) -> list[str]:
        lines = []
        for u in range(u_count):
            lines += [f"    let a{u}_{p} = A[ra{p} + (k + {u}u) * {s.a_sk}u];" for p in range(P)]
            lines += [f"    let b{u}_{q} = B[cb{q} + (k + {u}u) * {b_sk}u];" for q in range(Q)]
        for u in range(u_count):
            for v in (range(P) if swap_a else range(Q)):
                name = f"a{u}_{v}" if swap_a else f"b{u}_{v}"
                lines += [f"    let {name}_{m} = {_SWAP[m].format(name)};" for m in (1, 2, 3)]
        for p in range(P):
            for q in range(Q):
                for m in range(4):
                    e = f"c{p}_{q}_{m}"
                    for u in range(u_count):
                        a, b = f"a{u}_{p}", f"b{u}_{q}"
                        if m:
                            a, b = (f"{a}_{m}", b) if swap_a else (a, f"{b}_{m}")
                        e = f"fma({a}, {b}, {e})"
                    lines.append(f"    c{p}_{q}_{m} = {e};")
        return lines

    k_main = s.K - s.K % U
    loops = []
    if k_main:
        loops += [f"  for (var k = 0u; k < {k_main}u; k += {U}u) {{", *step(U), "  }"]
    if k_main < s.K:
        loops += [f"  for (var k = {k_main}u; k < {s.K}u; k++) {{", *step(1), "  }"]
    epi = s.epilogue  # applied as C is stored, N wide (the module doc of compiler/gemm.py)
    width = s.N if epi is not None else s.N8
    n_c = s.B * s.M * width
    exact = s.M % t.BM == 0 and s.N8 % t.BN == 0 and width == s.N8
    store = []
    for p in range(P):
        for q in range(Q):
            for m in range(4):
                r, c = (f"l ^ {m}u", "l") if swap_a else ("l", f"l ^ {m}u")
                row, col = f"row0 + {4 * p}u + ({r})", f"col0 + {4 * q}u + ({c})"
                put = (epilogue_store(epi, f"c{p}_{q}_{m}", "b", row, col, width) if epi is not None else
                       f"C[(b * {s.M}u + {row}) * {width}u + {col}] = c{p}_{q}_{m};")
                store.append(f"  {put}" if exact else f"  if ({row} < {s.M}u && {col} < {width}u) {{ {put} }}")
    n_out = len(epi.outs) if epi is not None else 1  # an epilogue's outputs: C, C1, ..
    more = "".join(f"@group(0) @binding({i}) var<storage, read_write> C{i}: array<f32, {n_c}>;\n" for i in range(1, n_out))
    code = f"""{enable}
@group(0) @binding(0) var<storage, read_write> C: array<f32, {n_c}>;
{more}@group(0) @binding({n_out}) var<storage, read> A: array<f32, {n_a}>;
@group(0) @binding({n_out + 1}) var<storage, read> B: array<f32, {n_b}>;
{epilogue_fn(epi, n_out + 2)}
@compute @workgroup_size({t.threads})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(num_workgroups) nwg: vec3<u32>) {{
  let opq: u32 = nwg.z >> 16u;  // 0 (at most 65535 workgroups per dimension): see wgsl.py
  let l = lane & 3u;
  let qd = lid >> 2u;
  let b = wid.z;
  let row0 = wid.y * {t.BM}u + (qd / {t.QX}u) * {4 * P}u;
  let col0 = wid.x * {t.BN}u + (qd % {t.QX}u) * {4 * Q}u;
  let a_base = {s.a_off}u + {batch_offset(s, "b", s.a_sb, s.a_sbo)};
  let b_base = {b_off}u + {b_batch_offset(s, "b", b_sb)};
{nl.join(head)}
{nl.join(decl)}
{nl.join(loops)}
{nl.join(store)}
}}
"""
    return Shader(code, (-(-s.N8 // t.BN), -(-s.M // t.BM), s.B), n_out, 2 + len(epi.in_dtypes if epi else ()),
                  (4 * n_c,) * n_out)
