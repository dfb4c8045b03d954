"""Transcendental elementwise primitives: exponentials, logs, roots, trigonometric,
hyperbolic and special functions (erf, lgamma, digamma, logistic).

All accept floating dtypes only (float16/bfloat16 compute in float32) and map to
one IR op each. JVP rules follow JAX's (e.g. sqrt'(0) = inf); the derivative of
digamma uses a trigamma built from lax ops. Re-exported by `elementwise.py`.
"""
from __future__ import annotations

__all__ = [
    "exp", "exp2", "log", "log1p", "expm1", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "atan2", "erf",
    "erfc", "erf_inv", "lgamma", "digamma", "logistic", "is_finite",
    "exp_p", "exp2_p", "log_p", "log1p_p", "expm1_p", "sqrt_p", "rsqrt_p", "cbrt_p", "sin_p",
    "cos_p", "tan_p", "asin_p", "acos_p", "atan_p", "sinh_p", "cosh_p", "tanh_p", "asinh_p",
    "acosh_p", "atanh_p", "atan2_p", "erf_p", "erfc_p", "erf_inv_p", "lgamma_p", "digamma_p",
    "logistic_p", "is_finite_p",
]

import math
from typing import Any

from .. import dtypes
from ..interpreters import rules as R
from .base import FLOAT, INEXACT, binop, unop
from .elementwise import (_nary_wrapper, _unary_wrapper, add, div, integer_pow, lt, mul, neg,
                          select, sub)

_UNARY = ("exp exp2 log log1p expm1 sqrt rsqrt cbrt sin cos tan asin acos atan sinh cosh tanh "
          "asinh acosh atanh erf erfc erf_inv lgamma digamma logistic").split()
#: the functions JAX also defines on complex numbers (complex_math.py has their formulas)
_COMPLEX_TOO = frozenset(("exp exp2 log log1p expm1 sqrt rsqrt sin cos tan asin acos atan sinh cosh "
                          "tanh asinh acosh atanh logistic").split())
_PRIMS = {name: unop(name, INEXACT if name in _COMPLEX_TOO else FLOAT) for name in _UNARY}
for _p in _PRIMS.values():
    R.defvectorized(_p)
(exp_p, exp2_p, log_p, log1p_p, expm1_p, sqrt_p, rsqrt_p, cbrt_p, sin_p, cos_p, tan_p, asin_p,
 acos_p, atan_p, sinh_p, cosh_p, tanh_p, asinh_p, acosh_p, atanh_p, erf_p, erfc_p, erf_inv_p,
 lgamma_p, digamma_p, logistic_p) = (_PRIMS[n] for n in _UNARY)

is_finite_p = unop("is_finite", FLOAT, result_dtype=dtypes.bool_)
R.defvectorized(is_finite_p)
R.defnondifferentiable(is_finite_p)

atan2_p = binop("atan2", FLOAT)
R.defbroadcasting(atan2_p)

(exp, exp2, log, log1p, expm1, sqrt, rsqrt, cbrt, sin, cos, tan, asin, acos, atan, sinh, cosh,
 tanh, asinh, acosh, atanh, erf, erfc, erf_inv, lgamma, digamma, logistic) = (
    _unary_wrapper(_PRIMS[n]) for n in _UNARY)
is_finite = _unary_wrapper(is_finite_p)
atan2 = _nary_wrapper(atan2_p)

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _trigamma(x: Any) -> Any:
    """polygamma(1, x): recurrence up to x >= 6, asymptotic series there, and the
    reflection formula for x < 0.5 (poles at non-positive integers give inf/nan)."""
    reflect = lt(x, 0.5)
    z = select(reflect, sub(1, x), x)
    acc = div(1, mul(z, z))
    for k in range(1, 6):
        zk = add(z, k)
        acc = add(acc, div(1, mul(zk, zk)))
    w = add(z, 6)
    r = div(1, w)
    r2 = mul(r, r)
    series = mul(r, add(1, mul(r, add(0.5, mul(r, add(1 / 6, mul(r2, add(-1 / 30, mul(r2, add(
        1 / 42, mul(r2, -1 / 30)))))))))))
    pos = add(acc, series)
    s = sin(mul(x, math.pi))
    return select(reflect, sub(div(math.pi ** 2, mul(s, s)), pos), pos)


R.defjvp2(exp_p, lambda g, ans, x: mul(g, ans))
R.defjvp2(exp2_p, lambda g, ans, x: mul(g, mul(ans, math.log(2))))
R.defjvp(log_p, lambda g, x: div(g, x))
R.defjvp(log1p_p, lambda g, x: div(g, add(x, 1)))
R.defjvp2(expm1_p, lambda g, ans, x: mul(g, add(ans, 1)))
R.defjvp2(sqrt_p, lambda g, ans, x: mul(g, div(0.5, ans)))
R.defjvp2(rsqrt_p, lambda g, ans, x: mul(g, mul(-0.5, div(ans, x))))
R.defjvp2(cbrt_p, lambda g, ans, x: mul(g, mul(1 / 3, integer_pow(ans, -2))))
R.defjvp(sin_p, lambda g, x: mul(g, cos(x)))
R.defjvp(cos_p, lambda g, x: neg(mul(g, sin(x))))
R.defjvp2(tan_p, lambda g, ans, x: mul(g, add(1, mul(ans, ans))))
R.defjvp(asin_p, lambda g, x: mul(g, rsqrt(sub(1, mul(x, x)))))
R.defjvp(acos_p, lambda g, x: neg(mul(g, rsqrt(sub(1, mul(x, x))))))
R.defjvp(atan_p, lambda g, x: div(g, add(1, mul(x, x))))
R.defjvp(sinh_p, lambda g, x: mul(g, cosh(x)))
R.defjvp(cosh_p, lambda g, x: mul(g, sinh(x)))
R.defjvp2(tanh_p, lambda g, ans, x: mul(g, sub(1, mul(ans, ans))))
R.defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(mul(x, x), 1))))
R.defjvp(acosh_p, lambda g, x: mul(g, rsqrt(mul(sub(x, 1), add(x, 1)))))
R.defjvp(atanh_p, lambda g, x: div(g, mul(add(1, x), sub(1, x))))
R.defjvp(atan2_p, lambda g, x, y: mul(g, div(y, add(mul(x, x), mul(y, y)))),
         lambda g, x, y: mul(g, div(neg(x), add(mul(x, x), mul(y, y)))))
R.defjvp(erf_p, lambda g, x: mul(g, mul(_TWO_OVER_SQRT_PI, exp(neg(mul(x, x))))))
R.defjvp(erfc_p, lambda g, x: mul(g, mul(-_TWO_OVER_SQRT_PI, exp(neg(mul(x, x))))))
R.defjvp2(erf_inv_p, lambda g, ans, x: mul(g, mul(math.sqrt(math.pi) / 2, exp(mul(ans, ans)))))
R.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))
R.defjvp(digamma_p, lambda g, x: mul(g, _trigamma(x)))
R.defjvp2(logistic_p, lambda g, ans, x: mul(g, mul(ans, sub(1, ans))))
