"""Transcendental ops as IR expansions into primitive ops (add, mul, div, sqrt,
floor/round, where, bitcast, shifts, integer mul, ...), so every backend emitter -
scalar or SIMD - only needs primitives, and common subexpressions are shared.

Floats of every width are computed in float64 and rounded once (exp, expm1,
log, tanh, logistic and erf have float32 fast paths: `fast32.py`); float32 (and
narrower) inputs take shorter polynomials and reductions where the result is
rounded to float32 anyway. Methods are described in each module: `explog`
(exp, log, expm1, log1p, hyperbolic, logistic, cbrt, pow), `trig` (sin, cos,
tan: Cody-Waite then Payne-Hanek), `inverse` (atan, atan2, asin, acos),
`special` (erf, erfc, erf_inv, lgamma, digamma); IR helpers in `ir`.

Accuracy, as tested by tests/test_wasm_math.py against correctly rounded
references (tests/exact_math.py: Decimal, exact argument reduction) over the
whole domain: samples log-uniform in |x| from the smallest subnormal to the
largest finite value (both signs where defined), dense linear samples where
functions bend, the doubles closest to multiples of pi/2, and special values
(+-0, +-inf, NaN, subnormals, extremes: exact, signed zeros included). Max
error in ulp from the correctly rounded result:

    op        tested domain                                            f32   f64
    exp       all x (overflow, subnormal results, -inf -> 0)             1     1
    exp2      all x                                                      1     1
    expm1     all x                                                      1     1
    log       x >= 0, subnormals included                                1     1
    log1p     x >= -1                                                    1     2
    sinh      all x (finite up to its own overflow, |x| ~ 710.47)        1     2
    cosh      all x (as sinh)                                            1     1
    tanh      all x                                                      2     2
    logistic  all x (subnormal tails below -709 kept)                    2     2
    asinh     all x                                                      1     2
    acosh     x >= 1 (NaN below)                                         1     2
    atanh     |x| <= 1 (+-inf at +-1, NaN beyond)                        1     2
    cbrt      all x, subnormals included                                 1     1
    sin, cos  all x (Payne-Hanek to 1.8e308; hardest doubles included)   1     1
    tan       all x                                                      1     2
    atan      all x                                                      1     1
    asin/acos |x| <= 1                                                   1     1
    atan2     all (y, x), IEEE signed zeros and infinities               1     1
    pow       a > 0 with |b log a| up to overflow; IEEE special cases    1     1
    erf       all x                                                      1     2
    erfc      all x (down to its underflow at 27.2)                      1     4
    erf_inv   |y| <= 1 (tails to 1 - 2**-53)                             1     4
    lgamma    x > 0 (zeros at 1, 2 at full relative accuracy)            1     4
              x < 0: in ulp of max(|result|, |lgamma(1 - x)|)            1     4
    digamma   x > 0 (its zero at 1.4616.. at full relative accuracy)     1     2
              x < 0: in ulp of the larger reflection term                1     4

float32 figures hold for the float32 fast paths (exp <= 0.9, log <= 0.8,
expm1 <= 1, tanh and logistic <= 1.6, erf <= 0.82 ulp measured) and for everything computed
in float64 and rounded once (<= 0.5 ulp + 2**-29 measured). float16 and
bfloat16 go through the same code and round once more (tests/test_wasm_ops.py).

All functions return NaN for NaN, keep the sign of zero where f(+-0) = +-0,
and give IEEE's values at infinities and poles (lgamma(non-positive integer) =
inf, digamma there = NaN, as XLA). Integer pow is unrolled binary
exponentiation (XLA's wrapping semantics).
"""
from __future__ import annotations

import math

from ... import dtypes
from .. import expr as E
from . import explog, inverse, special, trig
from .fast32 import FAST32

F = dtypes.float64

# ---------------------------------------------------------------- non-float-64 helpers
def _int_pow(a: E.Expr, b: E.Expr) -> E.Expr:
    """XLA's integer pow: wraps; a negative exponent gives 0 except for bases 1 and -1."""
    dt = a.dtype
    zero = E.const(0, dt)
    e = E.where(b < zero, zero, b) if dt.kind == "i" else b
    nbits = dt.itemsize * 8
    result, base = E.const(1, dt), a
    for i in range(nbits):
        # bit i of e (not `& 1`: expr used to fold x & 1 to x, since 1 == True as a dict key)
        bit = E.binary("and", e, E.const(1 << i, dt)) if i else E.binary("rem", e, E.const(2, dt))
        result = E.where(E.binary("ne", bit, zero), result * base, result)
        base = base * base
    if dt.kind != "i":
        return result
    one, minus = E.const(1, dt), E.const(-1, dt)
    odd = E.binary("ne", E.binary("rem", b, E.const(2, dt)), zero)
    at_neg = E.where(E.binary("eq", a, one), one,
                     E.where(E.binary("eq", a, minus), E.where(odd, minus, one), zero))
    return E.where(b < zero, at_neg, result)


def _nextafter(x: E.Expr, y: E.Expr) -> E.Expr:
    dt = x.dtype
    ut = {2: dtypes.uint16, 4: dtypes.uint32, 8: dtypes.uint64}[dt.itemsize]
    one = E.const(1, ut)
    bx = E.bitcast(x, ut)
    zero = E.const(0.0, dt)
    up = E.binary("eq", E.binary("gt", y, x), E.binary("gt", x, zero))
    step = E.where(up, bx + one, E.binary("sub", bx, one))
    tiny = E.where(E.binary("gt", y, zero), one, E.const(1 | (1 << (8 * dt.itemsize - 1)), ut))
    out = E.bitcast(E.where(E.binary("eq", x, zero), tiny, step), dt)
    out = E.where(E.binary("eq", x, y), y, out)
    nan = E.binary("ne", x, x) | E.binary("ne", y, y)
    return E.where(nan, E.const(math.nan, dt), out)



# ---------------------------------------------------------------- tables and driver
#: op -> (float64 expansion, expansion for float32-or-narrower inputs); computed in float64
UNARY = {
    "exp": (explog.exp,) * 2, "exp2": (explog.exp2,) * 2, "log": (explog.log,) * 2,
    "log1p": (explog.log1p,) * 2, "expm1": (explog.expm1,) * 2,
    "sin": (trig.sin, lambda x: trig.sin(x, True)), "cos": (trig.cos, lambda x: trig.cos(x, True)),
    "tan": (trig.tan, lambda x: trig.tan(x, True)),
    "asin": (inverse.asin, lambda x: inverse.asin(x, True)),
    "acos": (inverse.acos, lambda x: inverse.acos(x, True)),
    "atan": (inverse.atan, lambda x: inverse.atan(x, True)),
    "sinh": (explog.sinh,) * 2, "cosh": (explog.cosh,) * 2, "tanh": (explog.tanh,) * 2,
    "asinh": (explog.asinh,) * 2, "acosh": (explog.acosh,) * 2, "atanh": (explog.atanh,) * 2,
    "cbrt": (explog.cbrt,) * 2, "logistic": (explog.logistic,) * 2,
    "erf": (special.erf, special.erf_narrow), "erfc": (special.erfc, special.erfc_narrow),
    "erf_inv": (special.erf_inv,) * 2,
    "lgamma": (special.lgamma,) * 2, "digamma": (special.digamma,) * 2,
}
BINARY = {
    "pow": (explog.pow_f, explog.pow_narrow),
    "atan2": (inverse.atan2, lambda y, x: inverse.atan2(y, x, True)),
}
#: functions with f(+-0) = +-0: expansions may lose the sign of zero, so it is restored
SIGNED_ZERO = frozenset("sin tan asin atan sinh tanh asinh atanh expm1 log1p erf erf_inv cbrt".split())


def expand_node(n: E.Expr, srcs: tuple) -> E.Expr | None:
    """The primitive-only replacement of one node (with expanded sources), or None."""
    out = _expand_node(n, srcs)
    if out is not None and n.op in SIGNED_ZERO:
        x = srcs[0]
        out = E.where(E.binary("eq", x, E.const(0.0, x.dtype)), x, out)
    return out


def _expand_node(n: E.Expr, srcs: tuple) -> E.Expr | None:
    op, dt = n.op, n.dtype
    if op == "rsqrt" and dt.kind == "f":  # as the reference rounds: f16 twice, bf16 once (in f32)
        if dt is dtypes.bfloat16:
            x = E.cast(srcs[0], dtypes.float32)
            return E.cast(E.binary("div", E.const(1.0, dtypes.float32), E.unary("sqrt", x)), dt)
        return E.binary("div", E.const(1.0, dt), E.unary("sqrt", srcs[0]))
    if op == "pow" and dt.kind in "iu":
        return _int_pow(*srcs)
    if op == "nextafter":
        return _nextafter(*srcs)
    narrow = dt.kind == "f" and dt.itemsize <= 4
    if op in FAST32 and narrow:  # f32 (and f16/bf16) fast paths
        return E.cast(FAST32[op](E.cast(srcs[0], dtypes.float32)), dt)
    fns = UNARY.get(op) or BINARY.get(op)
    if fns is None or dt.kind != "f":
        return None
    return E.cast(fns[narrow](*(E.cast(s, F) for s in srcs)), dt)


def expand(root: E.Expr) -> E.Expr:
    """`root` with every transcendental op replaced by primitive ops."""
    return expand_all([root])[0]


def expand_all(roots) -> list[E.Expr]:
    """Several expressions expanded at once (shared subexpressions expanded once)."""
    return E.rewrite(roots, expand_node)
