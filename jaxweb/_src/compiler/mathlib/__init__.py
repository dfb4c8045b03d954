"""Transcendental ops as IR expansions into primitive ops (add, mul, div, sqrt,
floor/round, where, bitcast, shifts, ...), so every backend emitter - scalar or
SIMD - only needs primitives, and common subexpressions are shared for free.

Floats of every width are computed in float64 and rounded back once, so f32 (and
f16/bf16) results are within ~1 ulp of the true value. float64 results are a few
ulp on normal ranges (pow and erfc for large arguments lose more: documented in
the tests, `tests/test_wasm_math.py`). Methods: exp/exp2 by Cody-Waite reduction to
|r| <= ln2/2 and a degree-13 Taylor polynomial, scaled by 2^k in two steps (so
subnormal results work); log by exponent extraction and the atanh series in
f = (m-1)/(m+1); sin/cos/tan by reduction modulo pi/2 with a 3-part pi/2 (accurate
for |x| < ~1e5, i.e. all k < 2^20); atan by argument halving twice and a series;
erf/erfc/erf_inv by Chebyshev interpolants fitted at first use, in pure Python, to
CPython's `math` (see `chebyshev.py`); lgamma/digamma by shifting x >= 10 and the
Stirling/asymptotic series, with reflection for x < 0. Integer pow is unrolled
binary exponentiation.
"""
from __future__ import annotations

import math

from ... import dtypes
from .. import expr as E
from . import constants as K
from .chebyshev import cheb_eval, fits
from .fast32 import FAST32

F = dtypes.float64
I64 = dtypes.int64


# ---------------------------------------------------------------- IR sugar
def c(v: float) -> E.Expr:
    return E.const(v, F)


def div(a, b): return E.binary("div", a, b if isinstance(b, E.Expr) else E.const(b, a.dtype))
def eq(a, b): return E.binary("eq", a, b if isinstance(b, E.Expr) else E.const(b, a.dtype))
def ne(a, b): return E.binary("ne", a, b if isinstance(b, E.Expr) else E.const(b, a.dtype))
def vmax(a, b): return E.binary("max", a, b if isinstance(b, E.Expr) else E.const(b, a.dtype))
def vmin(a, b): return E.binary("min", a, b if isinstance(b, E.Expr) else E.const(b, a.dtype))
def fabs(x): return E.unary("abs", x)
def sqrt(x): return E.unary("sqrt", x)
def where(cnd, a, b): return E.where(cnd, a if isinstance(a, E.Expr) else c(a), b if isinstance(b, E.Expr) else c(b))
def isnan(x): return ne(x, x)
def signed_like(x, r): return where(x < 0.0, -r, r)


def poly(x: E.Expr, coeffs) -> E.Expr:
    """sum coeffs[i] * x**i (Horner)."""
    acc = c(coeffs[-1])
    for a in reversed(coeffs[:-1]):
        acc = acc * x + a
    return acc


def scale2(p: E.Expr, k: E.Expr) -> E.Expr:
    """p * 2**k for integral k in about [-1100, 1100], in two normal factors."""
    ki = E.cast(k, I64)
    k1 = E.binary("shr_arith", ki, E.const(1, I64))
    k2 = ki - k1
    s1 = E.bitcast(E.binary("shl", k1 + 1023, E.const(52, I64)), F)
    s2 = E.bitcast(E.binary("shl", k2 + 1023, E.const(52, I64)), F)
    return p * s1 * s2


# ---------------------------------------------------------------- exp / log family
def exp(x):
    x = vmin(vmax(x, -750.0), 710.0)
    k = E.unary("round_even", x * K.LOG2E)
    r = (x - k * K.LN2_HI) - k * K.LN2_LO
    return scale2(poly(r, K.EXP_TAYLOR), k)


def exp2(x):
    x = vmin(vmax(x, -1100.0), 1100.0)
    k = E.unary("round_even", x)
    return scale2(poly((x - k) * K.LN2, K.EXP_TAYLOR), k)


def log(x):
    tiny = x < 2.2250738585072014e-308
    xs = where(tiny, x * 2.0 ** 54, x)
    b = E.bitcast(xs, I64)
    e = (E.binary("shr_logical", b, E.const(52, I64)) & E.const(0x7FF, I64)) - 1023
    e = e - E.where(tiny, E.const(54, I64), E.const(0, I64))
    m = E.bitcast((b & E.const(0x000FFFFFFFFFFFFF, I64)) | E.const(0x3FF0000000000000, I64), F)
    big = m > K.SQRT2
    m = where(big, m * 0.5, m)
    ef = E.cast(e, F) + where(big, 1.0, 0.0)
    fr = div(m - 1.0, m + 1.0)
    lm = 2.0 * fr * poly(fr * fr, K.ATANH_SERIES)
    out = ef * K.LN2_HI + (lm + ef * K.LN2_LO)
    out = where(eq(x, math.inf), math.inf, out)
    out = where(eq(x, 0.0), -math.inf, out)
    return where((x < 0.0) | isnan(x), math.nan, out)


def log1p(x):
    u = x + 1.0
    r = div(log(u) * x, u - 1.0)
    return where(eq(u, 1.0), x, where(eq(u, math.inf), math.inf, r))


def expm1(x):
    u = exp(x)
    r = div((u - 1.0) * x, log(u))
    r = where(eq(u, 1.0), x, where(eq(u - 1.0, -1.0), -1.0, r))
    return where(eq(u, math.inf), math.inf, r)


def sinh(x):
    a = fabs(x)
    e = expm1(a)
    small = 0.5 * (e + div(e, e + 1.0))
    return signed_like(x, where(a > 700.0, exp(a - K.LN2), small))


def cosh(x):
    a = fabs(x)
    e = exp(a)
    return where(a > 700.0, exp(a - K.LN2), 0.5 * e + div(c(0.5), e))


def tanh(x):
    a = fabs(x)
    e = expm1(2.0 * a)
    return signed_like(x, where(a > 22.0, 1.0, div(e, e + 2.0)))


def logistic(x):
    return div(c(1.0), exp(-x) + 1.0)


def asinh(x):
    a = fabs(x)
    small = log1p(a + div(a * a, sqrt(a * a + 1.0) + 1.0))
    return signed_like(x, where(a > 1e150, log(a) + K.LN2, small))


def acosh(x):
    t = x - 1.0
    return where(x > 1e150, log(x) + K.LN2, log1p(t + sqrt(2.0 * t + t * t)))


def atanh(x):
    a = fabs(x)
    return signed_like(x, 0.5 * log1p(div(2.0 * a, 1.0 - a)))


def cbrt(x):
    a = fabs(x)
    r = exp(div(log(a), 3.0))
    r = r - div(r * r * r - a, 3.0 * r * r)
    return where(eq(a, 0.0) | eq(a, math.inf) | isnan(x), x, signed_like(x, r))


def pow_f(a, b):
    mag = exp(b * log(fabs(a)))
    is_int = eq(E.unary("floor", b), b)
    odd = eq(b - 2.0 * E.unary("floor", b * 0.5), 1.0)
    neg = E.binary("lt", E.bitcast(a, I64), E.const(0, I64))  # sign bit (covers -0.0)
    out = where(neg & odd, -mag, mag)
    out = where((a < 0.0) & _not(is_int) & ne(a, -math.inf), math.nan, out)
    out = where(eq(fabs(a), 1.0) & eq(fabs(b), math.inf), 1.0, out)
    return where(eq(b, 0.0) | eq(a, 1.0), 1.0, out)


def _not(p):
    return E.unary("not", p)


# ---------------------------------------------------------------- trigonometry
def _reduce_pio2(x):
    k = E.unary("round_even", x * K.TWO_OVER_PI)
    r = ((x - k * K.PIO2_1) - k * K.PIO2_2) - k * K.PIO2_3
    q = E.cast(E.cast(k, I64), dtypes.int32) & E.const(3, dtypes.int32)
    s2 = r * r
    return r * poly(s2, K.SIN_TAYLOR), poly(s2, K.COS_TAYLOR), q


def _quadrant(q, vals):
    i32 = dtypes.int32
    out = vals[3]
    for j in (2, 1, 0):
        out = E.where(eq(q, E.const(j, i32)), vals[j], out)
    return out


def sin(x):
    s, co, q = _reduce_pio2(x)
    return _quadrant(q, (s, co, -s, -co))


def cos(x):
    s, co, q = _reduce_pio2(x)
    return _quadrant(q, (co, -s, -co, s))


def tan(x):
    s, co, q = _reduce_pio2(x)
    # (q & 1 would be folded to q by expr's ("and", True) rule: 1 == True in a dict key)
    odd = eq(q, E.const(1, dtypes.int32)) | eq(q, E.const(3, dtypes.int32))
    return E.where(odd, div(-co, s), div(s, co))


def _atan01(t):
    """atan(t) for 0 <= t <= 1: halve the argument twice, then the Taylor series."""
    t1 = div(t, sqrt(t * t + 1.0) + 1.0)
    t2 = div(t1, sqrt(t1 * t1 + 1.0) + 1.0)
    return 4.0 * t2 * poly(t2 * t2, K.ATAN_SERIES)


def atan(x):
    a = fabs(x)
    inv = a > 1.0
    r = _atan01(where(inv, div(c(1.0), a), a))
    return signed_like(x, where(inv, K.PI_2 - r, r))


def atan2(y, x):
    ax, ay = fabs(x), fabs(y)
    hi, lo = vmax(ax, ay), vmin(ax, ay)
    t = where(eq(hi, 0.0), 0.0, where(eq(lo, math.inf), 1.0, div(lo, hi)))
    r = _atan01(t)
    r = where(ay > ax, K.PI_2 - r, r)
    xneg = E.binary("lt", E.bitcast(x, I64), E.const(0, I64))
    r = where(xneg, K.PI - r, r)
    yneg = E.binary("lt", E.bitcast(y, I64), E.const(0, I64))
    r = where(yneg, -r, r)
    return where(isnan(x) | isnan(y), math.nan, r)


def asin(x):
    return atan2(x, sqrt((1.0 - x) * (1.0 + x)))


def acos(x):
    return 2.0 * atan2(sqrt(1.0 - x), sqrt(1.0 + x))


def _sinpi_abs(x):
    """|sin(pi x)| without the rounding of pi*x for large x."""
    r = x - E.unary("round_even", x)
    s, co, q = _reduce_pio2(r * K.PI)
    return fabs(_quadrant(q, (s, co, -s, -co))), r


# ---------------------------------------------------------------- special functions
def _exp_neg_sq(x):
    """exp(-x*x) with x*x split exactly (x rounded to 26 bits, then the rest)."""
    xh = E.bitcast(E.bitcast(x, I64) & E.const(~((1 << 27) - 1), I64), F)
    xl = x - xh
    return exp(-(xh * xh)) * exp(-(xl * (x + xh)))


def _erfc_pos(a):
    """erfc(a) for a >= 1 (erfcx pieces times exp(-a^2))."""
    fs = fits()
    g = where(a < 2.0, cheb_eval(vmin(a, 2.0), fs["erfcx_1_2"]),
              where(a < 4.0, cheb_eval(vmin(vmax(a, 2.0), 4.0), fs["erfcx_2_4"]),
                    where(a < 8.0, cheb_eval(vmin(vmax(a, 4.0), 8.0), fs["erfcx_4_8"]),
                          div(cheb_eval(div(c(1.0), vmax(a * a, 64.0)), fs["xerfcx_inv2"]), a))))
    return where(a > 27.5, 0.0, _exp_neg_sq(a) * g)


def _erf_small(x):
    return x * cheb_eval(vmin(x * x, 1.0), fits()["erf_small"])


def erf(x):
    a = fabs(x)
    big = signed_like(x, 1.0 - _erfc_pos(vmax(a, 1.0)))
    return where(a < 1.0, _erf_small(x), where(isnan(x), x, big))


def erfc(x):
    a = fabs(x)
    pos = _erfc_pos(vmax(a, 1.0))
    big = where(x < 0.0, 2.0 - pos, pos)
    return where(a < 1.0, 1.0 - _erf_small(vmin(vmax(x, -1.0), 1.0)), where(isnan(x), x, big))


def erf_inv(y):
    fs = fits()
    a = fabs(y)
    w = -log((1.0 - a) * (1.0 + a))
    central = y * cheb_eval(vmin(w, 6.25), fs["erfinv_w"])
    s = sqrt(vmin(vmax(w, 6.25), 40.0))
    tail = signed_like(y, cheb_eval(s, fs["erfinv_s"]))
    out = where(w < 6.25, central, tail)
    out = where(eq(a, 1.0), signed_like(y, math.inf), out)
    return where((a > 1.0) | isnan(y), math.nan, out)


def _lgamma_pos(y):
    """lgamma(y) for y > 0 (shift below 10, then Stirling)."""
    small = y < 10.0
    z = where(small, y + 10.0, y)
    p = y
    for i in range(1, 10):
        p = p * (y + float(i))
    iz = div(c(1.0), z)
    corr = iz * poly(iz * iz, K.STIRLING)
    st = (z - 0.5) * log(z) - z + K.HALF_LOG_2PI + corr
    return where(small, st - log(p), st)


def lgamma(x):
    refl = x < 0.5
    pos = _lgamma_pos(where(refl & (x < 0.0), 1.0 - x, vmax(x, 1e-300)))
    direct = where(eq(x, 0.0), math.inf, _lgamma_pos(vmax(x, 5e-324)))
    sp, _ = _sinpi_abs(x)
    reflected = log(div(c(K.PI), sp)) - pos
    out = where(x < 0.0, reflected, direct)
    return where(eq(x, -math.inf) | eq(x, math.inf), math.inf, out)


def _digamma_pos(y):
    small = y < 10.0
    z = where(small, y + 10.0, y)
    acc = c(0.0)
    for i in range(10):
        acc = acc + div(c(1.0), y + float(i))
    iz2 = div(c(1.0), z * z)
    ps = log(z) - div(c(0.5), z) - iz2 * poly(iz2, K.DIGAMMA_SERIES)
    return where(small, ps - acc, ps)


def digamma(x):
    neg = x < 0.0
    pos = _digamma_pos(where(neg, 1.0 - x, x))
    r = x - E.unary("round_even", x)
    s, co, q = _reduce_pio2(r * K.PI)
    cot = div(_quadrant(q, (co, -s, -co, s)), _quadrant(q, (s, co, -s, -co)))
    out = where(neg, pos - K.PI * cot, pos)
    pole = (x <= 0.0) & eq(E.unary("floor", x), x)
    return where(pole | eq(x, -math.inf), math.nan, where(eq(x, math.inf), math.inf, out))


# ---------------------------------------------------------------- non-float-64 helpers
def _int_pow(a: E.Expr, b: E.Expr) -> E.Expr:
    """XLA's integer pow: wraps; a negative exponent gives 0 except for bases 1 and -1."""
    dt = a.dtype
    zero = E.const(0, dt)
    e = E.where(b < zero, zero, b) if dt.kind == "i" else b
    nbits = dt.itemsize * 8
    result, base = E.const(1, dt), a
    for i in range(nbits):
        # bit i of e (not `& 1`: expr used to fold x & 1 to x, since 1 == True as a dict key)
        bit = E.binary("and", e, E.const(1 << i, dt)) if i else E.binary("rem", e, E.const(2, dt))
        result = E.where(E.binary("ne", bit, zero), result * base, result)
        base = base * base
    if dt.kind != "i":
        return result
    one, minus = E.const(1, dt), E.const(-1, dt)
    odd = E.binary("ne", E.binary("rem", b, E.const(2, dt)), zero)
    at_neg = E.where(E.binary("eq", a, one), one,
                     E.where(E.binary("eq", a, minus), E.where(odd, minus, one), zero))
    return E.where(b < zero, at_neg, result)


def _nextafter(x: E.Expr, y: E.Expr) -> E.Expr:
    dt = x.dtype
    ut = {2: dtypes.uint16, 4: dtypes.uint32, 8: dtypes.uint64}[dt.itemsize]
    one = E.const(1, ut)
    bx = E.bitcast(x, ut)
    zero = E.const(0.0, dt)
    up = E.binary("eq", E.binary("gt", y, x), E.binary("gt", x, zero))
    step = E.where(up, bx + one, E.binary("sub", bx, one))
    tiny = E.where(E.binary("gt", y, zero), one, E.const(1 | (1 << (8 * dt.itemsize - 1)), ut))
    out = E.bitcast(E.where(E.binary("eq", x, zero), tiny, step), dt)
    out = E.where(E.binary("eq", x, y), y, out)
    nan = E.binary("ne", x, x) | E.binary("ne", y, y)
    return E.where(nan, E.const(math.nan, dt), out)


# ---------------------------------------------------------------- tables and driver
UNARY_F64 = {
    "exp": exp, "exp2": exp2, "log": log, "log1p": log1p, "expm1": expm1, "sin": sin,
    "cos": cos, "tan": tan, "asin": asin, "acos": acos, "atan": atan, "sinh": sinh,
    "cosh": cosh, "tanh": tanh, "asinh": asinh, "acosh": acosh, "atanh": atanh,
    "cbrt": cbrt, "erf": erf, "erfc": erfc, "erf_inv": erf_inv, "lgamma": lgamma,
    "digamma": digamma, "logistic": logistic,
}
BINARY_F64 = {"pow": pow_f, "atan2": atan2}
#: functions with f(±0) = ±0: the expansions lose the sign of zero, so it is restored
SIGNED_ZERO = frozenset("sin tan asin atan sinh tanh asinh atanh expm1 log1p erf erf_inv cbrt".split())


def expand_node(n: E.Expr, srcs: tuple) -> E.Expr | None:
    """The primitive-only replacement of one node (with expanded sources), or None."""
    out = _expand_node(n, srcs)
    if out is not None and n.op in SIGNED_ZERO:
        x = srcs[0]
        out = E.where(E.binary("eq", x, E.const(0.0, x.dtype)), x, out)
    return out


def _expand_node(n: E.Expr, srcs: tuple) -> E.Expr | None:
    op, dt = n.op, n.dtype
    if op == "rsqrt" and dt.kind == "f":  # as the reference rounds: f16 twice, bf16 once (in f32)
        if dt is dtypes.bfloat16:
            x = E.cast(srcs[0], dtypes.float32)
            return E.cast(E.binary("div", E.const(1.0, dtypes.float32), E.unary("sqrt", x)), dt)
        return E.binary("div", E.const(1.0, dt), E.unary("sqrt", srcs[0]))
    if op == "pow" and dt.kind in "iu":
        return _int_pow(*srcs)
    if op == "nextafter":
        return _nextafter(*srcs)
    if op in FAST32 and dt.kind == "f" and dt.itemsize <= 4:  # f32 (and f16/bf16) fast paths
        return E.cast(FAST32[op](E.cast(srcs[0], dtypes.float32)), dt)
    fn = UNARY_F64.get(op) or BINARY_F64.get(op)
    if fn is None or dt.kind != "f":
        return None
    return E.cast(fn(*(E.cast(s, F) for s in srcs)), dt)


def expand(root: E.Expr) -> E.Expr:
    """`root` with every transcendental op replaced by primitive ops."""
    return expand_all([root])[0]


def expand_all(roots) -> list[E.Expr]:
    """Several expressions expanded at once (shared subexpressions expanded once)."""
    memo: dict[int, E.Expr] = {}
    for n in E.walk_all(roots):
        if not n.src:
            memo[id(n)] = n
            continue
        srcs = tuple(memo[id(s)] for s in n.src)
        new = expand_node(n, srcs)
        if new is None:
            new = n if all(a is b for a, b in zip(srcs, n.src)) else E.rebuild(n, srcs)
        memo[id(n)] = new
    return [memo[id(r)] for r in roots]
