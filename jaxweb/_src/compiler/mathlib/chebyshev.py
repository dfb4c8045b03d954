"""Chebyshev interpolants for special functions, fitted in pure Python at first use.

No numpy (this runs inside Pyodide too): coefficients come from the discrete
cosine sums over Chebyshev nodes, with reference values from CPython's `math`
(erf, erfc) or from short accurate computations below (erfcx tails by the
asymptotic series, erf_inv by bisection on erfc). `cheb_eval` emits the Clenshaw
recurrence as IR, so the fit is evaluated by generated code.
"""
from __future__ import annotations

import functools
import math

from ... import dtypes
from .. import expr as E

F = dtypes.float64


def cheb_fit(fn, lo: float, hi: float, n: int) -> tuple[float, float, list[float]]:
    fx = []
    for k in range(n):
        t = math.cos(math.pi * (k + 0.5) / n)
        fx.append(fn(0.5 * (hi + lo) + 0.5 * (hi - lo) * t))
    coeffs = []
    for j in range(n):
        s = math.fsum(fx[k] * math.cos(math.pi * j * (k + 0.5) / n) for k in range(n))
        coeffs.append(2.0 * s / n)
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


# ---------------------------------------------------------------- reference values
def _exp_sq(x: float) -> float:
    """exp(x*x) without the rounding error of x*x (x split at 26 bits)."""
    xh = math.ldexp(math.floor(math.ldexp(x, 20)), -20) if x < 64 else x
    xl = x - xh
    return math.exp(xh * xh) * math.exp(xl * (x + xh))


def _erfcx(x: float) -> float:
    return math.erfc(x) * _exp_sq(x)


def _xerfcx_asym(v: float) -> float:
    """x * erfcx(x) at v = 1/x^2 (x >= 8) by the asymptotic series."""
    x2 = 1.0 / v
    term, total = 1.0, 1.0
    for n in range(1, 80):
        term *= -(2 * n - 1) / (2 * x2)
        total += term
        if abs(term) < 1e-20:
            break
    return total / math.sqrt(math.pi)


def _erfinv_from_w(w: float) -> float:
    """x >= 0 with -log(erfc(x) * (2 - erfc(x))) = w, by bisection (erfc is accurate in tails)."""
    lo, hi = 0.0, 10.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        e = math.erfc(mid)
        val = -math.log(e * (2.0 - e)) if e > 0 else math.inf
        if val < w:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-17 * hi:
            break
    return 0.5 * (lo + hi)


def _erfinv_over_y(w: float) -> float:
    x = _erfinv_from_w(w)
    return x / math.erf(x) if x > 0 else math.sqrt(math.pi) / 2


@functools.lru_cache(maxsize=None)
def fits() -> dict:
    return {
        "erf_small": cheb_fit(lambda u: math.erf(math.sqrt(u)) / math.sqrt(u), 0.0, 1.0, 24),
        "erfcx_1_2": cheb_fit(_erfcx, 1.0, 2.0, 26),
        "erfcx_2_4": cheb_fit(_erfcx, 2.0, 4.0, 28),
        "erfcx_4_8": cheb_fit(_erfcx, 4.0, 8.0, 24),
        "xerfcx_inv2": cheb_fit(_xerfcx_asym, 0.0, 1.0 / 64, 20),
        "erfinv_w": cheb_fit(_erfinv_over_y, 0.0, 6.25, 36),
        "erfinv_s": cheb_fit(lambda s: _erfinv_from_w(s * s), 2.5, math.sqrt(40.0), 30),
    }
