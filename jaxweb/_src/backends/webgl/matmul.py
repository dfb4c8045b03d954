"""The GEMM routine (`Routine("gemm_f32", GemmSpec)`) as a tiled fragment shader.

The compiler stages B into strips NR = 4 columns wide (`compiler/gemm.py`), so row k of
a strip is one RGBA32UI texel: a fragment computes one texel of C (4 neighbouring columns
of one row) as a vec4, fetching per step of k one texel of B and — where A's rows are
whole texels (unit stride along k, every offset a multiple of 4) — one texel of A for
four steps. C is stored N8 = ceil(N / 4) * 4 wide; the epilogue (bias, activation,
slicing off the padding) is an ordinary kernel after it.
"""
from __future__ import annotations

from ...compiler.gemm import GemmSpec
from .codegen import Shader, shader_text

NR = 4


def build(spec: GemmSpec) -> Shader:
    if spec.nr != NR or not spec.packed or spec.epilogue is not None:
        raise NotImplementedError(f"webgl gemm: spec {spec} (needs packed strips of {NR}, no epilogue)")
    M, K, strips = spec.M, spec.K, spec.N8 // NR
    # batches in pairs (b / bi, b % bi) where their strides do not flatten (GemmSpec.bi)
    batch = f"b * {spec.a_sb}" if spec.bi <= 1 else f"(b / {spec.bi}) * {spec.a_sbo} + (b % {spec.bi}) * {spec.a_sb}"
    texels = spec.B * M * strips
    body = [f"if (tx >= {texels}) {{ discard; }}",
            f"int b = tx / {M * strips};", f"int i = (tx / {strips}) % {M};", f"int jb = tx % {strips};",
            f"int abase = {spec.a_off} + {batch} + i * {spec.a_si};",
            f"int bb = (b * {strips} + jb) * {K};", "vec4 acc = vec4(0.0);"]
    whole = spec.a_sk == 1 and all(v % 4 == 0 for v in (spec.a_off, spec.a_si, spec.a_sb, spec.a_sbo))
    if whole:
        k4 = K // 4
        body += ["int ab = abase >> 2;",
                 f"for (int k = 0; k < {k4}; k++) {{",
                 "  vec4 a = uintBitsToFloat(texel(t0, ab + k));",
                 "  int kb = bb + 4 * k;",
                 "  acc += a.x * uintBitsToFloat(texel(t1, kb));",
                 "  acc += a.y * uintBitsToFloat(texel(t1, kb + 1));",
                 "  acc += a.z * uintBitsToFloat(texel(t1, kb + 2));",
                 "  acc += a.w * uintBitsToFloat(texel(t1, kb + 3));",
                 "}"]
        start = 4 * k4
    else:
        start = 0
    if start < K:
        body += [f"for (int k = {start}; k < {K}; k++) {{",
                 f"  float a = uintBitsToFloat(word(t0, abase + k * {spec.a_sk}));",
                 "  acc += a * uintBitsToFloat(texel(t1, bb + k));", "}"]
    body.append("o0 = floatBitsToUint(acc);")
    return Shader(shader_text(2, body), 2, texels, texels * 16)
