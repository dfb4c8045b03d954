"""The GEMM routine (`gemm_f32`) as a shared-memory tiled WGSL kernel with register blocking.

The scheduler (compiler/gemm.py) has already staged A (when it is not a plain
strided read) and packed B into strips `nr` columns wide — or, for this kernel (hardware
adapters: `GemmCaps.prologue`), left a short elementwise A or B as an expression it computes
element by element as it fills its tiles (`GemmSpec.a_expr` / `b_expr`: `pro_a`, `pro_b`);
this program computes `C[b, i, j] = sum_k A[b, i, k] B'[b, k, j]` into C rows `N8` apart —
or, when the spec carries the matmul's float32 epilogue (bias, activation, an optimizer's
update: `GemmSpec.epilogue`, which the shared and quad kernels take, with up to 4 outputs), stores `epilogue(C)` N wide through WGSL functions made from it
(codegen.routine_fns), so no epilogue kernel reads C back. The backend
declares `nr` = the tile width BN, so a workgroup's B tile is one strip: rows of BN
contiguous floats, and every column it stores lies inside C's N8-wide rows (only
rows past M and k past K need guards; loads there read 0).

Which kernel runs is the tiling's `kind`: "shared" (this one, hardware adapters), "quad"
(software adapters with subgroups: quadgemm.py) or "direct" (software adapters without).

A workgroup of (BN/TN) x (BM/TM) invocations computes a BM x BN tile of C; per step
of BK it copies an A tile (BK x BM, transposed so that a column of the micro-tile is
contiguous) and a B tile (BK x BN) into workgroup memory, then each invocation
accumulates its TM x TN micro-tile in registers. The micro-tile and the tile copies
are unrolled here, in Python, so that every register index is a constant. The grid
is (N8/BN, ceil(M/BM), batch); a product split over K (`GemmSpec.splits`, hardware
adapters: the tuner's plan) has splits x batch in the last dimension, each workgroup
summing its split's K range into its own partial C (the scheduler's next kernel adds them).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...compiler.gemm import SPLIT_ALIGN, GemmSpec, contiguous_dim, split_kc
from . import quadgemm
from .quadgemm import b_batch_offset, batch_offset
from .codegen import MAX_GRID, Shader, epilogue_store, routine_fns


@dataclass(frozen=True)
class Tiling:
    BM: int = 64
    BN: int = 64
    BK: int = 16
    TM: int = 4
    TN: int = 4
    kind: str = "shared"  # "direct": no workgroup memory, no barriers; "quad": quadgemm.py

    @property
    def threads(self) -> int:
        return (self.BM // self.TM) * (self.BN // self.TN)


#: software adapters (SwiftShader, lavapipe): quads sharing operands where the adapter has
#: subgroups, with B in strips of 8 columns (the tile is chosen per product: quadgemm.choose)
QUAD = Tiling(BM=4, BN=8, BK=1, TM=1, TN=1, kind="quad")
SOFTWARE = Tiling(BM=32, BN=64, BK=1, TM=4, TN=8, kind="direct")  # ... and without subgroups
#: 128x128 tiles, 8x8 per invocation: the first of the tuner's candidates (tuner.py), and
#: what hardware adapters use if tuning fails
HARDWARE = Tiling(BM=128, BN=128, BK=8, TM=8, TN=8)


def _b_layout(s: GemmSpec, t: Tiling) -> tuple[int, int, int, int]:
    """(offset, batch stride, strip stride, k stride) of B' in elements."""
    if s.packed:
        return 0, s.K * s.N8, s.K * s.nr, s.nr
    return s.b_off, s.b_sb, s.nr, s.b_sk


def _build_direct(s: GemmSpec, t: Tiling) -> Shader:
    """Each invocation reads its TM rows of A and TN columns of B' straight from memory (the
    CPU's caches share them): what software adapters run fastest, since a barrier there
    switches between every SIMD group of the workgroup. Operands are read as vec4 where
    their layout is 16-byte aligned: B' rows always (strips are nr wide), A when it is
    row-major with K a multiple of 4 (then k advances by 4) or column-major (TM rows at once)."""
    b_off, b_sb, b_ss, b_sk = _b_layout(s, t)
    vb = t.TN % 4 == 0 and all(v % 4 == 0 for v in (b_off, b_sb, b_ss, b_sk, s.b_sbo))
    va = s.a_sk == 1 and all(v % 4 == 0 for v in (s.K, s.a_si, s.a_off, s.a_sb, s.a_sbo))
    # column-major A (a transposed operand): one vec4 holds TM's rows at one k; rows past M
    # read the next column's values (robust access keeps the last ones in bounds), never stored
    vt = not va and s.a_si == 1 and t.TM == 4 and all(v % 4 == 0 for v in (s.a_sk, s.a_off, s.a_sb, s.a_sbo))
    ku = 4 if va else 1
    rows = [f"  let ra{i} = a_base + min(row + {i}u, M - 1u) * {s.a_si}u;" for i in range(t.TM)]
    step = []
    if vt:
        rows = ["  let ra = a_base + row;"]
        step.append(f"    let av = A[(ra + k * {s.a_sk}u) / 4u];")
        step += [f"    let a{i} = av[{i}];" for i in range(t.TM)]
    for i in range(t.TM if not vt else 0):
        step.append(f"    let a{i} = A[(ra{i} + k) / 4u];" if va else f"    let a{i} = A[ra{i} + k * {s.a_sk}u];")
    for u in range(ku):
        kk = f"(k + {u}u)" if va else "k"
        if vb:
            step += [f"    let b{u}_{q} = B[(rb + {kk} * {b_sk}u) / 4u + {q}u];" for q in range(t.TN // 4)]
            bval = [f"b{u}_{j // 4}[{j % 4}]" for j in range(t.TN)]
        else:
            step += [f"    let b{u}_{j} = B[rb + {kk} * {b_sk}u + {j}u];" for j in range(t.TN)]
            bval = [f"b{u}_{j}" for j in range(t.TN)]
        aval = [f"a{i}[{u}]" if va else f"a{i}" for i in range(t.TM)]
        step += [f"    c{i}_{j} = fma({aval[i]}, {bval[j]}, c{i}_{j});" for i in range(t.TM) for j in range(t.TN)]
    decl = [f"  var c{i}_{j} = 0.0;" for i in range(t.TM) for j in range(t.TN)]
    store = []
    for i in range(t.TM):
        store.append(f"  if (row + {i}u < M) {{")
        store.append(f"    let c = (b * M + row + {i}u) * N8 + col;")
        store += [f"    C[c + {j}u] = c{i}_{j};" for j in range(t.TN)]
        store.append("  }")
    nl = "\n"
    code = f"""@group(0) @binding(0) var<storage, read_write> C: array<f32>;
@group(0) @binding(1) var<storage, read> A: array<{'vec4<f32>' if va or vt else 'f32'}>;
@group(0) @binding(2) var<storage, read> B: array<{'vec4<f32>' if vb else 'f32'}>;
const M = {s.M}u;
const K = {s.K}u;
const N8 = {s.N8}u;

@compute @workgroup_size({t.threads})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let b = wid.z;
  let strip = wid.x;
  let row = wid.y * {t.BM}u + (lid / {t.BN // t.TN}u) * {t.TM}u;
  let col = strip * {t.BN}u + (lid % {t.BN // t.TN}u) * {t.TN}u;
  let a_base = {s.a_off}u + {batch_offset(s, "b", s.a_sb, s.a_sbo)};
  let rb = {b_off}u + {b_batch_offset(s, "b", b_sb)} + strip * {b_ss}u + (lid % {t.BN // t.TN}u) * {t.TN}u;
{nl.join(rows)}
{nl.join(decl)}
  for (var k = 0u; k < K; k += {ku}u) {{
{nl.join(step)}
  }}
{nl.join(store)}
}}
"""
    return Shader(code, (s.N8 // t.BN, -(-s.M // t.BM), s.B), 1, 2, (4 * s.B * s.M * s.N8,))


def build(s: GemmSpec, t: Tiling, subgroups: str | None = None) -> Shader:
    """The GEMM kernel of tiling `t` for `s`; `subgroups` is the directive enabling them
    (the backend's), needed by the quad kernel."""
    assert s.nr == t.BN, (s.nr, t.BN)
    assert t.kind == "shared" or s.a_expr is None and s.b_expr is None, "only the shared-memory kernel has prologues"
    assert s.splits == 1 or t.kind == "shared", "only the shared-memory kernel splits K"
    if t.kind == "quad":
        assert subgroups is not None, "the quad GEMM needs subgroups"
        return _over_batches(quadgemm.build(s, _b_layout(s, t), subgroups))
    if t.kind == "direct":
        assert s.epilogue is None, "the direct GEMM kernel applies no epilogue"
        return _over_batches(_build_direct(s, t))
    return _over_batches(_build_shared(s, t))


def _over_batches(sh: Shader) -> Shader:
    """`sh` (its batch `b = wid.z`) for a batch past a grid dimension's limit: each workgroup
    then loops over the batches MAX_GRID apart."""
    batch = sh.grid[2]
    if batch <= MAX_GRID:
        return sh
    head, rest = sh.code.split("  let b = wid.z;\n", 1)
    body, tail = rest.rsplit("}\n", 1)  # the entry point's closing brace
    code = f"{head}  for (var b = wid.z; b < {batch}u; b += {MAX_GRID}u) {{\n{body}  }}\n}}\n{tail}"
    return dataclasses.replace(sh, code=code, grid=(sh.grid[0], sh.grid[1], MAX_GRID))


def split_from_grid(s: GemmSpec) -> bool:
    """Whether the shared kernel of `s` split K reads the split count from its grid, the same
    code for every count up to MAX_SPLITS_GRID (one pipeline serves them all: `_build_shared`),
    as it does unless its grid's z could pass its limit (then it loops: `_over_batches`)."""
    return s.splits <= MAX_SPLITS_GRID and MAX_SPLITS_GRID * s.B <= MAX_GRID


MAX_SPLITS_GRID = 64  # split counts that share a product's pipeline (the plan's go to tuner.MAX_SPLITS, 16)


def _build_shared(s: GemmSpec, t: Tiling) -> Shader:
    """The shared-memory kernel of hardware adapters, moving vec4s everywhere: tiles are
    loaded as vec4 where the operands' layout is 16-byte aligned (else element by element),
    workgroup memory is read as vec4 and C stored as vec4. An invocation's TM rows are TM/4
    groups of 4 rows, BM/(TM/4) apart (its TN columns likewise), so that neighbouring
    invocations read neighbouring vec4s of a tile: no bank conflicts, and a k step costs
    TM/4 + TN/4 loads for TM*TN multiply-adds."""
    assert t.TM % 4 == 0 and t.TN % 4 == 0, t
    n = t.threads
    tx_n, ty_n = t.BN // t.TN, t.BM // t.TM
    gm, gn = t.TM // 4, t.TN // 4
    b_off, b_sb, b_ss, b_sk = _b_layout(s, t)
    pa, pb = s.a_expr is not None, s.b_expr is not None  # operands computed as loaded (prologues)
    vb = not pb and all(v % 4 == 0 for v in (b_off, b_sb, b_ss, b_sk, s.b_sbo))
    va = not pa and s.a_sk == 1 and t.BK % 4 == 0 and all(v % 4 == 0 for v in (s.K, s.a_si, s.a_off, s.a_sb, s.a_sbo))
    vt = not pa and not va and s.a_si == 1 and all(v % 4 == 0 for v in (s.a_sk, s.a_off, s.a_sb, s.a_sbo))
    at = "i32(bi), " if s.B > 1 and s.splits > 1 else "i32(b), " if s.B > 1 else ""  # a prologue's batch index
    if pa:  # element by element, walking the tile in the order its loads are contiguous in
        a_count = t.BM * t.BK
        m_kk = (f"e % {t.BM}u", f"e / {t.BM}u") if contiguous_dim(s.a_expr) == -2 else (f"e / {t.BK}u", f"e % {t.BK}u")
        a_one = (f"      let m = {m_kk[0]};\n      let kk = {m_kk[1]};\n      var v = 0.0;\n"
                 f"      if (row0 + m < M && k0 + kk < K) {{ v = pro_a({at}i32(row0 + m), i32(k0 + kk), opq); }}\n"
                 f"      As[(kk * {t.BM}u + m) / 4u][m % 4u] = v;\n")
    elif va:
        kq = t.BK // 4
        a_count = t.BM * kq
        a_one = (f"      let m = e / {kq}u;\n      let kk = (e % {kq}u) * 4u;\n      var v = vec4<f32>();\n"
                 f"      if (row0 + m < M && k0 + kk < K) {{ v = A[(a_base + (row0 + m) * {s.a_si}u + k0 + kk) / 4u]; }}\n"
                 + "".join(f"      As[((kk + {r}u) * {t.BM}u + m) / 4u][m % 4u] = v[{r}];\n" for r in range(4)))
    elif vt:
        # column-major A (a transposed operand: an MLP's weight gradient x^T g): neighbouring
        # invocations read 4 neighbouring rows at one k as a vec4 (coalesced), stored whole; rows
        # past M read the next column's values (robust access keeps the last ones in bounds),
        # never stored
        mq = t.BM // 4
        a_count = mq * t.BK
        a_one = (f"      let m = (e % {mq}u) * 4u;\n      let kk = e / {mq}u;\n      var v = vec4<f32>();\n"
                 f"      if (row0 + m < M && k0 + kk < K) {{ v = A[(a_base + row0 + m + (k0 + kk) * {s.a_sk}u) / 4u]; }}\n"
                 f"      As[(kk * {t.BM}u + m) / 4u] = v;\n")
    elif s.a_si == 1:  # column-major, unaligned: still rows fastest, element by element
        a_count = t.BM * t.BK
        a_one = (f"      let m = e % {t.BM}u;\n      let kk = e / {t.BM}u;\n      var v = 0.0;\n"
                 f"      if (row0 + m < M && k0 + kk < K) {{ v = A[a_base + row0 + m + (k0 + kk) * {s.a_sk}u]; }}\n"
                 f"      As[(kk * {t.BM}u + m) / 4u][m % 4u] = v;\n")
    else:
        a_count = t.BM * t.BK
        a_one = (f"      let m = e / {t.BK}u;\n      let kk = e % {t.BK}u;\n      var v = 0.0;\n"
                 f"      if (row0 + m < M && k0 + kk < K) {{ v = A[a_base + (row0 + m) * {s.a_si}u + (k0 + kk) * {s.a_sk}u]; }}\n"
                 f"      As[(kk * {t.BM}u + m) / 4u][m % 4u] = v;\n")
    bq = t.BN // 4
    if pb:  # likewise; columns past N read 0
        b_count = t.BK * t.BN
        kk_n = (f"e % {t.BK}u", f"e / {t.BK}u") if contiguous_dim(s.b_expr) == -2 else (f"e / {t.BN}u", f"e % {t.BN}u")
        b_one = (f"      let kk = {kk_n[0]};\n      let n = {kk_n[1]};\n      var v = 0.0;\n"
                 f"      if (k0 + kk < K && strip * {t.BN}u + n < {s.N}u) {{ "
                 f"v = pro_b({at}i32(k0 + kk), i32(strip * {t.BN}u + n), opq); }}\n"
                 f"      Bs[(kk * {t.BN}u + n) / 4u][n % 4u] = v;\n")
    elif vb:
        b_count = t.BK * bq
        b_one = (f"      var v = vec4<f32>();\n"
                 f"      if (k0 + e / {bq}u < K) {{ v = B[(b_base + (k0 + e / {bq}u) * {b_sk}u) / 4u + e % {bq}u]; }}\n"
                 f"      Bs[e] = v;\n")
    else:
        b_count = t.BK * t.BN
        b_one = (f"      var v = 0.0;\n"
                 f"      if (k0 + e / {t.BN}u < K) {{ v = B[b_base + (k0 + e / {t.BN}u) * {b_sk}u + e % {t.BN}u]; }}\n"
                 f"      Bs[e / 4u][e % 4u] = v;\n")
    tiles = [f"    {{\n      let e = lid + {l * n}u;\n{one}    }}" if (l + 1) * n <= count else
             f"    if (lid + {l * n}u < {count}u) {{\n      let e = lid + {l * n}u;\n{one}    }}"
             for count, one in ((a_count, a_one), (b_count, b_one)) for l in range(-(-count // n))]
    decl = [f"  var c{i}_{q} = vec4<f32>();" for i in range(t.TM) for q in range(gn)]
    step = [f"      let a{p} = As[k * {t.BM // 4}u + {p * ty_n}u + ty];" for p in range(gm)]
    step += [f"      let b{q} = Bs[k * {bq}u + {q * tx_n}u + tx];" for q in range(gn)]
    step += [f"      c{p * 4 + r}_{q} = fma(vec4<f32>(a{p}[{r}]), b{q}, c{p * 4 + r}_{q});"
             for p in range(gm) for r in range(4) for q in range(gn)]
    epi = s.epilogue  # applied as C is stored, element by element, N wide (compiler/gemm.py)
    assert s.splits == 1 or (epi is None and s.kc % t.BK == 0 and s.kc == split_kc(s.K, s.splits)), s
    # split K: workgroup z = split * B + batch; the split's range [k_lo, k_hi) is whole tiles
    # (kc a multiple of BK) and C's "batch" index b is the partial's, (splits, B) flattened.
    # The count is read from the grid (gemm.split_kc of it is the spec's kc), so one pipeline
    # serves every split count of a product (the planner times them all on it) — unless the
    # grid's z is past its limit and loops (`_over_batches`): then kc is a constant
    if s.splits > 1 and split_from_grid(s):
        kc = (f"  let splits = nwg.z / {s.B}u;\n"
              f"  let kc = ((K + splits - 1u) / splits + {SPLIT_ALIGN - 1}u) / {SPLIT_ALIGN}u * {SPLIT_ALIGN}u;\n")
    else:
        kc = f"  let kc = {s.kc}u;\n"
    split = (f"  let bi = b % {s.B}u;\n{kc}  let k_lo = (b / {s.B}u) * kc;\n"
             f"  let k_hi = min(K, k_lo + kc);\n") if s.splits > 1 else ""
    bi, k_lo, k_hi = ("bi", "k_lo", "k_hi") if s.splits > 1 else ("b", "0u", "K")
    store = []
    for p in range(gm):
        for r in range(4):
            row = f"row0 + {p * 4 * ty_n}u + ty * 4u + {r}u"
            store.append(f"  if ({row} < M) {{")
            if epi is None:
                store.append(f"    let c = ((b * M + {row}) * N8 + strip * {t.BN}u + tx * 4u) / 4u;")
                store += [f"    C[c + {q * tx_n}u] = c{p * 4 + r}_{q};" for q in range(gn)]
            else:
                for q in range(gn):
                    store.append(f"    let col{q} = strip * {t.BN}u + tx * 4u + {q * tx_n * 4}u;")
                    store += [f"    if (col{q} + {j}u < {s.N}u) {{ "
                              f"{epilogue_store(epi, f'c{p * 4 + r}_{q}[{j}]', 'b', row, f'col{q} + {j}u', s.N)} }}"
                              for j in range(4)]
            store.append("  }")
    nl = "\n"
    n_out = len(epi.outs) if epi is not None else 1  # an epilogue's outputs: C, C1, ..
    operands = ([f"A: array<{'vec4<f32>' if va or vt else 'f32'}>"] * (not pa)
                + [f"B: array<{'vec4<f32>' if vb else 'f32'}>"] * (not pb))
    binds = "".join(f"@group(0) @binding({i}) var<storage, read_write> C{i}: array<f32>;\n" for i in range(1, n_out))
    binds += "".join(f"@group(0) @binding({n_out + i}) var<storage, read> {o};\n" for i, o in enumerate(operands))
    code = f"""@group(0) @binding(0) var<storage, read_write> C: array<{'vec4<f32>' if epi is None else 'f32'}>;
{binds}{routine_fns(s.extra_dtypes, n_out + len(operands), pro_a=s.a_expr, pro_b=s.b_expr, epi=epi)}
var<workgroup> As: array<vec4<f32>, {t.BK * t.BM // 4}>;
var<workgroup> Bs: array<vec4<f32>, {t.BK * bq}>;
const M = {s.M}u;
const K = {s.K}u;
const N8 = {s.N8}u;

@compute @workgroup_size({n})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {{
  let opq: u32 = nwg.z >> 16u;  // 0 (at most 65535 workgroups per dimension): see wgsl.py
  let b = wid.z;
  let row0 = wid.y * {t.BM}u;
  let strip = wid.x;
  let tx = lid % {tx_n}u;
  let ty = lid / {tx_n}u;
{split}  let a_base = {s.a_off}u + {batch_offset(s, bi, s.a_sb, s.a_sbo)};
  let b_base = {b_off}u + {b_batch_offset(s, bi, b_sb)} + strip * {b_ss}u;
{nl.join(decl)}
  for (var k0 = {k_lo}; k0 < {k_hi}; k0 += {t.BK}u) {{
{nl.join(tiles)}
    workgroupBarrier();
    for (var k = 0u; k < {t.BK}u; k++) {{
{nl.join(step)}
    }}
    workgroupBarrier();
  }}
{nl.join(store)}
}}
"""
    return Shader(code, (s.N8 // t.BN, -(-s.M // t.BM), s.splits * s.B), n_out, len(operands) + len(s.extra_dtypes),
                  (4 * s.splits * s.B * s.M * (s.N8 if epi is None else s.N),) * n_out)

