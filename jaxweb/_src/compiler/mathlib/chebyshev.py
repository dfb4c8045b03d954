"""Chebyshev interpolants for erfc and erf_inv, fitted in pure Python at first use.

No numpy (this runs inside Pyodide too). Node values are computed in Decimal
(34 digits) from series and continued fractions, and the coefficients by the
discrete cosine sums in Decimal too, then rounded once: a fit is then limited
by its degree, not by noise in its samples (fits from float samples carry
~1e-16 of noise in every coefficient, tens of ulp in all). `cheb_eval` emits the
Clenshaw recurrence as IR. About 0.1 s in CPython, once per process.
"""
from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext

from ... import dtypes
from .. import expr as E
from . import constants as K

F = dtypes.float64
PREC = 34


def cheb_fit(fn, lo: float, hi: float, n: int) -> tuple[float, float, list[float]]:
    """Coefficients of the degree n-1 interpolant of fn (Decimal -> Decimal) at the
    Chebyshev nodes of [lo, hi], trailing ones below 1e-18 of the first dropped."""
    with localcontext() as ctx:
        ctx.prec = PREC
        ts = [_cos(K._PI * (2 * k + 1) / (2 * n)) for k in range(n)]  # exact nodes: T_j are steep
        mid, half = (Decimal(hi) + Decimal(lo)) / 2, (Decimal(hi) - Decimal(lo)) / 2
        fx = [fn(mid + half * t) for t in ts]
        sums = [Decimal(0)] * n
        for t, f in zip(ts, fx):  # T_j(t) by the recurrence: exact at the (rounded) node t
            a, b = Decimal(1), t
            sums[0] += f
            for j in range(1, n):
                sums[j] += f * b
                a, b = b, 2 * t * b - a
        coeffs = [float(2 * s / n) for s in sums]
    coeffs[0] *= 0.5
    while len(coeffs) > 2 and abs(coeffs[-1]) < 1e-18 * abs(coeffs[0]):
        coeffs.pop()
    return lo, hi, coeffs


def cheb_value(fit, x: float) -> float:
    """Python evaluation (for tests of the fits themselves)."""
    lo, hi, cs = fit
    t = (2.0 * x - (lo + hi)) / (hi - lo)
    b1 = b2 = 0.0
    for cj in reversed(cs[1:]):
        b1, b2 = 2.0 * t * b1 - b2 + cj, b1
    return t * b1 - b2 + cs[0]


def cheb_eval(x: E.Expr, fit) -> E.Expr:
    lo, hi, cs = fit
    t = x * (2.0 / (hi - lo)) - ((lo + hi) / (hi - lo))
    t2 = t * 2.0
    b1, b2 = E.const(0.0, F), E.const(0.0, F)
    for cj in reversed(cs[1:]):
        b1, b2 = t2 * b1 - b2 + cj, b1
    return t * b1 - b2 + cs[0]


# ---------------------------------------------------------------- Decimal references
def _cos(a: Decimal) -> Decimal:
    s = term = Decimal(1)
    k = 0
    while abs(term) > Decimal(10) ** -(PREC + 2):
        k += 2
        term = -term * a * a / (k * (k - 1))
        s += term
    return s


with localcontext() as _ctx:
    _ctx.prec = PREC + 6
    _SQRTPI = K._PI.sqrt()
_EPS = Decimal(10) ** -(PREC - 1)


def _erf(d: Decimal) -> Decimal:
    """erf(d) by its Taylor series (0 <= d < 3; 5 digits are lost to cancellation at 3)."""
    s = term = d
    n = 0
    while abs(term) > _EPS * abs(s):
        n += 1
        term = -term * d * d / n
        s += term / (2 * n + 1)
    return 2 * s / _SQRTPI


def _erfcx_cf(d: Decimal) -> Decimal:
    """exp(d^2) erfc(d) for d >= 3 by the continued fraction (evaluated backwards)."""
    t = Decimal(0)
    for k in range(int(60 + 2000 / float(d) ** 2), 0, -1):
        t = Decimal(k) / 2 / (d + t)
    return 1 / (_SQRTPI * (d + t))


def _erfcx(d: Decimal) -> Decimal:
    return (d * d).exp() * (1 - _erf(d)) if d < 3 else _erfcx_cf(d)


def _erfc(d: Decimal) -> Decimal:
    return 1 - _erf(d) if d < 3 else (-d * d).exp() * _erfcx_cf(d)


def _xerfcx_inv2(v: Decimal) -> Decimal:
    """x erfcx(x) at v = 1/x^2 (x >= 4)."""
    x = 1 / v.sqrt()
    return x * _erfcx_cf(x)


def _erf_over_x(s: Decimal) -> Decimal:
    """erf(x)/x at s = x^2 (0 <= x <= 1)."""
    x = s.sqrt()
    return 2 / _SQRTPI if x == 0 else _erf(x) / x


def _erfinv(one_minus: Decimal, y: Decimal) -> Decimal:
    """x >= 0 with erf(x) = y (1 - y given exactly as well), by Newton from a float start."""
    x = Decimal(_erfinv_start(float(one_minus)))
    for _ in range(3):
        g = 2 / _SQRTPI * (-x * x).exp()
        x -= (_erf(x) - y) / g if y <= Decimal("0.5") else -(_erfc(x) - one_minus) / g
    return x


def _erfinv_start(t: float) -> float:
    """x with erfc(x) = t, to about float precision (bisection on math.erfc)."""
    lo, hi = 0.0, 10.0
    for _ in range(70):
        mid = 0.5 * (lo + hi)
        if math.erfc(mid) > t:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _erfinv_over_y(w: Decimal) -> Decimal:
    """erf_inv(y)/y where w = -log(1 - y^2)."""
    e = (-w).exp()
    y = (1 - e).sqrt()
    return _erfinv(e / (1 + y), y) / y


def _erfinv_of_s(s: Decimal) -> Decimal:
    """erf_inv(y) where -log(1 - y^2) = s^2."""
    e = (-s * s).exp()
    y = (1 - e).sqrt()
    return _erfinv(e / (1 + y), y)


@functools.lru_cache(maxsize=None)
def fits() -> dict:
    with localcontext() as ctx:
        ctx.prec = PREC
        return {
            "erfcx_05_1": cheb_fit(_erfcx, 0.5, 1.0, 24),
            "erfcx_1_2": cheb_fit(_erfcx, 1.0, 2.0, 26),
            "erfcx_2_4": cheb_fit(_erfcx, 2.0, 4.0, 28),
            "erfcx_4_8": cheb_fit(_erfcx, 4.0, 8.0, 26),
            "xerfcx_inv2": cheb_fit(_xerfcx_inv2, 0.0, 1.0 / 64, 16),
            "erfinv_w": cheb_fit(_erfinv_over_y, 0.0, 6.25, 44),
            "erfinv_s": cheb_fit(_erfinv_of_s, 2.5, math.sqrt(40.0), 36),
        }


@functools.lru_cache(maxsize=None)
def narrow_fits() -> dict:
    """Shorter fits for erf/erfc of float32 (and narrower) inputs, computed in float64 and
    rounded to float32 once: relative error below 4e-11 (erf's), 1.2e-9 (erfcx on [1, 4]) and
    3.2e-11 (the tail), measured on 4,000 points each, so the float32 result stays within
    0.5 ulp + 2**-29 of the correctly rounded one."""
    with localcontext() as ctx:
        ctx.prec = PREC
        return {
            "erf_over_x": cheb_fit(_erf_over_x, 0.0, 1.0, 8),
            "erfcx_1_4": cheb_fit(_erfcx, 1.0, 4.0, 15),
            "xerfcx_tail": cheb_fit(_xerfcx_inv2, 1.0 / 110.25, 1.0 / 16, 7),
        }
