"""Kernel IR expressions -> WGSL statements, one `let` per node, from tables (the op tables
are shared with the webgl device: backends/gpu/ops.py; `WGSL` below spells them).

Every buffer is bound as `array<u32>` so that 8- and 16-bit dtypes (bool, int8,
uint8, int16, uint16, float16, bfloat16) can be stored packed; values are
computed in 32-bit WGSL types (`f32`, `i32`, `u32`, `bool`). Narrow integers are
re-normalized after every op that can leave their range (wrap-around as the
reference backend does), float16 and bfloat16 results are rounded to their
format after every op (the reference rounds after every op too). 64-bit and
complex dtypes have no WGSL type: `check_dtype` raises a TypeError naming the
dtype and pointing at the wasm device.

Semantics follow the reference backend (see backends/wasm/scalar.py), written
out where WGSL differs: integer x/0 = -1 (all ones unsigned) and x%0 = x,
shifts by >= the width give 0 (or the sign), NaN-propagating max/min, round
half away from zero, saturating float->int casts with NaN -> 0. Constants are
bound to `let`s, never inlined into operations: WGSL rejects (at shader
creation) constant expressions that overflow, divide by zero, shift too far or
produce NaN/Inf, and a `let` is not a constant expression; float constants are
also made opaque to the driver's compiler (`const_text`), which folds IEEE
special cases wrongly (lavapipe turned `x / 0.0` into 0). float32 sums, differences
and products pass through `opq` too: without it Mesa's NIR contracts `a * b + c`
into an fma and simplifies `(a + b) - a` to `b` (SPIR-V from WGSL marks no op
exact), which breaks the compensated arithmetic of the shared expansions
(random.uniform's Dekker-style scaling came out 1 ulp off).

Transcendental ops: exp, expm1, log, tanh and logistic use the compiler's float32
expansions (`mathlib.fast32`: <= 3 ulp) because WGSL only promises 3 + 2|x| ulp
(exp) or 2**-21 absolute (log) error; nextafter, rsqrt and integer pow use the
shared expansions too. The rest of mathlib computes in float64, which WGSL does
not have, so here:
- sin, cos, tan: Cody-Waite reduction in f32 (pi/2 in 12-bit parts, the quotient
  split in two, so every product is exact without fma) for |x| < 2**14, Payne-Hanek in
  u32 arithmetic beyond (`trig_big`; Cody-Waite lost up to 6 ulp by 2**16), and short
  minimax polynomials: sin and cos within ~2 ulp, tan ~3.5, because WGSL builtins
  only promise 2**-11 absolute error on [-pi, pi] and nothing outside it;
- asin, acos, atan: Cephes-style f32 polynomials (lavapipe's builtins were 1e-4 off);
  atan2 is atan with IEEE's zeros and infinities; pow handles C's special cases;
- exp2, sqrt: WGSL builtins made to return NaN for NaN and keep signed zeros (the
  driver's precision: tests allow a few ulp); cbrt is pow's guess and a Newton step;
- fmod (`rem`) is exact (`fmod_`: long division, each step exact by Sterbenz);
  max/min order -0.0 below 0.0 (XLA's order; WGSL leaves it to the driver);
- erf (mathlib.fast32, <= 1 ulp), erfc (a float32 fit of its own, ~2.5 ulp), log1p, sinh, cosh, asinh, acosh,
  atanh (lavapipe's builtins: sinh(1e-10) = 3e-8, asinh overflowed past 2**64), and
  XLA's float32 algorithms for erf_inv, lgamma and digamma: `math32.py`.
"""
from __future__ import annotations

from ... import dtypes
from ...compiler import expr as E, mathlib
from ...compiler.mathlib.constants import two_over_pi_limbs
from ...compiler.mathlib.fast32 import FAST32
from ...dtypes import DType
from ..gpu.ops import Dialect
from .math32 import MATH32

class WGSL(Dialect):
    """WGSL's spellings of the shared op tables (backends/gpu/ops.py)."""

    device, lang = "webgpu", "WGSL"
    F, I, U = "f32", "i32", "u32"
    popcount, clz = "countOneBits", "countLeadingZeros"

    def unary(self) -> dict:
        m = self._math
        return {"round_even": self._builtin("round"), "sin": m("sin_q({a}, 0i, opq)", True),
                "cos": m("sin_q({a}, 1i, opq)"), "tan": m("tan_({a}, opq)", True),
                "cbrt": lambda a, dt: self.fix(self.sel(f"{a} == 0.0 || !is_fin({a})", a, f"cbrt_({a})"), dt)}

    def _rem(self, a, b, dt):  # C fmod, exact (fmod_ below); fmod(x, inf) = x
        return self.fix(f"fmod_({a}, {b})", dt) if dt.kind == "f" else super()._rem(a, b, dt)

    def _minmax(self, fn: str):
        """NaN wins; -0.0 < 0.0 as in XLA (WGSL leaves max(0.0, -0.0) to the driver)."""
        shared = super()._minmax(fn)

        def rule(a, b, dt):
            if dt.kind != "f":
                return shared(a, b, dt)
            keep_a = f"(bitcast<u32>({a}) >> 31u) == {'0u' if fn == 'max' else '1u'}"
            return self.sel(f"{a} == {b}", self.sel(keep_a, a, b), shared(a, b, dt))
        return rule

    def sel(self, c, t, f):
        return f"select({f}, {t}, {c})"

    def declare(self, v, t, text):
        return f"let {v}: {t} = {text};"

    def as_type(self, t, x):
        return f"bitcast<{t}>({x})"

    def float_bits(self, x):
        return f"bitcast<u32>({x})"

    def bits_float(self, u):
        return f"bitcast<f32>({u})"

    def float_literal(self, bits):
        return f"f32_bits({bits})"

    def int_literal(self, v):
        return f"{v}i" if v != -(1 << 31) else "bitcast<i32>(0x80000000u)"

    def keep(self, x):
        return f"bitcast<f32>(bitcast<u32>({x}) ^ opq)"

    def f16_bits(self, x):
        return f"(pack2x16float(vec2<f32>({x}, 0.0)) & 0xffffu)"

    def f16_value(self, u):
        return f"unpack2x16float({u}).x"

    def narrow(self, text, s):
        return f"(({text}) << {s}u) >> {s}u"

    def int_rem(self, a, b, dt):  # WGSL's % truncates and defines INT_MIN % -1
        one, zero = ("1u", "0u") if self.TYPE[dt.name] == "u32" else ("1i", "0i")
        return f"{a} % {self.sel(f'({b} == {zero})', one, b)}"


_W = WGSL()
TYPE, BINARY, UNARY = _W.TYPE, _W.BINARY, _W.UNARY
check_dtype, ty, width, const_text, fix = _W.check_dtype, _W.ty, _W.width, _W.const_text, _W.fix
part_text, op_text = _W.part_text, _W.op_text


# ---------------------------------------------------------------- helpers in every module
PRELUDE = """fn f32_bits(u: u32) -> f32 { return bitcast<f32>(u); }
fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn is_fin(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
fn bf16r(x: f32) -> f32 {
  let u = bitcast<u32>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) { return bitcast<f32>(u | 0x00400000u); }
  return bitcast<f32>((u + 0x7fffu + ((u >> 16u) & 1u)) & 0xffff0000u);
}
fn f16r(x: f32) -> f32 {
  if (is_nan(x) || !is_fin(x)) { return x; }
  if (abs(x) >= 65520.0) { return select(f32_bits(0xff800000u), f32_bits(0x7f800000u), x > 0.0); }
  // f16 subnormals: multiples of 2^-24, ties to even (quantizeToF16 may flush them to zero)
  if (abs(x) < 6.103515625e-05) { return round(x * 16777216.0) * 5.9604644775390625e-08; }
  return quantizeToF16(x);
}
fn fmod_(a: f32, b: f32) -> f32 {  // C fmod, exact: long division a bit at a time (Sterbenz: r - t is exact)
  let ab = abs(b);
  var r = abs(a);
  if (is_nan(a) || is_nan(b) || !is_fin(a) || ab == 0.0) { return f32_bits(0x7fc00000u); }
  if (r < ab) { return a; }  // also fmod(finite, inf) = a
  var t = ldexp(ab, frexp(r).exp - frexp(ab).exp);
  if (t > r) { t = t * 0.5; }
  loop {
    if (r >= t) { r = r - t; }
    if (t <= ab) { break; }
    t = t * 0.5;
  }
  return copysign_(r, a);
}
fn cbrt_(x: f32) -> f32 {  // pow's guess (~1e-6 off on lavapipe), one Newton step (a / y^2: no overflow)
  let a = abs(x);
  let y = pow(a, 1.0 / 3.0);
  return copysign_(y + (a / (y * y) - y) * 0.333333333333333, x);
}
fn round_away(x: f32) -> f32 { let t = trunc(x); return select(t, t + sign(x), abs(x - t) >= 0.5); }
fn keep(x: f32, o: u32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ o); }  // o = opq = 0
fn trig_red(x: f32, o: u32) -> vec2<f32> {
  // x - q pi/2, pi/2 in 12-bit parts and q split as qh + ql (12 bits each): every product
  // is exact and every partial difference fits in f32 (no fma needed: drivers may not
  // fuse); `keep` stops the driver from refactoring qh*c + ql*c into q*c
  if (abs(x) >= 16384.0) { return trig_big(x); }
  let q = round(x * 0.63661977236758134);
  let qh = keep(trunc(q * 0.000244140625) * 4096.0, o);
  let ql = keep(q - qh, o);
  var r = keep(x - keep(qh * 1.5703125, o), o);
  r = keep(r - keep(ql * 1.5703125, o), o);
  r = keep(r - keep(qh * 0.0004837512969970703, o), o);
  r = keep(r - keep(ql * 0.0004837512969970703, o), o);
  r = keep(r - keep(qh * 7.549533620476723e-08, o), o);
  r = keep(r - keep(ql * 7.549533620476723e-08, o), o);
  r = r - q * 2.5633440682570896e-12;
  // q from the f32 product x * 2/pi can be one off for large x: bring r back to [-pi/4, pi/4]
  if (abs(r) > 0.78539816) {
    let s = sign(r);
    r = (r - s * 1.5707963705062866) + s * 4.371138828673793e-08;
    return vec2<f32>(r, q + s);
  }
  return vec2<f32>(r, q);
}
fn mul32(a: u32, b: u32) -> vec2<u32> {  // the 64-bit product a b as (high, low) words
  let al = a & 0xffffu; let ah = a >> 16u; let bl = b & 0xffffu; let bh = b >> 16u;
  let ll = al * bl; let lh = al * bh; let hl = ah * bl;
  let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  return vec2<u32>(ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u), (ll & 0xffffu) | (mid << 16u));
}
fn hi_shl(h: u32, l: u32, s: u32) -> u32 {  // the high word of (h:l) << s, s < 32
  return select((h << s) | (l >> (32u - s)), h, s == 0u);
}
fn u64_f32(h: u32, l: u32, e: i32) -> f32 {  // (h:l) 2**e rounded to nearest even, (h:l) != 0
  let z = select(countLeadingZeros(h), 32u + countLeadingZeros(l), h == 0u);
  let sig = select(hi_shl(h, l, z), l << (z - 32u), z >= 32u);  // 32 significant bits
  let top = sig >> 8u;
  let rest = (sig & 0xffu) | select(0u, 1u, z < 32u && (l << z) != 0u);
  let up = rest > 0x80u || (rest == 0x80u && (top & 1u) == 1u);
  return ldexp(f32(top + select(0u, 1u, up)), e + 40 - i32(z));
}
fn trig_big(x: f32) -> vec2<f32> {
  // Payne-Hanek for |x| >= 2**14: |x| = m 2**e (m of 24 bits, e >= -9); modulo 4, x 2/pi
  // only depends on 2/pi's bits from 2**(1 - e) on: a 96-bit window W of them (the table
  // is 2/pi after 32 zero bits), and m W mod 2**96 holds q in its top 2 bits, then the
  // fraction; r = fraction pi/2 in integers (pi/2 in 32 bits), rounded once to f32
  var t = array<u32, 8>({TWO_OVER_PI});
  let u = bitcast<u32>(x);
  let m = (u & 0x7fffffu) | 0x800000u;
  let s = ((u >> 23u) & 0xffu) - 120u;  // the window's first bit: e + 30 (>= 21)
  let j = s >> 5u; let b = s & 31u;
  let p0 = mul32(m, hi_shl(t[j], t[j + 1u], b));
  let p1 = mul32(m, hi_shl(t[j + 1u], t[j + 2u], b));
  let p2 = mul32(m, hi_shl(t[j + 2u], t[j + 3u], b));
  let r1 = p2.x + p1.y;
  let r0 = p1.x + p0.y + select(0u, 1u, r1 < p1.y);
  var q = r0 >> 30u;
  var fh = (r0 << 2u) | (r1 >> 30u);
  var fl = (r1 << 2u) | (p2.y >> 30u);
  let neg = fh >= 0x80000000u;  // a fraction of 1/2 or more: q + 1 and the fraction - 1
  if (neg) { q += 1u; fl = 0u - fl; fh = ~fh + select(0u, 1u, fl == 0u); }
  let a = mul32(fh, 0xc90fdaa2u);  // floor(pi/2 2**31)
  let c = mul32(fl, 0xc90fdaa2u);
  let mid = a.y + c.x;
  let top = a.x + select(0u, 1u, mid < a.y);
  var r = select(u64_f32(top, mid, -63), 0.0, top == 0u && mid == 0u);
  r = select(r, -r, neg != (x < 0.0));
  return vec2<f32>(r, f32(select(q, 4u - q, x < 0.0) & 3u));
}
fn sin_poly(r: f32) -> f32 {
  let z = r * r;
  return fma(r * z, fma(z, fma(z, -1.9515295891e-4, 8.3321608736e-3), -1.6666654611e-1), r);
}
fn cos_poly(r: f32) -> f32 {
  let z = r * r;
  return fma(z * z, fma(z, fma(z, 2.443315711809948e-5, -1.388731625493765e-3), 4.166664568298827e-2),
             fma(-0.5, z, 1.0));
}
fn sin_q(x: f32, shift: i32, o: u32) -> f32 {
  if (!is_fin(x)) { return f32_bits(0x7fc00000u); }
  let t = trig_red(x, o);
  let q = (i32(t.y) + shift) & 3;
  let v = select(sin_poly(t.x), cos_poly(t.x), (q & 1) == 1);
  return select(v, -v, q >= 2);
}
fn asin_(x: f32) -> f32 {
  let a = abs(x);
  if (a > 1.0) { return f32_bits(0x7fc00000u); }
  let big = a > 0.5;
  let z = select(a * a, 0.5 * (1.0 - a), big);
  let t = select(a, sqrt(z), big);
  let p = fma(fma(fma(fma(fma(4.2163199048e-2, z, 2.4181311049e-2), z, 4.5470025998e-2), z, 7.4953002686e-2),
                  z, 1.6666752422e-1) * z, t, t);
  return copysign_(select(p, 1.57079632679490 - (p + p), big), x);
}
fn acos_(x: f32) -> f32 {
  if (x < -0.5) { return 3.14159265358979 - 2.0 * asin_(sqrt(0.5 * (1.0 + x))); }
  if (x > 0.5) { return 2.0 * asin_(sqrt(0.5 * (1.0 - x))); }
  return 1.57079632679490 - asin_(x);
}
fn atan_(x: f32) -> f32 {
  let a = abs(x);
  var y = 0.0;
  var t = a;
  if (a > 2.414213562373095) { y = 1.57079632679490; t = -1.0 / a; }
  else if (a > 0.4142135623730950) { y = 0.78539816339745; t = (a - 1.0) / (a + 1.0); }
  let z = t * t;
  let p = fma(fma(fma(fma(8.05374449538e-2, z, -1.38776856032e-1), z, 1.99777106478e-1), z, -3.33329491539e-1) * z,
              t, t);
  return copysign_(y + p, x);
}
fn copysign_(v: f32, s: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(v) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}
fn atan2_(y: f32, x: f32) -> f32 {
  if (is_nan(x) || is_nan(y)) { return x + y; }
  let pi = 3.14159265358979;
  let x_neg = (bitcast<u32>(x) >> 31u) == 1u;
  if (y == 0.0) { return select(y, copysign_(pi, y), x_neg); }
  if (!is_fin(x)) {
    if (!is_fin(y)) { return copysign_(select(0.78539816339745, 2.35619449019234, x_neg), y); }
    return copysign_(select(0.0, pi, x_neg), y);
  }
  if (!is_fin(y) || x == 0.0) { return copysign_(1.57079632679490, y); }
  let a = atan_(abs(y) / abs(x));
  return copysign_(select(a, pi - a, x_neg), y);
}
fn pow_(a: f32, b: f32) -> f32 {
  if (b == 0.0 || a == 1.0) { return 1.0; }
  if (is_nan(a) || is_nan(b)) { return a + b; }
  let inf = f32_bits(0x7f800000u);
  let ax = abs(a);
  if (!is_fin(b)) { return select(select(0.0, inf, (ax > 1.0) == (b > 0.0)), 1.0, ax == 1.0); }
  let odd = abs(b) < 16777216.0 && trunc(b) == b && (i32(abs(b)) & 1i) == 1i;
  if (a == 0.0 || !is_fin(a)) {
    let r = select(0.0, inf, (b < 0.0) == (a == 0.0));
    return select(r, copysign_(r, a), odd);
  }
  if (a < 0.0 && trunc(b) != b) { return f32_bits(0x7fc00000u); }
  let m = pow(ax, b);
  return select(m, -m, a < 0.0 && odd);
}
fn tan_(x: f32, o: u32) -> f32 {
  if (!is_fin(x)) { return f32_bits(0x7fc00000u); }
  let t = trig_red(x, o);
  let s = sin_poly(t.x);
  let c = cos_poly(t.x);
  return select(s / c, -c / s, (i32(t.y) & 1) == 1);
}
""".replace("{TWO_OVER_PI}", ", ".join(f"0x{w:08x}u" for w in two_over_pi_limbs(32, 8)))


def load_text(buf: str, index: str, dt: DType) -> str:
    """Element `index` (an i32 expression) of `dt` from packed u32 buffer `buf`."""
    size = dt.itemsize
    if size == 4:
        return _W.from_bits(f"{buf}[u32({index})]", dt)
    i = f"u32({index})"
    per = 4 // size
    return part_text(f"{buf}[{i} >> {per.bit_length() - 1}u]", f"(({i} & {per - 1}u) * {8 * size}u)", dt)


def word_text(word: str, dt: DType) -> str:
    """The value of 4-byte `dt` held in u32 expression `word` (a lane of a vec4 load)."""
    return _W.from_bits(word, dt)


def store_bits(x: str, dt: DType) -> str:
    """The u32 to store (4-byte dtypes) or to shift into a word (narrow ones)."""
    return _W.bits_of(x, dt)


def expand(roots: list[E.Expr]) -> list[E.Expr]:
    """The kernel's expressions with the mathlib expansions WGSL needs (see the module doc)."""
    def one(n, srcs):
        if n.op in MATH32 and n.dtype.kind == "f":
            return E.cast(MATH32[n.op](E.cast(srcs[0], dtypes.float32)), n.dtype)
        if n.op in FAST32 and n.dtype.kind == "f" or n.op in ("nextafter", "rsqrt") \
                or n.op == "pow" and n.dtype.kind in "iu":
            return mathlib.expand_node(n, srcs)
        return None
    return E.rewrite(roots, one)
