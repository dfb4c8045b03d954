"""The GEMM routine (`gemm_f32`) as a shared-memory tiled WGSL kernel with register blocking.

The scheduler (compiler/gemm.py) has already staged A (when it is not a plain
strided read) and packed B into strips `nr` columns wide, and adds an epilogue
kernel when the matmul has one; this program only computes
`C[b, i, j] = sum_k A[b, i, k] B'[b, k, j]` into C rows `N8` apart. The backend
declares `nr` = the tile width BN, so a workgroup's B tile is one strip: rows of BN
contiguous floats, and every column it stores lies inside C's N8-wide rows (only
rows past M and k past K need guards; loads there read 0).

A workgroup of (BN/TN) x (BM/TM) invocations computes a BM x BN tile of C; per step
of BK it copies an A tile (BK x BM, transposed so that a row of the micro-tile is
contiguous) and a B tile (BK x BN) into workgroup memory, then each invocation
accumulates its TM x TN micro-tile in registers from TM + TN loads per k. The
grid is (N8/BN, ceil(M/BM), batch).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...compiler.gemm import GemmSpec
from .codegen import Shader


@dataclass(frozen=True)
class Tiling:
    BM: int = 64
    BN: int = 64
    BK: int = 16
    TM: int = 4
    TN: int = 4

    @property
    def threads(self) -> int:
        return (self.BM // self.TM) * (self.BN // self.TN)


SOFTWARE = Tiling()                                 # lavapipe / SwiftShader: 256 invocations
HARDWARE = Tiling(BM=128, BN=128, BK=8, TM=8, TN=8)  # 128x128 tiles, 8x8 per invocation


def _b_layout(s: GemmSpec, t: Tiling) -> tuple[int, int, int, int]:
    """(offset, batch stride, strip stride, k stride) of B' in elements."""
    if s.packed:
        return 0, s.K * s.N8, s.K * s.nr, s.nr
    return s.b_off, s.b_sb, s.nr, s.b_sk


def build(s: GemmSpec, t: Tiling) -> Shader:
    assert s.nr == t.BN, (s.nr, t.BN)
    n_threads = t.threads
    tx_n = t.BN // t.TN
    a_loads = -(-t.BM * t.BK // n_threads)
    b_loads = -(-t.BK * t.BN // n_threads)
    b_off, b_sb, b_ss, b_sk = _b_layout(s, t)
    code = f"""@group(0) @binding(0) var<storage, read_write> C: array<f32>;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
var<workgroup> As: array<f32, {t.BK * t.BM}>;
var<workgroup> Bs: array<f32, {t.BK * t.BN}>;

@compute @workgroup_size({n_threads})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let b = wid.z;
  let row0 = wid.y * {t.BM}u;
  let strip = wid.x;
  let tx = lid % {tx_n}u;
  let ty = lid / {tx_n}u;
  let a_base = {s.a_off}u + b * {s.a_sb}u;
  let b_base = {b_off}u + b * {b_sb}u + strip * {b_ss}u;
  var acc: array<f32, {t.TM * t.TN}>;
  for (var i = 0u; i < {t.TM * t.TN}u; i++) {{ acc[i] = 0.0; }}
  var a_reg: array<f32, {t.TM}>;
  var b_reg: array<f32, {t.TN}>;
  for (var k0 = 0u; k0 < {s.K}u; k0 += {t.BK}u) {{
    for (var l = 0u; l < {a_loads}u; l++) {{
      let e = lid + l * {n_threads}u;
      if (e < {t.BM * t.BK}u) {{
        let m = e / {t.BK}u;
        let k = e % {t.BK}u;
        let gm = row0 + m;
        let gk = k0 + k;
        var v = 0.0;
        if (gm < {s.M}u && gk < {s.K}u) {{ v = A[a_base + gm * {s.a_si}u + gk * {s.a_sk}u]; }}
        As[k * {t.BM}u + m] = v;
      }}
    }}
    for (var l = 0u; l < {b_loads}u; l++) {{
      let e = lid + l * {n_threads}u;
      if (e < {t.BK * t.BN}u) {{
        let k = e / {t.BN}u;
        let n = e % {t.BN}u;
        let gk = k0 + k;
        var v = 0.0;
        if (gk < {s.K}u) {{ v = B[b_base + gk * {b_sk}u + n]; }}
        Bs[e] = v;
      }}
    }}
    workgroupBarrier();
    for (var k = 0u; k < {t.BK}u; k++) {{
      for (var i = 0u; i < {t.TM}u; i++) {{ a_reg[i] = As[k * {t.BM}u + ty * {t.TM}u + i]; }}
      for (var j = 0u; j < {t.TN}u; j++) {{ b_reg[j] = Bs[k * {t.BN}u + tx * {t.TN}u + j]; }}
      for (var i = 0u; i < {t.TM}u; i++) {{
        for (var j = 0u; j < {t.TN}u; j++) {{
          acc[i * {t.TN}u + j] = fma(a_reg[i], b_reg[j], acc[i * {t.TN}u + j]);
        }}
      }}
    }}
    workgroupBarrier();
  }}
  for (var i = 0u; i < {t.TM}u; i++) {{
    let gm = row0 + ty * {t.TM}u + i;
    if (gm < {s.M}u) {{
      let c = (b * {s.M}u + gm) * {s.N8}u + strip * {t.BN}u + tx * {t.TN}u;
      for (var j = 0u; j < {t.TN}u; j++) {{ C[c + j] = acc[i * {t.TN}u + j]; }}
    }}
  }}
}}
"""
    return Shader(code, (s.N8 // t.BN, -(-s.M // t.BM), s.B), 1, 2, (4 * s.B * s.M * s.N8,))
