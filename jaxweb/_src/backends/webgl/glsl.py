"""Kernel IR expressions -> GLSL ES 3.00 statements, one local per node, from the op tables
the webgpu device uses too (backends/gpu/ops.py: `GLSL` below spells them).

Every buffer is an RGBA32UI texture of u32 words (js_shim/webgl.mjs), so that bool and the
8/16-bit dtypes are stored packed exactly as on the webgpu device, and floats cross as
their bits (`uintBitsToFloat`/`floatBitsToUint`: NaN payloads and -0 survive, which a
float texture would not promise). Values are computed in GLSL's 32-bit types (`float`,
`int`, `uint`, `bool`); narrow integers are re-normalized after every op that can leave
their range, float16/bfloat16 results are rounded to their format after every op (both
written out in integer arithmetic: GLSL leaves packHalf2x16's rounding open). 64-bit and
complex dtypes have no GLSL type: `check_dtype` raises a TypeError pointing at wasm.

Semantics follow the reference backend, as the shared tables write them:
integer x/0 = -1 (all ones unsigned), x%0 = x, shifts by >= the width give 0 (or the
sign), NaN-propagating max/min, round half away from zero, saturating float->int casts
with NaN -> 0. GLSL ES 3.00 leaves more open than WGSL, so here also: `%` of negative
ints is written as a - b (a / b); NaN tests look at bits (isnan may be folded away);
float constants, sums, differences and products pass through `opq` (a uniform that is
always 0) so the driver can neither constant-fold IEEE special cases nor contract
a * b + c into an fma (the shared compensated expansions need the rounding as written).
GLSL ES 3.00 has no fma, ldexp, bitCount or findMSB: helpers below do without.

Transcendentals: exp, expm1, log, tanh, logistic, erf, erfc, log1p, erf_inv, lgamma,
digamma, nextafter, rsqrt and integer pow come from the same IR expansions as on webgpu
(`webgpu.wgsl.expand`: mathlib.fast32, webgpu.math32); sin, cos, tan (Cody-Waite and
Payne-Hanek reduction, short polynomials), asin, acos, atan, atan2 and pow are the webgpu
device's algorithms written in GLSL (without fma: ~1 ulp more; tests/test_webgl.py
measures each on SwiftShader); sinh, cosh, asinh, acosh, atanh, exp2, cbrt and sqrt are
GLSL builtins made NaN- and signed-zero-safe (ES 3.00 promises little: see the README).
"""
from __future__ import annotations

import re

from ...compiler.mathlib.constants import two_over_pi_limbs
from ..gpu.ops import Dialect

# ---------------------------------------------------------------- helpers, included as used
# name -> code; each is emitted (in this order) when its name appears in a shader or helper.
_HELPERS: dict[str, str] = {}


def _helper(name: str, code: str) -> None:
    _HELPERS[name] = code


_helper("is_nan", "bool is_nan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }")
_helper("pick", "\n".join(f"{t} pick(bool c, {t} a, {t} b) {{ return c ? a : b; }}"
                          for t in ("float", "int", "uint", "bool")))
_helper("any_nan", """bool any_nan(float a, float b) {
  return max(floatBitsToUint(a) & 0x7fffffffu, floatBitsToUint(b) & 0x7fffffffu) > 0x7f800000u;
}""")
_helper("is_fin", "bool is_fin(float x) { return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u; }")
_helper("keep", "float keep(float x) { return uintBitsToFloat(floatBitsToUint(x) ^ opq); }")
_helper("bf16r", """float bf16r(float x) {
  uint u = floatBitsToUint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uintBitsToFloat(u | 0x00400000u);
  return uintBitsToFloat((u + 0x7fffu + ((u >> 16u) & 1u)) & 0xffff0000u);
}""")
_helper("f16r", """float f16r(float x) {
  uint u = floatBitsToUint(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  float a = abs(x);
  if (a >= 65520.0) return x > 0.0 ? uintBitsToFloat(0x7f800000u) : uintBitsToFloat(0xff800000u);
  if (a < 6.103515625e-05) return keep(roundEven(keep(x * 16777216.0)) * 5.9604644775390625e-08);
  return uintBitsToFloat((u + 0xfffu + ((u >> 13u) & 1u)) & 0xffffe000u);
}""")
_helper("f16_bits", """uint f16_bits(float x) {
  uint u = floatBitsToUint(x);
  uint s = (u >> 16u) & 0x8000u;
  uint m = u & 0x7fffffffu;
  if (m > 0x7f800000u) return s | 0x7e00u | ((m >> 13u) & 0x3ffu);
  if (m == 0x7f800000u) return s | 0x7c00u;
  if (m < 0x38800000u) return s | uint(abs(x) * 16777216.0);
  return s | (((m >> 23u) - 112u) << 10u) | ((m >> 13u) & 0x3ffu);
}""")
_helper("f16_val", """float f16_val(uint b) {
  uint s = (b & 0x8000u) << 16u;
  uint e = (b >> 10u) & 0x1fu;
  uint m = b & 0x3ffu;
  if (e == 0u) { float v = float(m) * 5.9604644775390625e-08; return s != 0u ? -v : v; }
  if (e == 31u) return uintBitsToFloat(s | 0x7f800000u | (m << 13u));
  return uintBitsToFloat(s | ((e + 112u) << 23u) | (m << 13u));
}""")
_helper("round_away", "float round_away(float x) { float t = trunc(x); return abs(x - t) >= 0.5 ? t + sign(x) : t; }")
_helper("clz32", """uint clz32(uint x) {
  if (x == 0u) return 32u;
  uint n = 0u;
  if ((x & 0xffff0000u) == 0u) { n += 16u; x <<= 16u; }
  if ((x & 0xff000000u) == 0u) { n += 8u; x <<= 8u; }
  if ((x & 0xf0000000u) == 0u) { n += 4u; x <<= 4u; }
  if ((x & 0xc0000000u) == 0u) { n += 2u; x <<= 2u; }
  if ((x & 0x80000000u) == 0u) { n += 1u; }
  return n;
}""")
_helper("popc32", """uint popc32(uint x) {
  x = x - ((x >> 1u) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2u) & 0x33333333u);
  x = (x + (x >> 4u)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24u;
}""")
_helper("pow2i", "float pow2i(int e) { return uintBitsToFloat(uint(clamp(e, -126, 127) + 127) << 23u); }")
_helper("ldexp_", "float ldexp_(float x, int e) { int h = e / 2; return x * pow2i(h) * pow2i(e - h); }")
_helper("copysign_", """float copysign_(float v, float s) {
  return uintBitsToFloat((floatBitsToUint(v) & 0x7fffffffu) | (floatBitsToUint(s) & 0x80000000u));
}""")
_helper("mul32", """uvec2 mul32(uint a, uint b) {
  uint al = a & 0xffffu; uint ah = a >> 16u; uint bl = b & 0xffffu; uint bh = b >> 16u;
  uint ll = al * bl; uint lh = al * bh; uint hl = ah * bl;
  uint mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  return uvec2(ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u), (ll & 0xffffu) | (mid << 16u));
}""")
_helper("hi_shl", "uint hi_shl(uint h, uint l, uint s) { return s == 0u ? h : (h << s) | (l >> (32u - s)); }")
_helper("u64_f32", """float u64_f32(uint h, uint l, int e) {
  uint z = h == 0u ? 32u + clz32(l) : clz32(h);
  uint sig = z >= 32u ? l << (z - 32u) : hi_shl(h, l, z);
  uint top = sig >> 8u;
  uint rest = (sig & 0xffu) | ((z < 32u && (l << z) != 0u) ? 1u : 0u);
  bool up = rest > 0x80u || (rest == 0x80u && (top & 1u) == 1u);
  return ldexp_(float(top + (up ? 1u : 0u)), e + 40 - int(z));
}""")
_helper("trig_big", """vec2 trig_big(float x) {
  uint t[8] = uint[8]({TWO_OVER_PI});
  uint u = floatBitsToUint(x);
  uint m = (u & 0x7fffffu) | 0x800000u;
  uint s = ((u >> 23u) & 0xffu) - 120u;
  uint j = s >> 5u; uint b = s & 31u;
  uvec2 p0 = mul32(m, hi_shl(t[j], t[j + 1u], b));
  uvec2 p1 = mul32(m, hi_shl(t[j + 1u], t[j + 2u], b));
  uvec2 p2 = mul32(m, hi_shl(t[j + 2u], t[j + 3u], b));
  uint r1 = p2.x + p1.y;
  uint r0 = p1.x + p0.y + (r1 < p1.y ? 1u : 0u);
  uint q = r0 >> 30u;
  uint fh = (r0 << 2u) | (r1 >> 30u);
  uint fl = (r1 << 2u) | (p2.y >> 30u);
  bool neg = fh >= 0x80000000u;
  if (neg) { q += 1u; fl = 0u - fl; fh = ~fh + (fl == 0u ? 1u : 0u); }
  uvec2 a = mul32(fh, 0xc90fdaa2u);
  uvec2 c = mul32(fl, 0xc90fdaa2u);
  uint mid = a.y + c.x;
  uint top = a.x + (mid < a.y ? 1u : 0u);
  float r = (top == 0u && mid == 0u) ? 0.0 : u64_f32(top, mid, -63);
  r = (neg != (x < 0.0)) ? -r : r;
  return vec2(r, float((x < 0.0 ? 4u - q : q) & 3u));
}""".replace("{TWO_OVER_PI}", ", ".join(f"0x{w:08x}u" for w in two_over_pi_limbs(32, 8))))
_helper("trig_red", """vec2 trig_red(float x) {
  if (abs(x) >= 16384.0) return trig_big(x);
  float q = roundEven(keep(x * 0.63661977236758134));
  float qh = keep(trunc(q * 0.000244140625) * 4096.0);
  float ql = keep(q - qh);
  float r = keep(x - keep(qh * 1.5703125));
  r = keep(r - keep(ql * 1.5703125));
  r = keep(r - keep(qh * 0.0004837512969970703));
  r = keep(r - keep(ql * 0.0004837512969970703));
  r = keep(r - keep(qh * 7.549533620476723e-08));
  r = keep(r - keep(ql * 7.549533620476723e-08));
  r = r - q * 2.5633440682570896e-12;
  if (abs(r) > 0.78539816) {
    float s = sign(r);
    r = (r - s * 1.5707963705062866) + s * 4.371138828673793e-08;
    return vec2(r, q + s);
  }
  return vec2(r, q);
}""")
_helper("sin_poly", """float sin_poly(float r) {
  float z = r * r;
  return r * z * ((z * -1.9515295891e-4 + 8.3321608736e-3) * z - 1.6666654611e-1) + r;
}""")
_helper("cos_poly", """float cos_poly(float r) {
  float z = r * r;
  return z * z * ((z * 2.443315711809948e-5 - 1.388731625493765e-3) * z + 4.166664568298827e-2) + (1.0 - 0.5 * z);
}""")
_helper("sin_q", """float sin_q(float x, int shift) {
  if (!is_fin(x)) return uintBitsToFloat(0x7fc00000u);
  vec2 t = trig_red(x);
  int q = (int(t.y) + shift) & 3;
  float v = (q & 1) == 1 ? cos_poly(t.x) : sin_poly(t.x);
  return q >= 2 ? -v : v;
}""")
_helper("tan_", """float tan_(float x) {
  if (!is_fin(x)) return uintBitsToFloat(0x7fc00000u);
  vec2 t = trig_red(x);
  float s = sin_poly(t.x);
  float c = cos_poly(t.x);
  return (int(t.y) & 1) == 1 ? -c / s : s / c;
}""")
_helper("asin_", """float asin_(float x) {
  float a = abs(x);
  if (a > 1.0) return uintBitsToFloat(0x7fc00000u);
  bool big = a > 0.5;
  float z = big ? 0.5 * (1.0 - a) : a * a;
  float t = big ? sqrt(z) : a;
  float p = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z
             + 1.6666752422e-1) * z * t + t;
  return copysign_(big ? 1.57079632679490 - (p + p) : p, x);
}""")
_helper("acos_", """float acos_(float x) {
  if (x < -0.5) return 3.14159265358979 - 2.0 * asin_(sqrt(0.5 * (1.0 + x)));
  if (x > 0.5) return 2.0 * asin_(sqrt(0.5 * (1.0 - x)));
  return 1.57079632679490 - asin_(x);
}""")
_helper("atan_", """float atan_(float x) {
  float a = abs(x);
  float y = 0.0;
  float t = a;
  if (a > 2.414213562373095) { y = 1.57079632679490; t = -1.0 / a; }
  else if (a > 0.4142135623730950) { y = 0.78539816339745; t = (a - 1.0) / (a + 1.0); }
  float z = t * t;
  float p = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * t + t;
  return copysign_(y + p, x);
}""")
_helper("atan2_", """float atan2_(float y, float x) {
  if (is_nan(x) || is_nan(y)) return x + y;
  float pi = 3.14159265358979;
  bool x_neg = (floatBitsToUint(x) >> 31u) == 1u;
  if (y == 0.0) return x_neg ? copysign_(pi, y) : y;
  if (!is_fin(x)) {
    if (!is_fin(y)) return copysign_(x_neg ? 2.35619449019234 : 0.78539816339745, y);
    return copysign_(x_neg ? pi : 0.0, y);
  }
  if (!is_fin(y) || x == 0.0) return copysign_(1.57079632679490, y);
  float a = atan_(abs(y) / abs(x));
  return copysign_(x_neg ? pi - a : a, y);
}""")
_helper("pow_", """float pow_(float a, float b) {
  if (b == 0.0 || a == 1.0) return 1.0;
  if (is_nan(a) || is_nan(b)) return a + b;
  float inf = uintBitsToFloat(0x7f800000u);
  float ax = abs(a);
  if (!is_fin(b)) return ax == 1.0 ? 1.0 : (((ax > 1.0) == (b > 0.0)) ? inf : 0.0);
  bool odd = abs(b) < 16777216.0 && trunc(b) == b && (int(abs(b)) & 1) == 1;
  if (a == 0.0 || !is_fin(a)) {
    float r = ((b < 0.0) == (a == 0.0)) ? inf : 0.0;
    return odd ? copysign_(r, a) : r;
  }
  if (a < 0.0 && trunc(b) != b) return uintBitsToFloat(0x7fc00000u);
  float m = exp2(b * log2(ax));
  return (a < 0.0 && odd) ? -m : m;
}""")

_helper("acosh_", "float acosh_(float x) { return x < 1.0 ? uintBitsToFloat(0x7fc00000u) : acosh(x); }")
_helper("atanh_", """float atanh_(float x) {
  float a = abs(x);
  if (a > 1.0) return uintBitsToFloat(0x7fc00000u);
  return a == 1.0 ? copysign_(uintBitsToFloat(0x7f800000u), x) : atanh(x);
}""")

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def helpers_for(code: str) -> str:
    """The helper functions `code` calls (and theirs), in dependency order."""
    need: list[str] = []
    seen: set[str] = set()

    def visit(text: str) -> None:
        for w in dict.fromkeys(_WORD.findall(text)):
            if w in _HELPERS and w not in seen:
                seen.add(w)
                visit(_HELPERS[w])
                need.append(w)
    visit(code)
    return "\n".join(_HELPERS[n] for n in need)


# ---------------------------------------------------------------- the op tables' spellings
class GLSL(Dialect):
    """GLSL ES 3.00's spellings of the shared op tables (backends/gpu/ops.py)."""

    device, lang = "webgl", "GLSL ES"
    F, I, U = "float", "int", "uint"
    popcount, clz = "popc32", "clz32"

    def unary(self) -> dict:
        m = self._math
        return {"round_even": self._builtin("roundEven"), "sqrt": self._sqrt, "sin": m("sin_q({a}, 0)", True),
                "cos": m("sin_q({a}, 1)"), "tan": m("tan_({a})", True), "acosh": m("acosh_({a})"),
                "atanh": m("atanh_({a})", True)}

    def _sqrt(self, a, dt):  # sqrt(-0) = -0, NaN for negatives (GLSL leaves both open)
        return self.fix(self.sel(self.either(f"{a} == 0.0", f"is_nan({a})"), a,
                                 self.sel(f"{a} < 0.0", "uintBitsToFloat(0x7fc00000u)", f"sqrt({a})")), dt)

    def _minmax(self, fn: str):
        """NaN wins, selected by `mix` (both sides computed): ANGLE turns a `?:` whose operands
        are expressions into if/else, and SwiftShader's JIT stalled (minutes) on a chain of
        such NaN-max branches (an 8-element associative_scan of maximum)."""
        shared = super()._minmax(fn)

        def rule(a, b, dt):
            if dt.kind != "f":
                return shared(a, b, dt)
            return f"mix({fn}({a}, {b}), {a} + {b}, any_nan({a}, {b}))"
        return rule

    def _cmp(self, sym: str):
        """Float comparisons false (`!=` true) with a NaN, tested by bits and combined without
        `&&`/`||`: ANGLE unfolds a short-circuit operator whose right side calls a function into
        if/else (the branches `sel` avoids)."""
        shared = super()._cmp(sym)

        def rule(a, b, dt):
            if dt.kind != "f":
                return shared(a, b, dt)
            if sym == "!=":
                return self.either(f"{a} != {b}", f"any_nan({a}, {b})")
            return self.both(f"{a} {sym} {b}", f"!any_nan({a}, {b})")
        return rule

    def either(self, a, b):  # no short-circuit: see _cmp
        return f"any(bvec2({a}, {b}))"

    def both(self, a, b):
        return f"all(bvec2({a}, {b}))"

    def sel(self, c, t, f):
        """`pick(c, t, f)`: both operands are evaluated as arguments, and the `?:` inside has
        names for operands. ANGLE turns a `?:` whose operands are expressions into if/else,
        and SwiftShader's JIT stalled for minutes on kernels of many such branches with
        repeated conditions (threefry's 40 guarded shifts by runtime amounts)."""
        return f"pick({c}, {t}, {f})"

    def declare(self, v, t, text):
        return f"{t} {v} = {text};"

    def as_type(self, t, x):
        return f"{t}({x})"

    def float_bits(self, x):
        return f"floatBitsToUint({x})"

    def bits_float(self, u):
        return f"uintBitsToFloat({u})"

    def float_literal(self, bits):
        return f"uintBitsToFloat({bits})"

    def int_literal(self, v):
        return str(v) if v >= 0 else f"int({v & 0xffffffff}u)"

    def keep(self, x):
        return f"keep({x})"

    def f16_bits(self, x):
        return f"f16_bits({x})"

    def f16_value(self, u):
        return f"f16_val({u})"

    def narrow(self, text, s):
        return f"((({text}) << {s}u) >> {s}u)"

    def quotient(self, a, b, dt):  # GLSL ES leaves INT_MIN / -1 open: it wraps here
        q = super().quotient(a, b, dt)
        return q if self.TYPE[dt.name] == "uint" else self.sel(f"{b} == -1", f"0 - {a}", q)


_G = GLSL()
TYPE, BINARY, UNARY = _G.TYPE, _G.BINARY, _G.UNARY
check_dtype, ty, width, const_text, fix = _G.check_dtype, _G.ty, _G.width, _G.const_text, _G.fix
bits_of, from_bits, part_text, op_text, sel = _G.bits_of, _G.from_bits, _G.part_text, _G.op_text, _G.sel
