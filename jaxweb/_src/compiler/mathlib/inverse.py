"""atan, atan2, asin and acos as float64 IR.

atan reduces |x| against the points 0, 1/2, 1, 3/2 and infinity (breaks at 7/16,
11/16, 19/16, 39/16) with atan(a) = atan(c) + atan((a - c)/(1 + a c)), so the
reduced |u| <= 7/16, and atan(u) = u + u s Q(s) (s = u^2, Taylor) is added to
atan(c) held in two parts. asin/acos use asin(x) = x + x s R(s) for |x| <= 1/2
and asin(x) = pi/2 - 2 asin(sqrt((1 - |x|)/2)) above, with the square root split
into a 26-bit head and a correction so the cancellation near 1/2 costs nothing.
atan2 is atan of min/max with octant fixes and IEEE signed zeros and infinities.
"""
from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext

from .. import expr as E
from . import constants as K
from .ir import F, I64, c, div, eq, fabs, isnan, poly, sign_bit, sqrt, vmax, vmin, where



def _atan_dec(v: Decimal) -> Decimal:
    """atan(v) for 0 <= v <= 1 in Decimal (argument halving, then the series)."""
    for _ in range(3):
        v = v / (1 + (1 + v * v).sqrt())
    s, term, n = Decimal(0), v, 0
    while abs(term) > Decimal(10) ** -55:
        s += term / (2 * n + 1)
        term *= -v * v
        n += 1
    return s * 8


@functools.cache
def atan_table() -> tuple[list[float], list[float]]:
    """atan(c) for c = 0, 1/2, 1, 3/2 (= atan(1) + atan(1/5)), inf, in two parts."""
    with localcontext() as ctx:
        ctx.prec = 60
        base = [Decimal(0), _atan_dec(Decimal("0.5")), _atan_dec(Decimal(1)),
                _atan_dec(Decimal(1)) + _atan_dec(Decimal("0.2")), K._PI / 2]
        hi = [float(v) for v in base]
        return hi, [float(v - Decimal(h)) for v, h in zip(base, hi)]
ATAN_Q = {False: [(-1) ** n / (2 * n + 1) for n in range(1, 24)],  # atan(u)/u - 1 = s Q(s)
          True: [(-1) ** n / (2 * n + 1) for n in range(1, 12)]}
ASIN_R = {False: [math.comb(2 * n, n) / 4 ** n / (2 * n + 1) for n in range(1, 25)],
          True: [math.comb(2 * n, n) / 4 ** n / (2 * n + 1) for n in range(1, 12)]}


def atan_pos(a: E.Expr, narrow: bool = False) -> E.Expr:
    """atan(a) for a >= 0 (a = inf gives pi/2)."""
    regions = (a >= 7 / 16, a >= 11 / 16, a >= 19 / 16, a >= 39 / 16)
    inv = div(c(-1.0), vmax(a, 1.0))
    u = where(regions[3], inv,
              where(regions[2], div(a * 2.0 - 3.0, a * 3.0 + 2.0),
                    where(regions[1], div(a - 1.0, a + 1.0),
                          where(regions[0], div(a * 2.0 - 1.0, a + 2.0), a))))
    idx = E.const(0, I64)
    for r in regions:
        idx = idx + E.where(r, E.const(1, I64), E.const(0, I64))
    table_hi, table_lo = atan_table()
    hi, lo = _table(table_hi, idx), _table(table_lo, idx)
    s = u * u
    return hi + (u + (u * s * poly(s, ATAN_Q[narrow]) + lo))


def _table(vals, idx):
    out = c(vals[-1])
    for j in range(len(vals) - 2, -1, -1):
        out = E.where(E.binary("eq", idx, E.const(j, I64)), c(vals[j]), out)
    return out


def atan(x: E.Expr, narrow: bool = False) -> E.Expr:
    r = atan_pos(fabs(x), narrow)
    return where(isnan(x), x, where(x < 0.0, -r, r))


def atan2(y: E.Expr, x: E.Expr, narrow: bool = False) -> E.Expr:
    ax, ay = fabs(x), fabs(y)
    hi, lo = vmax(ax, ay), vmin(ax, ay)
    t = where(eq(hi, 0.0), 0.0, where(eq(lo, math.inf), 1.0, div(lo, hi)))
    r = atan_pos(t, narrow)
    r = where(ay > ax, (K.PIO2_HI - r) + K.PIO2_LO, r)
    r = where(sign_bit(x), (K.PI_HI - r) + K.PI_LO, r)
    r = where(sign_bit(y), -r, r)
    return where(isnan(x) | isnan(y), math.nan, r)


def _asin_parts(x: E.Expr, narrow: bool) -> tuple[E.Expr, E.Expr, E.Expr, E.Expr]:
    """For a = |x|: (asin(a) for a <= 1/2, w_hi, w_rest) with
    asin(sqrt(z)) = w_hi + w_rest, z = (1 - a)/2, for a > 1/2."""
    a = fabs(x)
    s = a * a
    near = a + a * s * poly(s, ASIN_R[narrow])
    z = (1.0 - a) * 0.5  # exact for a >= 1/2
    w = sqrt(z)
    wh = E.bitcast(E.bitcast(w, I64) & E.const(~((1 << 32) - 1), I64), F)  # 21 bits: wh*wh exact
    corr = div(z - wh * wh, vmax(w + wh, 1e-300))  # sqrt(z) = wh + corr to ~2**-80 (z = 0: 0)
    rest = corr + w * z * poly(z, ASIN_R[narrow])
    return near, wh, rest, a


def asin(x: E.Expr, narrow: bool = False) -> E.Expr:
    near, wh, rest, a = _asin_parts(x, narrow)
    far = (K.PIO2_HI - 2.0 * wh) - (2.0 * rest - K.PIO2_LO)
    r = where(a <= 0.5, near, far)
    return where(a > 1.0, math.nan, where(x < 0.0, -r, r))


def acos(x: E.Expr, narrow: bool = False) -> E.Expr:
    near, wh, rest, a = _asin_parts(x, narrow)
    xs = where(x < 0.0, -near, near)
    mid = K.PIO2_HI - (xs - K.PIO2_LO)
    pos = 2.0 * (wh + rest)  # x > 1/2: 2 asin(sqrt((1 - x)/2))
    neg = 2.0 * (K.PIO2_HI - ((wh + rest) - K.PIO2_LO))  # x < -1/2: pi - 2 asin(...)
    r = where(a <= 0.5, mid, where(x > 0.0, pos, neg))
    return where(a > 1.0, math.nan, r)
