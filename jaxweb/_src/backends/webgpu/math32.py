"""erf, erfc and log1p in float32 IR for the webgpu device (mathlib's compute in float64).

log1p(x) = log(u) (x / (u - 1)) with u = 1 + x (Goldberg's correction: exact to a few ulp,
as the codegen keeps `u - 1` as written), through `mathlib.fast32`'s log; x where u == 1.

Fits made for this module (least squares in relative error on Chebyshev nodes; Horner in
float32 measured <= 1.5e-7 relative, i.e. ~2.5 ulp, on each piece):
- |x| <= 1: erf(x) = x P(x^2), P of degree 7;
- 1 <= a < 4: erfc(a) = exp(-a^2) erfcx(a), erfcx a degree-13 polynomial in (a - 2.5)/1.5;
- a >= 4: erfcx(a) = Q(1/a^2) / a, Q of degree 6 (Q(0) = 1/sqrt(pi));
- erfc underflows past a = 10.1. exp(-a^2) takes a^2 in two parts (a rounded to 12 bits:
  its square is exact), each through the float32 exp of `mathlib.fast32`, so the large
  argument's rounding does not reach the result.
erf(x) = sign(x) (1 - erfc(|x|)) beyond 1, erfc(-a) = 2 - erfc(a); NaN gives NaN, erf(-0) = -0.
"""
from __future__ import annotations

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


def erf(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    small = x * _horner(x * x, ERF_SMALL)
    big = E.unary("sign", x) * (_c(1.0) - _erfc_ge1(E.binary("max", a, _c(1.0))))
    return E.where(E.binary("le", a, _c(1.0)), small, big)


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


MATH32 = {"erf": erf, "erfc": erfc, "log1p": log1p}
