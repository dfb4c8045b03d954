"""exp/log family, hyperbolic functions, logistic, cbrt and pow as float64 IR.

exp reduces x = k ln2 + r (ln2 in two parts, the first of 32 bits so k * part is
exact), evaluates a degree-13 Taylor polynomial on |r| <= ln2/2 and scales by
2**k in two normal factors, so results that overflow or are subnormal come out
right; `exp_parts` exposes (p, k) so sinh/cosh can scale by 2**(k-1) and stay
finite up to their own overflow. log extracts the exponent (subnormals scaled
first) and sums the atanh series of (m-1)/(m+1). expm1 uses the same reduction
with expm1(r) as a polynomial and 2**k (1 + e) - 1 recombined without
cancellation. pow works in double-double: log|a| to ~2**-64 relative (mantissa
reduced against 1 + j/16, log(1 + j/16) tabled in two parts) times b by an exact
product, then exp of the double-double; float32 pow needs only exp(b log|a|) in
float64. cbrt scales huge and tiny inputs by 2**180 so its Newton step never
overflows or loses bits to subnormals.
"""
from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext

from .. import expr as E
from . import constants as K
from .ir import (F, I64, c, div, eq, fabs, fast_two_sum, floor, isnan, ne, not_, poly, pow2, rint, scale2,
                 select, sign_bit, signed_like, sqrt, two_prod, two_sum, vmax, vmin, where)

EXPM1_Q = [1.0 / math.factorial(n) for n in range(2, 16)]  # expm1(r) = r + r^2 Q(r)
TINY = 2.2250738585072014e-308


# ---------------------------------------------------------------- exp
def exp_parts(x: E.Expr, lo: E.Expr | None = None) -> tuple[E.Expr, E.Expr]:
    """(p, k) with exp(x + lo) = p * 2**k, p in [0.7, 1.42], k integral (float64)."""
    xc = vmin(vmax(x, -760.0), 760.0)
    k = rint(xc * K.LOG2E)
    r = (xc - k * K.LN2_HI) - k * K.LN2_LO
    if lo is not None:
        r = r + where(eq(xc, x), lo, 0.0)  # clamped: over/underflows anyway, drop the tail
    return poly(r, K.EXP_TAYLOR), k


def exp(x: E.Expr) -> E.Expr:
    p, k = exp_parts(x)
    return scale2(p, k)


def exp2(x: E.Expr) -> E.Expr:
    x = vmin(vmax(x, -1100.0), 1100.0)
    k = rint(x)
    return scale2(poly((x - k) * K.LN2, K.EXP_TAYLOR), k)


def expm1(x: E.Expr) -> E.Expr:
    xc = vmin(vmax(x, -40.0), 760.0)
    k = rint(xc * K.LOG2E)
    r, rlo = fast_two_sum(xc - k * K.LN2_HI, -(k * K.LN2_LO))
    e = r + r * r * poly(r, EXPM1_Q)
    e = e + rlo * (e + 1.0)  # the tail of r: expm1(r + d) ~ expm1(r) + d e^r
    ki = E.cast(k, I64)
    t = pow2(E.binary("min", ki, E.const(60, I64)))
    mid = (t - 1.0) + t * e  # 2^k (1 + e) - 1: t - 1 and t e are exact
    return where(k > 60.0, scale2(e + 1.0, k), mid)


# ---------------------------------------------------------------- log
def _mantissa(x: E.Expr) -> tuple[E.Expr, E.Expr]:
    """(e, m) with x = m * 2**e, m in [sqrt(1/2), sqrt(2)), e integral (float64); x > 0."""
    tiny = x < TINY
    xs = where(tiny, x * 2.0 ** 54, x)
    b = E.bitcast(xs, I64)
    e = (E.binary("shr_logical", b, E.const(52, I64)) & E.const(0x7FF, I64)) - 1023
    e = e - E.where(tiny, E.const(54, I64), E.const(0, I64))
    m = E.bitcast((b & E.const(0x000FFFFFFFFFFFFF, I64)) | E.const(0x3FF0000000000000, I64), F)
    big = m > K.SQRT2
    return E.cast(e, F) + where(big, 1.0, 0.0), where(big, m * 0.5, m)


def log1p_reduced(u: E.Expr) -> E.Expr:
    """log(1 + u) - u for u = m - 1 in [sqrt(1/2) - 1, sqrt(2) - 1] (u exact)."""
    s = div(u, u + 2.0)
    z = s * s
    h = 0.5 * u * u
    return s * (h + z * poly(z, K.LOG_R)) - h


def log(x: E.Expr) -> E.Expr:
    ef, m = _mantissa(x)
    u = m - 1.0  # exact
    out = ef * K.LN2_HI + (u + (log1p_reduced(u) + ef * K.LN2_LO))
    out = where(eq(x, math.inf), math.inf, out)
    out = where(eq(x, 0.0), -math.inf, out)
    return where((x < 0.0) | isnan(x), math.nan, out)


@functools.cache
def logc_table() -> tuple[list[float], list[float]]:
    """log(1 + j/16) for j = -5..7 in two parts (pow's double-double log)."""
    with localcontext() as ctx:
        ctx.prec = 40
        logs = [(Decimal(16 + j) / 16).ln() for j in range(-5, 8)]
        hi = [float(v) for v in logs]
        return hi, [float(v - Decimal(h)) for v, h in zip(logs, hi)]
ATANH_TAIL = [1.0 / (2 * n + 1) for n in range(1, 8)]  # atanh(f) = f + f s T(s)


def log_dd(x: E.Expr) -> tuple[E.Expr, E.Expr]:
    """log(x) as hi + lo, relative error ~2**-64, for finite x > 0."""
    ef, m = _mantissa(x)
    j = rint((m - 1.0) * 16.0)
    cj = j * 0.0625 + 1.0  # exact
    u = m - cj  # exact (Sterbenz)
    v, vlo = two_sum(m, cj)
    f = div(u, v)
    p, pe = two_prod(f, v)
    flo = div(((u - p) - pe) - f * vlo, v)  # u/(v + vlo) - f, to first order
    s = f * f
    tail = 2.0 * f * s * poly(s, ATANH_TAIL)
    ji = E.cast(j, I64) + 5
    logc_hi, logc_lo = logc_table()
    h1, e1 = two_sum(ef * K.LN2_HI, select(logc_hi, ji))
    h2, e2 = two_sum(h1, 2.0 * f)
    lo = (e1 + e2) + (ef * K.LN2_LO + select(logc_lo, ji) + (2.0 * flo + tail))
    return fast_two_sum(h2, lo)


def log1p(x: E.Expr) -> E.Expr:
    u = x + 1.0
    r = log(u) * div(x, u - 1.0)  # Goldberg's correction for the rounding of 1 + x
    return where(eq(u, 1.0), x, where(eq(u, math.inf), math.inf, r))


# ---------------------------------------------------------------- hyperbolic
def sinh(x: E.Expr) -> E.Expr:
    a = fabs(x)
    s = a * a
    tiny = a + a * s * poly(s, K.SINH_T)  # |x| < 2: Taylor
    p, k = exp_parts(a)
    e = scale2(p, vmin(k, 40.0))
    mid = 0.5 * e - div(c(0.5), e)
    out = where(a > 22.0, scale2(p, k - 1.0), where(a < 2.0, tiny, mid))
    return signed_like(x, out)


def cosh(x: E.Expr) -> E.Expr:
    a = fabs(x)
    p, k = exp_parts(a)
    e = scale2(p, vmin(k, 40.0))
    return where(a > 22.0, scale2(p, k - 1.0), 0.5 * e + div(c(0.5), e))


def tanh(x: E.Expr) -> E.Expr:
    a = fabs(x)
    s = a * a
    tiny = a + a * s * poly(s, K.tanh_series())  # |x| < 1/2: Taylor
    e = expm1(2.0 * vmin(a, 22.0))
    out = where(a > 22.0, 1.0, where(a < 0.5, tiny, div(e, e + 2.0)))
    return signed_like(x, out)


def logistic(x: E.Expr) -> E.Expr:
    """1/(1 + e^-x) for x >= 0, e^x/(1 + e^x) below: no overflow, subnormal tails kept."""
    e = exp(-fabs(x))
    d = e + 1.0
    return where(x < 0.0, div(e, d), div(c(1.0), d))


def asinh(x: E.Expr) -> E.Expr:
    a = fabs(x)
    small = log1p(a + div(a * a, sqrt(a * a + 1.0) + 1.0))
    return signed_like(x, where(a > 1e150, log(a) + K.LN2, small))


def acosh(x: E.Expr) -> E.Expr:
    t = x - 1.0
    out = where(x > 1e150, log(x) + K.LN2, log1p(t + sqrt(2.0 * t + t * t)))
    return where(x < 1.0, math.nan, out)


def atanh(x: E.Expr) -> E.Expr:
    a = fabs(x)
    t = a + a
    small = t + div(t * a, 1.0 - a)  # 2a/(1 - a) with the leading term exact
    return signed_like(x, 0.5 * log1p(where(a < 0.5, small, div(t, 1.0 - a))))


def cbrt(x: E.Expr) -> E.Expr:
    a = fabs(x)
    tiny, huge = a < 2.0 ** -900, a > 2.0 ** 900
    s = where(tiny, a * 2.0 ** 180, where(huge, a * 2.0 ** -180, a))
    r = exp(div(log(s), 3.0))
    p, pe = two_prod(r, r)
    q, qe = two_prod(p, r)
    resid = (q - s) + (qe + pe * r)  # r^3 - s without the rounding of r^3
    r = r - div(resid, 3.0 * p)
    r = where(tiny, r * 2.0 ** -60, where(huge, r * 2.0 ** 60, r))
    return where(eq(a, 0.0) | eq(a, math.inf) | isnan(x), x, signed_like(x, r))


# ---------------------------------------------------------------- pow
def _pow_special(a: E.Expr, b: E.Expr, mag: E.Expr) -> E.Expr:
    """IEEE pow's sign and special cases around |a|**b."""
    is_int = eq(floor(b), b)
    odd = eq(b - 2.0 * floor(b * 0.5), 1.0)
    out = where(sign_bit(a) & odd, -mag, mag)
    out = where((a < 0.0) & not_(is_int) & ne(a, -math.inf), math.nan, out)
    out = where(eq(fabs(a), 1.0) & eq(fabs(b), math.inf), 1.0, out)
    out = where(isnan(a) | isnan(b), math.nan, out)
    return where(eq(b, 0.0) | eq(a, 1.0), 1.0, out)


def pow_narrow(a: E.Expr, b: E.Expr) -> E.Expr:
    """pow for float32 (and narrower) operands: float64 exp(b log|a|) is exact enough."""
    return _pow_special(a, b, exp(b * log(fabs(a))))


def pow_f(a: E.Expr, b: E.Expr) -> E.Expr:
    aa = fabs(a)
    hi, lo = log_dd(vmin(vmax(aa, 5e-324), 1.7976931348623157e308))
    bc = vmin(vmax(b, -(2.0 ** 900)), 2.0 ** 900)  # beyond, |b log a| overflows anyway (a != 1)
    zh, zl = two_prod(bc, hi)
    zh, zl = fast_two_sum(zh, zl + bc * lo)
    p, k = exp_parts(zh, zl)
    mag = scale2(p, k)
    mag = where(eq(aa, 0.0), where(b < 0.0, math.inf, 0.0), mag)
    mag = where(eq(aa, math.inf), where(b < 0.0, 0.0, math.inf), mag)
    return _pow_special(a, b, mag)
