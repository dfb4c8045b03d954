"""Complex arithmetic and functions as formulas over pairs of real graph nodes.

A complex value is a pair `(re, im)` of real nodes of one shape and float dtype. The
functions here build the real graph of each complex operation, so that every backend
computes complex numbers with the real ALU ops it already has (no backend knows complex
dtypes). The formulas are the textbook ones, chosen where it matters to avoid needless
overflow or cancellation: Smith's division, a scaled modulus, `sqrt` through the
half-angle form, `log1p`/`expm1` that stay accurate near 0, odd functions evaluated
on the right half-plane. `complex_pairs.py` applies them to the complex nodes of a graph.
"""
from __future__ import annotations

import math
from typing import Callable

from .. import dtypes
from . import graph
from .graph import Node

Pair = tuple  # (re, im): two real nodes


def _c(x: Node, v: float) -> Node:
    return graph.const(v, x.dtype, x.shape)


def _a(op: str, *xs: Node) -> Node:
    return graph.alu(op, *xs)


def add(a: Pair, b: Pair) -> Pair:
    return _a("add", a[0], b[0]), _a("add", a[1], b[1])


def sub(a: Pair, b: Pair) -> Pair:
    return _a("sub", a[0], b[0]), _a("sub", a[1], b[1])


def neg(a: Pair) -> Pair:
    return _a("neg", a[0]), _a("neg", a[1])


def conj(a: Pair) -> Pair:
    return a[0], _a("neg", a[1])


def mul(a: Pair, b: Pair) -> Pair:
    (ar, ai), (br, bi) = a, b
    return (_a("sub", _a("mul", ar, br), _a("mul", ai, bi)),
            _a("add", _a("mul", ar, bi), _a("mul", ai, br)))


def scale(a: Pair, s: Node) -> Pair:
    """A complex value times a real one."""
    return _a("mul", a[0], s), _a("mul", a[1], s)


def times_i(a: Pair) -> Pair:
    return _a("neg", a[1]), a[0]


def div(a: Pair, b: Pair) -> Pair:
    """Smith's algorithm: divide by the larger of |br|, |bi| first, so that squaring the
    divisor never overflows (numpy and XLA do the same)."""
    (ar, ai), (br, bi) = a, b
    big_re = _a("ge", _a("abs", br), _a("abs", bi))
    r1 = _a("div", bi, br)
    d1 = _a("add", br, _a("mul", bi, r1))
    re1 = _a("div", _a("add", ar, _a("mul", ai, r1)), d1)
    im1 = _a("div", _a("sub", ai, _a("mul", ar, r1)), d1)
    r2 = _a("div", br, bi)
    d2 = _a("add", bi, _a("mul", br, r2))
    re2 = _a("div", _a("add", _a("mul", ar, r2), ai), d2)
    im2 = _a("div", _a("sub", _a("mul", ai, r2), ar), d2)
    zero = _a("and", _a("eq", br, _c(br, 0.0)), _a("eq", bi, _c(bi, 0.0)))
    # x / 0: each part divided by a real 0 (inf or nan by its sign), as numpy does
    re0, im0 = _a("div", ar, _a("abs", br)), _a("div", ai, _a("abs", br))
    re = graph.where(zero, re0, graph.where(big_re, re1, re2))
    im = graph.where(zero, im0, graph.where(big_re, im1, im2))
    return re, im


def modulus(a: Pair) -> Node:
    """|a| = hypot(re, im), scaled by the larger part so that squares do not overflow."""
    x, y = _a("abs", a[0]), _a("abs", a[1])
    big, small = _a("max", x, y), _a("min", x, y)
    ratio = _a("div", small, big)
    scaled = _a("mul", big, _a("sqrt", _a("add", _c(big, 1.0), _a("mul", ratio, ratio))))
    inf = _a("eq", big, _c(big, math.inf))
    out = graph.where(_a("eq", big, _c(big, 0.0)), _c(big, 0.0), scaled)
    return graph.where(inf, _c(big, math.inf), out)


def arg(a: Pair) -> Node:
    return _a("atan2", a[1], a[0])


def sign(a: Pair) -> Pair:
    m = modulus(a)
    zero = _a("eq", m, _c(m, 0.0))
    safe = graph.where(zero, _c(m, 1.0), m)
    re, im = _a("div", a[0], safe), _a("div", a[1], safe)
    return graph.where(zero, _c(m, 0.0), re), graph.where(zero, _c(m, 0.0), im)


def _zero_at_zero(x: Node, v: Node) -> Node:
    """v, or +0 where x is +-0: a part that is a product with sin(+-0) or sinh(+-0) is +0 in
    JAX (XLA) whatever the signs, and never 0 * inf = NaN (exp(inf + 0j) = inf + 0j)."""
    zero = _c(x, 0.0)
    return graph.where(_a("eq", x, zero), zero, v)


def exp(a: Pair) -> Pair:
    e = _a("exp", a[0])
    return _a("mul", e, _a("cos", a[1])), _zero_at_zero(a[1], _a("mul", e, _a("sin", a[1])))


def expm1(a: Pair) -> Pair:
    """exp(a) - 1 without cancellation near 0: re = expm1(x) cos y - 2 sin^2(y/2)."""
    x, y = a
    s = _a("sin", _a("mul", y, _c(y, 0.5)))
    re = _a("sub", _a("mul", _a("expm1", x), _a("cos", y)), _a("mul", _c(y, 2.0), _a("mul", s, s)))
    return re, _a("mul", _a("exp", x), _a("sin", y))


def log(a: Pair) -> Pair:
    return _a("log", modulus(a)), arg(a)


def log1p(a: Pair) -> Pair:
    """log(1 + a): the modulus term as 0.5 * log1p(x (2 + x) + y^2), exact near 0."""
    x, y = a
    inner = _a("add", _a("mul", x, _a("add", _c(x, 2.0), x)), _a("mul", y, y))
    small = _a("lt", _a("add", _a("abs", x), _a("abs", y)), _c(x, 0.5))
    far = log(( _a("add", x, _c(x, 1.0)), y))
    re = graph.where(small, _a("mul", _c(x, 0.5), _a("log1p", inner)), far[0])
    return re, _a("atan2", y, _a("add", x, _c(x, 1.0)))


def sqrt(a: Pair) -> Pair:
    """Principal root through t = sqrt((|a| + |re|) / 2): no cancellation on either side."""
    x, y = a
    m = modulus(a)
    t = _a("sqrt", _a("mul", _a("add", m, _a("abs", x)), _c(x, 0.5)))
    safe_t = graph.where(_a("eq", t, _c(t, 0.0)), _c(t, 1.0), t)
    other = _a("div", _a("abs", y), _a("mul", _c(t, 2.0), safe_t))
    signed_t = graph.where(_a("lt", y, _c(y, 0.0)), _a("neg", t), t)
    right = _a("ge", x, _c(x, 0.0))
    re = graph.where(right, t, other)
    im = graph.where(right, _a("div", y, _a("mul", _c(t, 2.0), safe_t)), signed_t)
    zero = _a("eq", m, _c(m, 0.0))
    inf_im = _a("eq", _a("abs", y), _c(y, math.inf))  # sqrt(x ± inf j) = inf ± inf j
    re = graph.where(inf_im, _c(x, math.inf), graph.where(zero, _c(x, 0.0), re))
    im = graph.where(inf_im, y, graph.where(zero, y, im))
    return re, im


def rsqrt(a: Pair) -> Pair:
    one = (_c(a[0], 1.0), _c(a[0], 0.0))
    return div(one, sqrt(a))


def sin(a: Pair) -> Pair:
    x, y = a
    return _zero_at_zero(x, _a("mul", _a("sin", x), _a("cosh", y))), _a("mul", _a("cos", x), _a("sinh", y))


def cos(a: Pair) -> Pair:
    x, y = a
    return (_a("mul", _a("cos", x), _a("cosh", y)),
            _zero_at_zero(x, _a("neg", _a("mul", _a("sin", x), _a("sinh", y)))))


def sinh(a: Pair) -> Pair:
    x, y = a
    return (_zero_at_zero(x, _a("mul", _a("sinh", x), _a("cos", y))),
            _zero_at_zero(y, _a("mul", _a("cosh", x), _a("sin", y))))


def cosh(a: Pair) -> Pair:
    x, y = a
    return _a("mul", _a("cosh", x), _a("cos", y)), _zero_at_zero(x, _zero_at_zero(y, _a("mul", _a("sinh", x), _a("sin", y))))


def tanh(a: Pair) -> Pair:
    """(sinh 2x + i sin 2y) / (cosh 2x + cos 2y); for large |x| (where cosh overflows) the
    real part is ±1 and the imaginary part 2 sin 2y e^(-2|x|)."""
    x, y = a
    x2, y2 = _a("mul", x, _c(x, 2.0)), _a("mul", y, _c(y, 2.0))
    d = _a("add", _a("cosh", x2), _a("cos", y2))
    re, im = _a("div", _a("sinh", x2), d), _a("div", _a("sin", y2), d)
    fin_y = _a("is_finite", y)  # y inf or NaN: NaN + NaN i, but ±1 + 0i where x is infinite (C99, JAX)
    big = _a("and", _a("gt", _a("abs", x), _c(x, 20.0)), _a("or", fin_y, _a("eq", _a("abs", x), _c(x, math.inf))))
    limit = graph.where(_a("lt", x, _c(x, 0.0)), _c(x, -1.0), _c(x, 1.0))
    tail = _a("mul", _a("mul", _c(x, 2.0), _a("sin", y2)), _a("exp", _a("neg", _a("abs", x2))))  # ~ im there
    tail = graph.where(fin_y, tail, _c(x, 0.0))
    return graph.where(big, limit, re), _zero_at_zero(y, graph.where(big, tail, im))


def tan(a: Pair) -> Pair:
    """tan(a) = -i tanh(i a)."""
    t = tanh(times_i(a))
    return t[1], _a("neg", t[0])


def _odd(f: Callable[[Pair], Pair]) -> Callable[[Pair], Pair]:
    """An odd function evaluated on the right half-plane (f(-a) = -f(a)), where its log
    formula does not cancel."""
    def g(a: Pair) -> Pair:
        left = _a("lt", a[0], _c(a[0], 0.0))
        flip = (graph.where(left, _a("neg", a[0]), a[0]), graph.where(left, _a("neg", a[1]), a[1]))
        r = f(flip)
        return graph.where(left, _a("neg", r[0]), r[0]), graph.where(left, _a("neg", r[1]), r[1])
    return g


def _one(a: Pair) -> Pair:
    return _c(a[0], 1.0), _c(a[0], 0.0)


def asinh(a: Pair) -> Pair:
    """On the imaginary cut: a positive real part, the imaginary part signed as Im a."""
    re, im = _asinh(a)
    cut = _cut(a[1], a[0])
    return graph.where(cut, _a("abs", re), re), graph.where(cut, _signed(im, _a("lt", a[1], _c(a[1], 0.0))), im)


@_odd
def _asinh(a: Pair) -> Pair:
    """log(a + sqrt(a^2 + 1)) on the right half-plane, as log1p(a + a^2 / (1 + sqrt(a^2 + 1)))
    so that small arguments keep their digits."""
    a2 = mul(a, a)
    root = sqrt(add(a2, _one(a)))
    return log1p(add(a, div(a2, add(root, _one(a)))))


def _cut(along: Node, across: Node) -> Node:
    """Points on a branch cut: `across` is zero and |along| > 1. XLA ignores the sign of
    that zero there (both sides give the value from one side); so does jaxweb."""
    return _a("and", _a("eq", across, _c(across, 0.0)), _a("gt", _a("abs", along), _c(along, 1.0)))


def _signed(v: Node, negative: Node) -> Node:
    return graph.where(negative, _a("neg", _a("abs", v)), _a("abs", v))


def asin(a: Pair) -> Pair:
    """asin(a) = -i asinh(i a); on the real cut the imaginary part is positive (as XLA)."""
    r = asinh(times_i(a))
    re, im = r[1], _a("neg", r[0])
    return re, graph.where(_cut(a[0], a[1]), _a("abs", im), im)


def acos(a: Pair) -> Pair:
    r = asin(a)
    return _a("sub", _c(a[0], math.pi / 2), r[0]), _a("neg", r[1])


def acosh(a: Pair) -> Pair:
    """log(a + sqrt(a + 1) sqrt(a - 1)): the product of roots picks the principal branch.
    At an infinite argument that formula meets inf - inf; there acosh(a) ~ log(2a): an
    infinite real part and arg(a) as the imaginary one (XLA's values: inf + pi i at -inf)."""
    one = _one(a)
    re, im = log(add(a, mul(sqrt(add(a, one)), sqrt(sub(a, one)))))
    x, y = a
    inf = _c(x, math.inf)
    far = _a("or", _a("eq", _a("abs", x), inf), _a("eq", _a("abs", y), inf))
    return graph.where(far, inf, re), graph.where(far, _a("atan2", y, x), im)


def atanh(a: Pair) -> Pair:
    """(log1p(a) - log1p(-a)) / 2; on the real cut the imaginary part is +pi/2 (as XLA)."""
    p, q = log1p(a), log1p(neg(a))
    half = _c(a[0], 0.5)
    im = _a("mul", _a("sub", p[1], q[1]), half)
    return _a("mul", _a("sub", p[0], q[0]), half), graph.where(_cut(a[0], a[1]), _a("abs", im), im)


def atan(a: Pair) -> Pair:
    """atan(a) = -i atanh(i a); on the imaginary cut the real part takes the sign of the
    (zero) real part, the imaginary one that of Im a (as XLA)."""
    r = atanh(times_i(a))
    re, im = r[1], _a("neg", r[0])
    cut = _cut(a[1], a[0])
    return (graph.where(cut, _signed(re, _signbit(a[0])), re),
            graph.where(cut, _signed(im, _a("lt", a[1], _c(a[1], 0.0))), im))


def _signbit(x: Node) -> Node:
    bits = dtypes.int64 if x.dtype.itemsize == 8 else dtypes.int32
    return _a("lt", x.bitcast(bits), graph.const(0, bits, x.shape))


def power(a: Pair, b: Pair) -> Pair:
    """a ** b = exp(b log a); 0 ** b is 0 for Re b > 0 (and 1 for b == 0), as numpy."""
    r = exp(mul(b, log(a)))
    zero_a = _a("and", _a("eq", a[0], _c(a[0], 0.0)), _a("eq", a[1], _c(a[1], 0.0)))
    zero_b = _a("and", _a("eq", b[0], _c(b[0], 0.0)), _a("eq", b[1], _c(b[1], 0.0)))
    re = graph.where(zero_b, _c(a[0], 1.0), graph.where(zero_a, _c(a[0], 0.0), r[0]))
    im = graph.where(zero_b, _c(a[0], 0.0), graph.where(zero_a, _c(a[0], 0.0), r[1]))
    return re, im


def is_finite(a: Pair) -> Node:
    return _a("and", _a("is_finite", a[0]), _a("is_finite", a[1]))


def eq(a: Pair, b: Pair) -> Node:
    return _a("and", _a("eq", a[0], b[0]), _a("eq", a[1], b[1]))


def ne(a: Pair, b: Pair) -> Node:
    return _a("or", _a("ne", a[0], b[0]), _a("ne", a[1], b[1]))


def _lex(strict: str, weak: str) -> Callable[[Pair, Pair], Node]:
    """numpy's order of complex numbers: real parts, then imaginary parts (sorting uses it;
    lax's comparison primitives reject complex operands, as JAX's do)."""
    def compare(a: Pair, b: Pair) -> Node:
        return _a("or", _a(strict, a[0], b[0]), _a("and", _a("eq", a[0], b[0]), _a(weak, a[1], b[1])))
    return compare


def _pick(compare: Callable[[Pair, Pair], Node]) -> Callable[[Pair, Pair], Pair]:
    def pick(a: Pair, b: Pair) -> Pair:
        c = compare(a, b)
        return graph.where(c, a[0], b[0]), graph.where(c, a[1], b[1])
    return pick


#: ALU ops whose complex result is a formula of complex operands
COMPLEX_RESULT: dict[str, Callable[..., Pair]] = {
    "add": add, "sub": sub, "neg": neg, "mul": mul, "div": div, "conj": conj, "sign": sign,
    "exp": exp, "expm1": expm1, "log": log, "log1p": log1p, "sqrt": sqrt, "rsqrt": rsqrt,
    "sin": sin, "cos": cos, "tan": tan, "sinh": sinh, "cosh": cosh, "tanh": tanh,
    "asin": asin, "acos": acos, "atan": atan, "asinh": asinh, "acosh": acosh, "atanh": atanh,
    "pow": power,
}
#: ALU ops with a real (or boolean) result from complex operands
REAL_RESULT: dict[str, Callable[..., Node]] = {
    "abs": modulus, "real": lambda a: a[0], "imag": lambda a: a[1], "is_finite": is_finite,
    "eq": eq, "ne": ne, "lt": _lex("lt", "lt"), "le": _lex("lt", "le"), "gt": _lex("gt", "gt"),
    "ge": _lex("gt", "ge"),
}
COMPLEX_RESULT.update(max=_pick(REAL_RESULT["ge"]), min=_pick(REAL_RESULT["le"]))


def exp2(a: Pair) -> Pair:
    return exp(scale(a, _c(a[0], math.log(2.0))))


def logistic(a: Pair) -> Pair:
    """1 / (1 + exp(-a))."""
    e = exp(neg(a))
    return div(_one(a), (_a("add", e[0], _c(a[0], 1.0)), e[1]))


COMPLEX_RESULT.update(exp2=exp2, logistic=logistic)
