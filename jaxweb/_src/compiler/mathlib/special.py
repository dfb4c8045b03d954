"""erf, erfc, erf_inv, lgamma and digamma as float64 IR.

erf(x) for |x| < 1 is its Taylor series, x (2/sqrt(pi)) (1 + s Q(s)) with the
leading constant in two parts; above, 1 - erfc. erfc(a) for a >= 1/2 is
exp(-a^2) erfcx(a), with a^2 split exactly and erfcx from Chebyshev fits
(`chebyshev.py`) on [1/2, 1], [1, 2], [2, 4], [4, 8] and an asymptotic fit in
1/a^2 beyond; below 1/2, 1 - erf.
erf_inv uses fits in w = -log(1 - y^2) (central) and sqrt(w) (tails).

lgamma: for 1/2 <= x < 10 it shifts to t = x - N in [-1/2, 1/2) with
lgamma(2 + t) as its zeta series, plus the log of the product of the N - 2
factors (or - log1p(t) for N = 1), so the zeros at 1 and 2 keep full relative
accuracy; x < 1/2 uses lgamma(1 + x) - log(x); x >= 10 Stirling's series; x < 0
the reflection log(pi / |sin(pi x)|) - lgamma(1 - x) with sin(pi x) reduced
exactly (its results near the zeros of lgamma on the negative axis are accurate
in absolute, not relative, terms, as everywhere else). digamma shifts below 10
and reflects through pi cot(pi x), reduced exactly.
"""
from __future__ import annotations

import math

from .. import expr as E
from . import constants as K
from .chebyshev import cheb_eval, fits, narrow_fits
from .explog import exp, log, log1p
from .ir import F, I64, c, div, eq, fabs, floor, isnan, poly, signed_like, vmax, vmin, where
from .trig import sinpi_frac

TWO_OVER_SQRTPI_HI, TWO_OVER_SQRTPI_LO = K.TWO_OVER_SQRTPI_HI, K.TWO_OVER_SQRTPI_LO
# erf(x) = (2/sqrt(pi)) x (1 + s Q(s)), s = x^2: Q(s) = sum_{n>=1} (-1)^n s^(n-1) / (n! (2n+1))
ERF_Q = [(-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(1, 21)]
LOG_PI = K.LOG_PI


# ---------------------------------------------------------------- erf family
def _exp_neg_sq(x: E.Expr) -> E.Expr:
    """exp(-x*x) with x*x split exactly (x rounded to 26 bits, then the rest)."""
    xh = E.bitcast(E.bitcast(x, I64) & E.const(~((1 << 27) - 1), I64), F)
    xl = x - xh
    return exp(-(xh * xh)) * exp(-(xl * (x + xh)))


def _erfc_pos(a: E.Expr) -> E.Expr:
    """erfc(a) for a >= 1/2 (erfcx pieces times exp(-a^2))."""
    fs = fits()
    g = where(a < 1.0, cheb_eval(vmin(a, 1.0), fs["erfcx_05_1"]),
              where(a < 2.0, cheb_eval(vmin(vmax(a, 1.0), 2.0), fs["erfcx_1_2"]),
              where(a < 4.0, cheb_eval(vmin(vmax(a, 2.0), 4.0), fs["erfcx_2_4"]),
                    where(a < 8.0, cheb_eval(vmin(vmax(a, 4.0), 8.0), fs["erfcx_4_8"]),
                          div(cheb_eval(div(c(1.0), vmax(a * a, 64.0)), fs["xerfcx_inv2"]), a)))))
    return where(a > 27.5, 0.0, _exp_neg_sq(vmin(a, 27.5)) * g)


def _erf_small(x: E.Expr) -> E.Expr:
    """erf(x) for |x| <= 1."""
    s = x * x
    return x * TWO_OVER_SQRTPI_HI + (x * TWO_OVER_SQRTPI_LO + x * TWO_OVER_SQRTPI_HI * s * poly(s, ERF_Q))


def erf(x: E.Expr) -> E.Expr:
    a = fabs(x)
    big = signed_like(x, 1.0 - _erfc_pos(vmax(a, 1.0)))
    return where(a < 1.0, _erf_small(vmin(vmax(x, -1.0), 1.0)), where(isnan(x), x, big))


def erfc(x: E.Expr) -> E.Expr:
    a = fabs(x)
    pos = _erfc_pos(vmax(a, 0.5))
    big = where(x < 0.0, 2.0 - pos, pos)
    return where(a < 0.5, 1.0 - _erf_small(vmin(vmax(x, -0.5), 0.5)), where(isnan(x), x, big))


def _erfc_ge1_narrow(a: E.Expr) -> E.Expr:
    """erfc(a) for a >= 1 of a float32-or-narrower a (so a*a is exact in float64)."""
    fs = narrow_fits()
    s = a * a
    tail = div(cheb_eval(div(c(1.0), vmin(vmax(s, 16.0), 110.25)), fs["xerfcx_tail"]), a)
    g = where(a < 4.0, cheb_eval(vmin(a, 4.0), fs["erfcx_1_4"]), tail)
    return where(a > 10.5, 0.0, exp(-vmin(s, 110.25)) * g)  # float32's erfc underflows at 10.06


def _erf_small_narrow(x: E.Expr) -> E.Expr:
    """erf(x) for |x| <= 1 (clamped there)."""
    x = vmin(vmax(x, -1.0), 1.0)
    return x * cheb_eval(x * x, narrow_fits()["erf_over_x"])


def erf_narrow(x: E.Expr) -> E.Expr:
    """erf of a float32 (or narrower) value, in float64: 3 short fits and one exp instead of
    `erf`'s 5 long ones and two (~7x fewer operations)."""
    a = fabs(x)
    big = signed_like(x, 1.0 - _erfc_ge1_narrow(vmax(a, 1.0)))
    return where(a < 1.0, _erf_small_narrow(x), where(isnan(x), x, big))


def erfc_narrow(x: E.Expr) -> E.Expr:
    """erfc of a float32 (or narrower) value, as `erf_narrow`."""
    a = fabs(x)
    pos = _erfc_ge1_narrow(vmax(a, 1.0))
    big = where(x < 0.0, 2.0 - pos, pos)
    return where(a < 1.0, 1.0 - _erf_small_narrow(x), where(isnan(x), x, big))


def erf_inv(y: E.Expr) -> E.Expr:
    fs = fits()
    a = fabs(y)
    w = -log((1.0 - a) * (1.0 + a))
    central = y * cheb_eval(vmin(w, 6.25), fs["erfinv_w"])
    s = E.unary("sqrt", vmin(vmax(w, 6.25), 40.0))
    tail = signed_like(y, cheb_eval(s, fs["erfinv_s"]))
    out = where(w < 6.25, central, tail)
    out = where(eq(a, 1.0), signed_like(y, math.inf), out)
    return where((a > 1.0) | isnan(y), math.nan, out)


# ---------------------------------------------------------------- gamma family
def lgamma_pos(y: E.Expr) -> E.Expr:
    """lgamma(y) for y > 0 (y = +inf gives inf), with two logs and one log1p."""
    small, big = y < 0.5, y >= 10.0
    ym = vmin(vmax(y, 0.5), 10.0)
    n = where(small, 1.0, floor(ym + 0.5))  # 1..10
    t = where(small, y, ym - n)  # [-1/2, 1/2)
    p = c(1.0)
    for i in range(1, 9):
        p = p * where(n - 2.0 >= float(i), ym - float(i), 1.0)  # exact factors
    g = t * poly(t, K.lgamma2_series())  # lgamma(2 + t)
    # N = 1: lgamma(1 + t) = lgamma(2 + t) - log1p(t); N >= 2: + log(p), p - 1 exact
    lp = log1p(where(eq(n, 1.0), t, p - 1.0))
    mid = g + where(eq(n, 1.0), -lp, lp)
    z = vmax(y, 10.0)
    lz = log(where(small, y, z))  # log(y) for y < 1/2 (lgamma(y) = lgamma(1 + y) - log y), else log(z)
    iz = div(c(1.0), z)
    stirling = (z - 0.5) * lz - z + (K.HALF_LOG_2PI + iz * poly(iz * iz, K.STIRLING))
    return where(big, stirling, where(small, mid - lz, mid))


def lgamma(x: E.Expr) -> E.Expr:
    neg = x < 0.0
    pos = lgamma_pos(where(neg, 1.0 - x, vmax(x, 5e-324)))  # lgamma(1 - x) when reflecting
    s, _, _ = sinpi_frac(vmin(x, 0.0))
    reflected = (LOG_PI - log(fabs(s))) - pos
    # -2**-20 < x < 0: lgamma(1 + x) - log|x| by its series (sin(pi x) would be subnormal)
    tiny = x * (x * (K.PI * K.PI / 12.0) - K.EULER_GAMMA) - log(fabs(x))
    reflected = where(x > -(2.0 ** -20), tiny, reflected)
    pole = eq(floor(x), x) & (x <= 0.0)
    out = where(neg, reflected, pos)
    return where(pole | eq(fabs(x), math.inf), math.inf, out)


def digamma_pos(y: E.Expr) -> E.Expr:
    """digamma(y) for y > 0: around its zero x0 = 1.46.. a series in y - x0 (full
    relative accuracy there); below 10, digamma(2 + t) as its zeta series plus the
    N - 2 positive terms 1/(j + t) (or - 1/(1 + t) for N = 1, - 1/y below 1/2);
    from 10 on, the asymptotic series."""
    small, big = y < 0.5, y >= 10.0
    ym = vmin(vmax(y, 0.5), 10.0)
    n = where(small, 1.0, floor(ym + 0.5))
    t = where(small, y, ym - n)
    acc = where(eq(n, 1.0), div(c(-1.0), t + 1.0), 0.0)
    for j in range(2, 10):
        acc = acc + where(n - 1.0 >= float(j), div(c(1.0), t + float(j)), 0.0)
    mid = poly(t, K.psi2_series()) + acc
    mid = where(small, mid - div(c(1.0), y), mid)
    x0_hi, x0_lo, root = K.digamma_root()
    d = (y - x0_hi) - x0_lo  # y - x0_hi exact near x0
    near = d * poly(d, root)
    z = vmax(y, 10.0)
    iz2 = div(c(1.0), z * z)
    asym = log(z) - div(c(0.5), z) - iz2 * poly(iz2, K.DIGAMMA_SERIES)
    return where(big, asym, where(fabs(y - x0_hi) < 0.25, near, mid))


def digamma(x: E.Expr) -> E.Expr:
    neg = x < 0.0
    pos = digamma_pos(where(neg, 1.0 - x, x))
    s, co, _ = sinpi_frac(vmin(x, 0.0))
    out = where(neg, pos - K.PI * div(co, s), pos)
    pole = (x <= 0.0) & eq(floor(x), x)
    return where(pole | eq(x, -math.inf), math.nan, where(eq(x, math.inf), math.inf, out))
