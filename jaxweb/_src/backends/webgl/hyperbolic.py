"""sinh, cosh, asinh, acosh, atanh and cbrt of float32 in IR, for the webgl device.

GLSL ES 3.00's builtins for these promise nothing, and SwiftShader's are written the
textbook way: sinh(1e-6) as (e^x - e^-x) / 2 lost every digit (837,000 ulp), cosh(79.7)
through an exp whose error grows with |x| was 61 ulp off. Here they are built on the
compiler's accurate float32 exp/expm1/log (mathlib.fast32) and log1p (webgpu.math32):
  sinh(x) = s (e + e / (e + 1)) / 2 with e = expm1(|x|);  cosh(x) = (E + 1 / E) / 2;
  both as (exp(|x| / 2) / 2) exp(|x| / 2) past 88 (no overflow before the result's);
  asinh(x) = s log1p(a + a^2 / (1 + sqrt(1 + a^2))), s (log(a) + ln 2) past 1e18;
  acosh(x) = log1p(t + sqrt(t (x + 1))) with t = x - 1, log(x) + ln 2 past 1e18;
  atanh(x) = s log1p(2 a / (1 - a)) / 2;  cbrt: exp2(log2(|x|) / 3) and one Newton step.
(s the sign of x, a = |x|; -0 and NaN pass through.)
"""
from __future__ import annotations

from ... import dtypes
from ...compiler import expr as E
from ...compiler.mathlib.fast32 import exp, expm1, log
from ..webgpu.math32 import log1p

F32 = dtypes.float32
LN2 = 0.6931471805599453


def c(v: float) -> E.Expr:
    return E.const(v, F32)


def div(a: E.Expr, b: E.Expr) -> E.Expr:
    return E.binary("div", a, b)


def _signed(x: E.Expr, r: E.Expr) -> E.Expr:
    """r with x's sign; x itself where x is 0 (keeps -0) or NaN."""
    s = E.where(E.binary("lt", x, c(0.0)), E.unary("neg", r), r)
    return E.where(E.binary("ne", x, x) | E.binary("eq", x, c(0.0)), x, s)


def _big(a: E.Expr) -> E.Expr:
    h = exp(a * c(0.5))
    return (h * c(0.5)) * h


def sinh(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    e = expm1(E.binary("min", a, c(88.0)))
    small = (e + div(e, e + c(1.0))) * c(0.5)
    return _signed(x, E.where(E.binary("gt", a, c(88.0)), _big(a), small))


def cosh(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    e = exp(E.binary("min", a, c(88.0)))
    small = e * c(0.5) + div(c(0.5), e)
    return E.where(E.binary("gt", a, c(88.0)), _big(a), small)


def asinh(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    a2 = a * a
    mid = log1p(a + div(a2, c(1.0) + E.unary("sqrt", c(1.0) + a2)))
    return _signed(x, E.where(E.binary("gt", a, c(1e18)), log(a) + c(LN2), mid))


def acosh(x: E.Expr) -> E.Expr:
    t = x - c(1.0)
    mid = log1p(t + E.unary("sqrt", t * (x + c(1.0))))
    r = E.where(E.binary("gt", x, c(1e18)), log(x) + c(LN2), mid)
    return E.where(E.binary("lt", x, c(1.0)), c(float("nan")), r)


def atanh(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    r = log1p(div(a + a, c(1.0) - a)) * c(0.5)
    return _signed(x, E.where(E.binary("gt", a, c(1.0)), c(float("nan")), r))


def cbrt(x: E.Expr) -> E.Expr:
    a = E.unary("abs", x)
    y = exp(log(a) * c(1.0 / 3.0))
    y = y - div(y * y * y - a, c(3.0) * y * y)
    return E.where(E.binary("eq", a, c(float("inf"))) | E.binary("eq", a, c(0.0)), x, _signed(x, y))


HYPERBOLIC = {"sinh": sinh, "cosh": cosh, "asinh": asinh, "acosh": acosh, "atanh": atanh, "cbrt": cbrt}


def expand(roots: list[E.Expr]) -> list[E.Expr]:
    """`roots` with these ops (on float dtypes) replaced by their float32 IR."""
    return E.rewrite(roots, lambda n, srcs: E.cast(HYPERBOLIC[n.op](E.cast(srcs[0], F32)), n.dtype)
                     if n.op in HYPERBOLIC and n.dtype.kind == "f" else None)
