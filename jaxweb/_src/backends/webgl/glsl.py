"""Kernel IR expressions -> GLSL ES 3.00 statements, one local per node, from tables.

Every buffer is an RGBA32UI texture of u32 words (js_shim/webgl.mjs), so that bool and the
8/16-bit dtypes are stored packed exactly as on the webgpu device, and floats cross as
their bits (`uintBitsToFloat`/`floatBitsToUint`: NaN payloads and -0 survive, which a
float texture would not promise). Values are computed in GLSL's 32-bit types (`float`,
`int`, `uint`, `bool`); narrow integers are re-normalized after every op that can leave
their range, float16/bfloat16 results are rounded to their format after every op (both
written out in integer arithmetic: GLSL leaves packHalf2x16's rounding open). 64-bit and
complex dtypes have no GLSL type: `check_dtype` raises a TypeError pointing at wasm.

Semantics follow the reference backend, as the WGSL tables (webgpu/wgsl.py) spell them:
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
import struct

from ... import dtypes
from ...compiler import expr as E
from ...compiler.mathlib.constants import two_over_pi_limbs
from ...dtypes import DType

TYPE = {"float32": "float", "float16": "float", "bfloat16": "float", "int32": "int", "int16": "int",
        "int8": "int", "uint32": "uint", "uint16": "uint", "uint8": "uint", "bool": "bool"}
BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16}


def check_dtype(dt: DType, what: str = "") -> None:
    if dt.name not in TYPE:
        raise TypeError(
            f"the webgl device has no {dt.name} (GLSL ES has no 64-bit or complex types){what}: use the wasm "
            f"device for {dt.name} (jaxweb.devices('wasm'), or jaxweb.default_device(...)), or 32-bit dtypes")


def ty(dt: DType) -> str:
    check_dtype(dt)
    return TYPE[dt.name]


def width(dt: DType) -> int:
    return BITS.get(dt.name, 32)


def sel(c: str, t: str, f: str) -> str:
    """WGSL's select(f, t, c)."""
    return f"(({c}) ? ({t}) : ({f}))"


# ---------------------------------------------------------------- helpers, included as used
# name -> code; each is emitted (in this order) when its name appears in a shader or helper.
_HELPERS: dict[str, str] = {}


def _helper(name: str, code: str) -> None:
    _HELPERS[name] = code


_helper("is_nan", "bool is_nan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }")
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


# ---------------------------------------------------------------- constants, bits
def const_text(v, dt: DType, opaque: bool = False) -> str:
    """A literal that is exact in GLSL (floats through their bits; `opaque`: XORed with the
    always-0 uniform `opq`, so that no compiler folds arithmetic on it)."""
    t = ty(dt)
    if t == "bool":
        return "true" if v else "false"
    if t == "uint":
        return f"{int(v) & 0xffffffff}u"
    if t == "int":
        return str(int(v)) if int(v) >= 0 else f"int({int(v) & 0xffffffff}u)"
    try:
        bits = struct.unpack("<I", struct.pack("<f", float(v)))[0]
    except OverflowError:
        bits = 0x7f800000 if v > 0 else 0xff800000
    return f"uintBitsToFloat({bits:#010x}u ^ opq)" if opaque else f"uintBitsToFloat({bits:#010x}u)"


def fix(text: str, dt: DType) -> str:
    """`text` (a 32-bit value) brought back into `dt`: wrap narrow ints, round f16/bf16."""
    n = dt.name
    if n == "bfloat16":
        return f"bf16r({text})"
    if n == "float16":
        return f"f16r({text})"
    if n in ("int8", "int16"):
        s = 32 - BITS[n]
        return f"((({text}) << {s}) >> {s})"
    if n in ("uint8", "uint16"):
        return f"(({text}) & {(1 << BITS[n]) - 1}u)"
    return text


def bits_of(x: str, dt: DType) -> str:
    """The uint pattern of a value of `dt` (low `width` bits significant)."""
    n, t = dt.name, TYPE[dt.name]
    if n == "bfloat16":
        return f"(floatBitsToUint({x}) >> 16u)"
    if n == "float16":
        return f"f16_bits({x})"
    if n == "float32":
        return f"floatBitsToUint({x})"
    if t == "bool":
        return f"(({x}) ? 1u : 0u)"
    if t == "uint":
        return f"uint({x})"
    return f"(uint({x}) & {(1 << width(dt)) - 1 if width(dt) < 32 else 0xffffffff:#x}u)"


def from_bits(u: str, dt: DType) -> str:
    """The value of `dt` whose pattern is the low bits of uint `u` (already masked)."""
    n, t = dt.name, TYPE[dt.name]
    if n == "bfloat16":
        return f"uintBitsToFloat(({u}) << 16u)"
    if n == "float16":
        return f"f16_val({u})"
    if n == "float32":
        return f"uintBitsToFloat({u})"
    if t == "bool":
        return f"(({u}) != 0u)"
    if t == "uint":
        return f"({u})"
    if n == "int32":
        return f"int({u})"
    s = 32 - BITS[n]
    return f"(int(({u}) << {s}u) >> {s})"


def part_text(word: str, shift: str, dt: DType) -> str:
    """The narrow `dt` (8 or 16 bits) `shift` bits up in uint expression `word`."""
    return from_bits(f"(({word} >> {shift}) & {(1 << 8 * dt.itemsize) - 1:#x}u)", dt)


# ---------------------------------------------------------------- op tables
def _arith(sym: str, bool_op: str):
    def rule(a, b, dt):
        if dt.kind == "b":
            return f"({a} {bool_op} {b})"
        if dt.name == "float32":  # rounded here, as written: no contraction, no reassociation
            return f"keep({a} {sym} {b})"
        return fix(f"({a} {sym} {b})", dt)
    return rule


def _quotient(a, b, dt):
    """a / b truncated, b != 0 made safe (the caller selects for b == 0); INT_MIN / -1 wraps."""
    t = TYPE[dt.name]
    if t == "uint":
        return f"{a} / {sel(f'{b} == 0u', '1u', b)}"
    return sel(f"{b} == -1", f"0 - {a}", f"{a} / {sel(f'{b} == 0', '1', b)}")


def _div(a, b, dt):
    if dt.kind == "f":
        return fix(f"({a} / {b})", dt)
    t = TYPE[dt.name]
    zero = "0u" if t == "uint" else "0"
    ones = f"{(1 << width(dt)) - 1}u" if t == "uint" else "-1"
    return fix(sel(f"{b} == {zero}", ones, _quotient(a, b, dt)), dt)


def _rem(a, b, dt):
    if dt.kind == "f":  # C fmod as a - b trunc(a / b) in f32; fmod(x, inf) = x
        r = f"copysign_({a} - {b} * trunc({a} / {b}), {a})"
        return fix(sel(f"!is_fin({b}) && !is_nan({b}) && is_fin({a})", a, r), dt)
    zero = "0u" if TYPE[dt.name] == "uint" else "0"
    return fix(sel(f"{b} == {zero}", a, f"{a} - {b} * ({_quotient(a, b, dt)})"), dt)


def _minmax(fn: str):
    def rule(a, b, dt):
        if dt.kind == "f":
            return sel(f"is_nan({a}) || is_nan({b})", f"{a} + {b}", f"{fn}({a}, {b})")
        if dt.kind == "b":
            return f"({a} {'||' if fn == 'max' else '&&'} {b})"
        return f"{fn}({a}, {b})"
    return rule


def _bitwise(sym: str, bool_op: str):
    return lambda a, b, dt: f"({a} {bool_op if dt.kind == 'b' else sym} {b})"


def _shl(a, b, dt):
    zero = "0u" if TYPE[dt.name] == "uint" else "0"
    return fix(sel(f"uint({b}) >= {width(dt)}u", zero, f"{a} << (uint({b}) & 31u)"), dt)


def _shr_logical(a, b, dt):
    shifted = sel(f"uint({b}) >= {width(dt)}u", "0u", f"{bits_of(a, dt)} >> (uint({b}) & 31u)")
    return shifted if TYPE[dt.name] == "uint" else from_bits(shifted, dt)


_SIGNED_OF = {"uint8": dtypes.int8, "uint16": dtypes.int16, "uint32": dtypes.int32}


def _shr_arith(a, b, dt):
    w = width(dt)
    signed = a if TYPE[dt.name] == "int" else from_bits(bits_of(a, dt), _SIGNED_OF[dt.name])
    r = f"({signed} >> min(uint({b}), {w - 1}u))"
    return r if TYPE[dt.name] == "int" else fix(f"uint{r}", dt)


def _cmp(sym: str):
    def rule(a, b, dt):
        if dt.kind == "b" and sym not in ("==", "!="):
            return f"(({a} ? 1u : 0u) {sym} ({b} ? 1u : 0u))"
        if dt.kind != "f":
            return f"({a} {sym} {b})"
        nan = f"(is_nan({a}) || is_nan({b}))"
        return f"(({a} != {b}) || {nan})" if sym == "!=" else f"(({a} {sym} {b}) && !{nan})"
    return rule


BINARY = {
    "add": _arith("+", "||"), "sub": _arith("-", "!="), "mul": _arith("*", "&&"),
    "div": _div, "rem": _rem, "max": _minmax("max"), "min": _minmax("min"),
    "and": _bitwise("&", "&&"), "or": _bitwise("|", "||"), "xor": _bitwise("^", "!="),
    "shl": _shl, "shr_logical": _shr_logical, "shr_arith": _shr_arith,
    "lt": _cmp("<"), "le": _cmp("<="), "gt": _cmp(">"), "ge": _cmp(">="), "eq": _cmp("=="), "ne": _cmp("!="),
    "pow": lambda a, b, dt: fix(f"pow_({a}, {b})", dt), "atan2": lambda a, b, dt: fix(f"atan2_({a}, {b})", dt),
}


def _builtin(fn: str):
    return lambda a, dt: fix(f"{fn}({a})", dt)


def _math(fn: str, odd: bool = False):
    """A GLSL builtin (or helper) made to return NaN for NaN (and keep -0 where f(-0) = -0)."""
    def rule(a, dt):
        keep = f"is_nan({a}) || {a} == 0.0" if odd else f"is_nan({a})"
        return fix(sel(keep, a, fn.format(a=a)), dt)
    return rule


def _neg(a, dt):
    if dt.kind == "f":
        return f"(-{a})"
    return fix(f"(0u - {a})" if TYPE[dt.name] == "uint" else f"(0 - {a})", dt)


def _abs(a, dt):
    return a if TYPE[dt.name] == "uint" else fix(f"abs({a})", dt)


def _sign(a, dt):
    if dt.kind == "f":
        return sel(f"is_nan({a}) || {a} == 0.0", a, f"sign({a})")
    return sel(f"{a} != 0u", "1u", "0u") if TYPE[dt.name] == "uint" else f"sign({a})"


def _not(a, dt):
    return f"(!{a})" if dt.kind == "b" else fix(f"(~{a})", dt)


def _popcount(a, dt):
    return f"{TYPE[dt.name]}(popc32({bits_of(a, dt)}))"


def _clz(a, dt):
    return f"{TYPE[dt.name]}(clz32({bits_of(a, dt)}) - {32 - width(dt)}u)"


def _cbrt(a, dt):
    return fix(sel(f"{a} == 0.0 || !is_fin({a})", a, f"sign({a}) * pow(abs({a}), 1.0 / 3.0)"), dt)


def _sqrt(a, dt):  # sqrt(-0) = -0, NaN for negatives (GLSL leaves both open)
    return fix(sel(f"{a} == 0.0 || is_nan({a})", a,
                   sel(f"{a} < 0.0", "uintBitsToFloat(0x7fc00000u)", f"sqrt({a})")), dt)


UNARY = {
    "neg": _neg, "abs": _abs, "sign": _sign, "floor": _builtin("floor"), "ceil": _builtin("ceil"),
    "round": _builtin("round_away"), "round_even": _builtin("roundEven"), "sqrt": _sqrt,
    "exp2": _math("exp2({a})"), "sin": _math("sin_q({a}, 0)", True), "cos": _math("sin_q({a}, 1)"),
    "tan": _math("tan_({a})", True), "asin": _math("asin_({a})", True), "acos": _math("acos_({a})"),
    "atan": _math("atan_({a})", True), "sinh": _math("sinh({a})", True), "cosh": _math("cosh({a})"),
    "asinh": _math("asinh({a})", True), "acosh": _math("acosh_({a})"), "atanh": _math("atanh_({a})", True),
    "cbrt": _cbrt, "is_finite": lambda a, dt: f"is_fin({a})", "not": _not,
    "population_count": _popcount, "clz": _clz,
}


def _f32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


def _cast(x: str, src: DType, dst: DType) -> str:
    s, d = TYPE[src.name], TYPE[dst.name]
    if d == "bool":
        return f"(({x} != {const_text(0, src)}) || is_nan({x}))" if s == "float" else f"({x} != {const_text(0, src)})"
    if s == "bool":
        return sel(x, const_text(1, dst), const_text(0, dst))
    if d == "float":
        return fix(x if s == "float" else f"float({x})", dst)
    if s == "float":  # saturating, NaN -> 0
        lo, hi = dtypes.iinfo(dst).min, dtypes.iinfo(dst).max
        hi_f = float(hi) if hi < (1 << 24) else _f32(hi)
        v = f"{d}(clamp({x}, {const_text(lo, src)}, {const_text(hi_f, src)}))"
        if hi_f > hi:  # 2**31 and 2**32 are not below the maximum: clamp under them, then saturate
            below = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", hi_f))[0] - 1))[0]
            v = sel(f"{x} >= {const_text(hi_f, src)}", const_text(hi, dst),
                    f"{d}(clamp({x}, {const_text(lo, src)}, {const_text(below, src)}))")
        return sel(f"is_nan({x})", const_text(0, dst), v)
    if s == d:
        return fix(x, dst)
    return fix(f"{d}({x})", dst)  # int <-> uint keeps the bits, then narrowed


def _bitcast(x: str, src: DType, dst: DType) -> str:
    if src.itemsize != dst.itemsize:
        raise NotImplementedError(f"webgl codegen: bitcast {src.name} -> {dst.name}")
    return from_bits(bits_of(x, src), dst)


def op_text(n: E.Expr, a: list[str]) -> str:
    """GLSL for ALU node `n` over operand texts `a` (loads, indices, reduces are the caller's)."""
    op = n.op
    if op == "where":
        return sel(a[0], a[1], a[2])
    if op == "cast":
        return _cast(a[0], n.src[0].dtype, n.dtype)
    if op == "bitcast":
        return _bitcast(a[0], n.src[0].dtype, n.dtype)
    if op in BINARY:
        return BINARY[op](a[0], a[1], n.src[0].dtype)
    rule = UNARY.get(op)
    if rule is None:
        raise NotImplementedError(f"webgl codegen: op {op} on {n.dtype.name}")
    return rule(a[0], n.dtype)
