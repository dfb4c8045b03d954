"""erfc, log1p, sinh, cosh, asinh, acosh, atanh, erf_inv, lgamma and digamma in float32 IR for the webgpu device
(mathlib's compute in float64, which WGSL does not have). erf is mathlib's float32 fast path
(`mathlib.fast32`: polynomials only, <= 1 ulp; this module's exp-based erf cost 5x as much
on SwiftShader, where a transformer's GELU runs it on every activation).

log1p(x) = log(u) (x / (u - 1)) with u = 1 + x (Goldberg's correction: exact to a few ulp,
as the codegen keeps `u - 1` as written), through `mathlib.fast32`'s log; x where u == 1.

Fits made for this module (least squares in relative error on Chebyshev nodes; Horner in
float32 measured <= 1.5e-7 relative, i.e. ~2.5 ulp, on each piece):
- |x| <= 1: erf(x) = x P(x^2), P of degree 7 (for erfc = 1 - erf there);
- 1 <= a < 4: erfc(a) = exp(-a^2) erfcx(a), erfcx a degree-13 polynomial in (a - 2.5)/1.5;
- a >= 4: erfcx(a) = Q(1/a^2) / a, Q of degree 6 (Q(0) = 1/sqrt(pi));
- erfc underflows past a = 10.1. exp(-a^2) takes a^2 in two parts (a rounded to 12 bits:
  its square is exact), each through the float32 exp of `mathlib.fast32`, so the large
  argument's rounding does not reach the result.
erfc(-a) = 2 - erfc(a); NaN gives NaN.

erf_inv, lgamma and digamma are the float32 algorithms XLA's GPU and CPU backends use, so
results match JAX's to its own accuracy: erf_inv is Giles' single-precision approximation
("Approximating the erfinv function", 2010: x P(w) with w = -log(1 - x^2), two pieces);
lgamma and digamma use the Lanczos approximation (g = 7, 9 terms) for x >= 1/2 and the
reflection formulas below it, with the reflected sine taken at x - round(x) so that the
poles (non-positive integers: lgamma = inf, digamma = NaN, as XLA) are exact. Near the
zeros of lgamma (1, 2) and digamma (1.4616..) the error is absolute, ~5e-7, as in JAX
(lgamma(1) is 4.8e-7 there too).
"""
from __future__ import annotations

import math

from ... import dtypes
from ...compiler import expr as E
from ...compiler.mathlib.fast32 import FAST32

F32, U32 = dtypes.float32, dtypes.uint32
ERF_SMALL = [1.128379225730896, -0.37612637877464294, 0.11283783614635468, -0.02686547487974167,
             0.005221138708293438, -0.0008485438884235919, 0.0001127473806263879, -9.689741091278847e-06]
ERFCX_MID = [0.21080636978149414, -0.11152102053165436, 0.05611047521233559, -0.02700531668961048,
             0.012489665299654007, -0.005570598412305117, 0.0024018678814172745, -0.0010059435153380036,
             0.000414183217799291, -0.0001625424629310146, 5.523922300199047e-05, -2.2073583750170656e-05,
             1.3720882634515874e-05, -4.5656161091756076e-06]
ERFCX_TAIL = [0.5641895532608032, -0.28209394216537476, 0.4230416715145111, -1.0516091585159302,
              3.4772279262542725, -11.744948387145996, 25.1279296875]


def _c(v: float) -> E.Expr:
    return E.const(v, F32)


def _horner(v: E.Expr, cs: list[float]) -> E.Expr:
    acc = _c(cs[-1])
    for k in reversed(cs[:-1]):
        acc = acc * v + _c(k)
    return acc


def _exp_neg_sq(a: E.Expr) -> E.Expr:
    exp = FAST32["exp"]
    ah = E.bitcast(E.binary("and", E.bitcast(a, U32), E.const(0xFFFFF000, U32)), F32)
    return exp(-(ah * ah)) * exp(-((a - ah) * (a + ah)))


def _erfc_ge1(a: E.Expr) -> E.Expr:
    """erfc(a) for a >= 1 (NaN stays NaN)."""
    mid = _horner((a - _c(2.5)) * _c(1 / 1.5), ERFCX_MID)
    tail = E.binary("div", _horner(E.binary("div", _c(1.0), a * a), ERFCX_TAIL), a)
    g = E.where(E.binary("lt", a, _c(4.0)), mid, tail)
    return E.where(E.binary("gt", a, _c(10.1)), _c(0.0), _exp_neg_sq(E.binary("min", a, _c(10.1))) * g)


def erfc(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    pos = E.where(E.binary("le", a, _c(1.0)), _c(1.0) - a * _horner(a * a, ERF_SMALL),
                  _erfc_ge1(E.binary("max", a, _c(1.0))))
    return E.where(E.binary("lt", x, _c(0.0)), _c(2.0) - pos, pos)


def log1p(x: E.Expr) -> E.Expr:
    u = _c(1.0) + x
    v = FAST32["log"](u) * E.binary("div", x, u - _c(1.0))  # the ratio is ~1: no overflow
    big = E.binary("eq", u, _c(float("inf")))  # x = +inf (the ratio would be inf/inf)
    return E.where(E.binary("eq", u, _c(1.0)), x, E.where(big, u, v))


def asinh(x: E.Expr) -> E.Expr:
    """sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))), a = |x|; log(a) + log 2 past 2^13, where
    the dropped 1/(4 a^2) is below float32's rounding (and a^2 would overflow past 2^64)."""
    a = E.unary("abs", x)
    small = log1p(a + E.binary("div", a * a, _c(1.0) + E.unary("sqrt", _c(1.0) + a * a)))
    big = FAST32["log"](a) + _c(math.log(2.0))
    return E.unary("sign", x) * E.where(E.binary("gt", a, _c(8192.0)), big, small)


def acosh(x: E.Expr) -> E.Expr:
    """log1p(t + sqrt(t (x + 1))), t = x - 1 (exact near 1); log(x) + log 2 past 2^13."""
    t = x - _c(1.0)
    small = log1p(t + E.unary("sqrt", t * (x + _c(1.0))))
    big = FAST32["log"](x) + _c(math.log(2.0))
    out = E.where(E.binary("gt", x, _c(8192.0)), big, small)
    return E.where(E.binary("lt", x, _c(1.0)), _c(float("nan")), out)


def atanh(x: E.Expr) -> E.Expr:
    """sign(x) log1p(2a / (1 - a)) / 2, a = |x| (the builtin lost small arguments to zero)."""
    a = E.unary("abs", x)
    return E.unary("sign", x) * (_c(0.5) * log1p(E.binary("div", a + a, _c(1.0) - a)))


def sinh(x: E.Expr) -> E.Expr:
    """sign(x) (m + m / (m + 1)) / 2 with m = expm1(|x|) (no cancellation near 0); past 88.7,
    where exp(a) overflows and sinh does not yet, exp(a - log 2) computes e^a / 2 directly."""
    a = E.unary("abs", x)
    m = FAST32["expm1"](a)
    small = _c(0.5) * (m + E.binary("div", m, m + _c(1.0)))
    big = FAST32["exp"](a - _c(math.log(2.0)))
    return E.unary("sign", x) * E.where(E.binary("gt", a, _c(88.0)), big, small)


def cosh(x: E.Expr) -> E.Expr:
    """(e + 1/e) / 2 with e = exp(|x|); exp(|x| - log 2) past 88, as `sinh`."""
    a = E.unary("abs", x)
    e = FAST32["exp"](a)
    small = _c(0.5) * (e + E.binary("div", _c(1.0), e))
    return E.where(E.binary("gt", a, _c(88.0)), FAST32["exp"](a - _c(math.log(2.0))), small)


ERF_INV_CENTRAL = [1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
                   -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08]  # w - 2.5, w < 5
ERF_INV_TAIL = [2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
                -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257]  # sqrt(w) - 3
LANCZOS_G = 7.0
LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
           -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
           1.5056327351493116e-7]


def erf_inv(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    w = -FAST32["log"]((_c(1.0) - x) * (_c(1.0) + x))
    central = _horner(w - _c(2.5), ERF_INV_CENTRAL)
    tail = _horner(E.unary("sqrt", E.binary("max", w, _c(5.0))) - _c(3.0), ERF_INV_TAIL)
    r = E.where(E.binary("lt", w, _c(5.0)), central, tail) * x
    r = E.where(E.binary("eq", a, _c(1.0)), x * _c(math.inf), r)
    return E.where(E.binary("gt", a, _c(1.0)), _c(math.nan), r)


def _lanczos(x: E.Expr) -> tuple:
    """For y = x reflected to y >= 1/2: (y, sum, its derivative's sum, t = y + g - 1/2, log t)."""
    reflect = E.binary("lt", x, _c(0.5))
    y = E.where(reflect, _c(1.0) - x, x)
    z = y - _c(1.0)
    s, ds = _c(LANCZOS[0]), _c(0.0)
    for k, c in enumerate(LANCZOS[1:], 1):
        d = z + _c(float(k))
        q = E.binary("div", _c(c), d)
        s, ds = s + q, ds - E.binary("div", q, d)
    t = z + _c(LANCZOS_G + 0.5)
    log_t = _c(math.log(LANCZOS_G + 0.5)) + log1p(E.binary("div", z, _c(LANCZOS_G + 0.5)))
    return reflect, z, s, ds, t, log_t


def _sin_pi_frac(x: E.Expr) -> tuple:
    """(sin(pi r), cos(pi r)) for r = x - round(x), |r| <= 1/2: exact zeros at integers."""
    r = _c(math.pi) * (x - E.unary("round_even", x))
    return E.unary("sin", r), E.unary("cos", r)


def lgamma(x: E.Expr) -> E.Expr:
    reflect, z, s, _, t, log_t = _lanczos(x)
    lg = (z + _c(0.5)) * log_t - t + _c(0.5 * math.log(2 * math.pi)) + FAST32["log"](s)
    sin, _ = _sin_pi_frac(x)
    refl = _c(math.log(math.pi)) - FAST32["log"](E.unary("abs", sin)) - lg
    out = E.where(reflect, refl, lg)
    return E.where(E.binary("eq", E.unary("abs", x), _c(math.inf)), _c(math.inf), out)


def digamma(x: E.Expr) -> E.Expr:
    reflect, _, s, ds, t, log_t = _lanczos(x)
    psi = log_t + E.binary("div", ds, s) - E.binary("div", _c(LANCZOS_G), t)
    sin, cos = _sin_pi_frac(x)
    refl = psi - E.binary("div", _c(math.pi) * cos, sin)
    pole = E.binary("eq", sin, _c(0.0)) | E.binary("eq", x, _c(-math.inf))
    return E.where(reflect, E.where(pole, _c(math.nan), refl), psi)


MATH32 = {"erfc": erfc, "log1p": log1p, "erf_inv": erf_inv, "lgamma": lgamma, "digamma": digamma,
          "asinh": asinh, "acosh": acosh, "atanh": atanh, "sinh": sinh, "cosh": cosh}
