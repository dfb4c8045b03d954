"""float32 fast paths for the most used transcendental ops: exp, expm1, log, tanh,
logistic, erf - computed in f32 with short polynomials, so they vectorize (f32x4)
instead of running lane by lane in f64 like the rest of mathlib (a transformer's exact
GELU is erf on every hidden activation: in f64 it was a fifth of MiniLM's time on wasm).

Max errors vs correctly rounded results (measured in tests/test_wasm_math.py on
samples over their whole domain): exp <= 2 ulp, log <= 1 ulp, expm1/tanh/logistic <= 3 ulp,
erf <= 1 ulp (0.82 measured on a dense grid against scipy in f64).
Methods: exp reduces x = k ln2 + r with a 2-part ln2 (hi has 16 bits, so k*hi is
exact for every k in range), a degree-7 Taylor polynomial on |r| <= ln2/2 and a
2^k scale in two normal factors (subnormal results work); log extracts the
exponent, folds the mantissa into [sqrt(1/2), sqrt(2)) and adds to u = m - 1
(exact) the small rest of 2 atanh(u/(u+2)); expm1 uses Taylor for |x| < ln2 and exp(x) - 1 above;
tanh = e/(e+2) with e = expm1(2|x|); logistic = 1/(1+e) or e/(1+e), e = exp(-|x|).
erf: four pieces fitted by least squares on Chebyshev nodes (float64, coefficients rounded
to f32): |x| < 0.8: x + x P(x^2) (odd, keeps -0.0); 0.8 <= |x| < 1.5: 0.875 + R(|x| - 1.15)
(erf itself about an exact constant: 1 - erfc would cancel a bit there); 1.5 <= |x| < 2.25
and 2.25 <= |x| < 4: 1 - erfc, erfc fitted about 1.875 and 3.125; +-1 from 4 on (erfc(4) =
1.5e-8 is below half an ulp of 1). The last three share one Horner loop whose coefficients
are selected per piece, so the vector code pays for one polynomial there, not three.
"""
from __future__ import annotations

import math
import struct

from ... import dtypes
from .. import expr as E
from . import constants as K

F32 = dtypes.float32
I32 = dtypes.int32


def _f32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


def c(v: float) -> E.Expr:
    return E.const(v, F32)


def ic(v: int) -> E.Expr:
    return E.const(v, I32)


_hi_bits = struct.unpack("<I", struct.pack("<f", K.LN2))[0] & ~0xFF  # 16 significant bits
LN2_HI = struct.unpack("<f", struct.pack("<I", _hi_bits))[0]
LN2_LO = _f32((K.LN2_HI - LN2_HI) + K.LN2_LO)  # ln2 - LN2_HI (the first difference is exact)
LOG2E = _f32(K.LOG2E)
SQRT2 = _f32(math.sqrt(2.0))
EXP_POLY = [1.0 / math.factorial(n) for n in range(8)]
EXPM1_POLY = [1.0 / math.factorial(n) for n in range(2, 12)]
LOG_R = [2.0 / (2 * n + 1) for n in range(1, 6)]


def poly(x: E.Expr, coeffs) -> E.Expr:
    acc = c(coeffs[-1])
    for a in reversed(coeffs[:-1]):
        acc = acc * x + a
    return acc


def where(cnd, a, b):
    return E.where(cnd, a if isinstance(a, E.Expr) else c(a), b if isinstance(b, E.Expr) else c(b))


def eq(a, v):
    return E.binary("eq", a, c(v))


def exp(x: E.Expr) -> E.Expr:
    x = E.binary("min", E.binary("max", x, c(-104.0)), c(89.0))
    k = E.unary("round_even", x * LOG2E)
    r = (x - k * LN2_HI) - k * LN2_LO
    p = poly(r, EXP_POLY)
    ki = E.cast(k, I32)
    k1 = E.binary("shr_arith", ki, ic(1))
    k2 = ki - k1
    s1 = E.bitcast(E.binary("shl", k1 + 127, ic(23)), F32)
    s2 = E.bitcast(E.binary("shl", k2 + 127, ic(23)), F32)
    return p * s1 * s2


def log(x: E.Expr) -> E.Expr:
    tiny = x < 1.1754943508222875e-38
    xs = where(tiny, x * 8388608.0, x)
    b = E.bitcast(xs, I32)
    e = (E.binary("shr_arith", b, ic(23)) & ic(0xFF)) - E.where(tiny, ic(127 + 23), ic(127))
    m = E.bitcast((b & ic(0x7FFFFF)) | ic(0x3F800000), F32)
    big = m > SQRT2
    m = where(big, m * 0.5, m)
    ef = E.cast(e, F32) + where(big, 1.0, 0.0)
    u = m - 1.0  # exact
    sr = E.binary("div", u, u + 2.0)
    z = sr * sr
    h = 0.5 * u * u
    lm = sr * (h + z * poly(z, LOG_R)) - h  # log(1 + u) - u, small beside u
    out = ef * LN2_HI + (u + (lm + ef * LN2_LO))
    out = where(eq(x, math.inf), math.inf, out)
    out = where(eq(x, 0.0), -math.inf, out)
    return where((x < 0.0) | E.binary("ne", x, x), math.nan, out)


def expm1(x: E.Expr) -> E.Expr:
    small = E.unary("abs", x) < 0.69314718
    ps = x + x * x * poly(x, EXPM1_POLY)
    return where(small, ps, exp(x) - 1.0)


def tanh(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    e = expm1(a + a)
    t = where(a > 9.1, 1.0, E.binary("div", e, e + 2.0))
    return where(x < 0.0, -t, t)


def logistic(x: E.Expr) -> E.Expr:
    """1/(1+e^-x) for x >= 0 and e^x/(1+e^x) below (no overflow, subnormal tails kept)."""
    e = exp(-E.unary("abs", x))
    d = e + 1.0
    return where(x < 0.0, E.binary("div", e, d), E.binary("div", c(1.0), d))


ERF_SMALL = (9.205196693073958e-05, -0.0008314432925544679, 0.005214286502450705, -0.02686411328613758,
             0.11283770948648453, -0.37612637877464294, 0.12837916612625122)
#: (center, offset, coefficients highest first) of the pieces on [0.8, 1.5), [1.5, 2.25), [2.25, 4)
ERF_PIECES = (
    (1.15, 0.875, (-0.0001477612240705639, -0.005751437041908503, 0.008403019048273563, 0.0170771311968565,
                   -0.058872804045677185, 0.020460113883018494, 0.16487137973308563, -0.3457789123058319,
                   0.3006772994995117, 0.021123835816979408)),
    (1.875, 1.0, (0.0003888100618496537, 0.001296290778554976, -0.004932037089020014, 0.00412158016115427,
                  0.011462804861366749, -0.042260702699422836, 0.06744108349084854, -0.0628984123468399,
                  0.033545829355716705, -0.00800994224846363)),
    (3.125, 1.0, (1.124764185078675e-05, -9.775828948477283e-05, 0.00027751189190894365, -0.00046266274875961244,
                  0.0005732450517825782, -0.0005545719177462161, 0.00040052938857115805, -0.00020266789942979813,
                  6.473914254456758e-05, -9.892089110508095e-06)),
)


def erf(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    small = x + x * poly(x * x, ERF_SMALL[::-1])
    r1, r2 = a < 1.5, a < 2.25

    def pick(values):  # the value of the piece `a` is in
        return where(r1, values[0], where(r2, values[1], values[2]))
    t = a - pick([p[0] for p in ERF_PIECES])
    coefs = list(zip(*(p[2] for p in ERF_PIECES)))
    acc = pick(coefs[0])
    for cs in coefs[1:]:
        acc = acc * t + pick(cs)
    tail = where(a >= 4.0, 1.0, pick([p[1] for p in ERF_PIECES]) + acc)  # NaN (no comparison holds) stays NaN
    return where(a < 0.8, small, where(x < 0.0, -tail, tail))


FAST32 = {"exp": exp, "expm1": expm1, "log": log, "tanh": tanh, "logistic": logistic, "erf": erf}
