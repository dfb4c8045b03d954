"""Correctly rounded references for the math tests, in pure Python (Decimal and
integers; no mpmath). Each function takes and returns a Python float; values
are computed with 40+ significant digits, then rounded once.

CPython's `math` is not always correctly rounded (glibc's cbrt is off by up to
3 ulp, sinh and tanh by 2), and the kernels are tested against these instead
wherever an ulp bound of about 1 is claimed. Argument reduction for sin/cos/tan
is exact: x is an integer times a power of two, divided by pi/2 with 1300 bits of
pi in integer arithmetic.
"""
from __future__ import annotations

import math
from decimal import Decimal, Overflow, localcontext
from fractions import Fraction

PREC = 45


def _pi_fixed(bits: int) -> int:
    g = bits + 32
    one = 1 << g

    def atan_inv(n: int) -> int:
        total = term = one // n
        k, n2 = 1, n * n
        while term:
            term //= n2
            total += (-1) ** k * (term // (2 * k + 1))
            k += 1
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 32


_PIB = 2400
_PI_INT = _pi_fixed(_PIB)  # pi * 2**_PIB


def _dec(v) -> Decimal:
    if isinstance(v, Fraction):
        return Decimal(v.numerator) / Decimal(v.denominator)
    return Decimal(v)


def pi_dec() -> Decimal:
    return Decimal(_PI_INT) / Decimal(2) ** _PIB


TINY = 1e-25  # below, f(x) = x + O(x^2) rounds to x for the odd/expm1/log1p family


def _tiny(x: float) -> bool:
    return abs(x) < TINY


# ---------------------------------------------------------------- exp / log family
def exp(x: float) -> float:
    with localcontext() as c:
        c.prec = PREC
        try:
            return float(Decimal(x).exp())
        except Overflow:
            return math.inf


def expm1(x: float) -> float:
    if _tiny(x):
        return x
    if x == 0 or math.isinf(x):
        return x if x == 0 or x > 0 else -1.0
    if math.isnan(x) or x > 710:
        return x if math.isnan(x) else math.inf
    with localcontext() as c:
        c.prec = PREC + 30
        return float(Decimal(x).exp() - 1)


def exp2(x: float) -> float:
    if math.isnan(x):
        return x
    with localcontext() as c:
        c.prec = PREC
        return float(Decimal(2) ** Decimal(x)) if abs(x) < 2000 else (math.inf if x > 0 else 0.0)


def log(x: float) -> float:
    if x < 0 or math.isnan(x):
        return math.nan
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return x
    with localcontext() as c:
        c.prec = PREC
        return float(Decimal(x).ln())


def log1p(x: float) -> float:
    if _tiny(x):
        return x
    if x < -1 or math.isnan(x):
        return math.nan
    if x == -1:
        return -math.inf
    if x == 0 or math.isinf(x):
        return x
    with localcontext() as c:
        c.prec = PREC + 30
        return float((1 + Decimal(x)).ln())


def sinh(x: float) -> float:
    if _tiny(x):
        return x
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    if abs(x) > 800:
        return math.copysign(math.inf, x)
    with localcontext() as c:
        c.prec = PREC + 30
        e = Decimal(x).exp()
        return float((e - 1 / e) / 2)


def cosh(x: float) -> float:
    if math.isnan(x):
        return x
    if abs(x) > 800:
        return math.inf
    with localcontext() as c:
        c.prec = PREC
        e = Decimal(x).exp()
        return float((e + 1 / e) / 2)


def tanh(x: float) -> float:
    if _tiny(x):
        return x
    if x == 0 or math.isnan(x):
        return x
    if abs(x) > 40:
        return math.copysign(1.0, x)
    with localcontext() as c:
        c.prec = PREC + 30
        e = (2 * Decimal(x)).exp()
        return float((e - 1) / (e + 1))


def logistic(x: float) -> float:
    if math.isnan(x):
        return x
    with localcontext() as c:
        c.prec = PREC
        if x < -800:
            return float((Decimal(x)).exp())
        return float(1 / (1 + (-Decimal(x)).exp()))


def asinh(x: float) -> float:
    if _tiny(x):
        return x
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    with localcontext() as c:
        c.prec = PREC + 30
        d = abs(Decimal(x))
        return math.copysign(float((d + (d * d + 1).sqrt()).ln()), x)


def acosh(x: float) -> float:
    if x < 1 or math.isnan(x):
        return math.nan
    if math.isinf(x):
        return x
    with localcontext() as c:
        c.prec = PREC + 30
        d = Decimal(x)
        return float((d + (d * d - 1).sqrt()).ln())


def atanh(x: float) -> float:
    if _tiny(x):
        return x
    if abs(x) > 1 or math.isnan(x):
        return math.nan
    if abs(x) == 1:
        return math.copysign(math.inf, x)
    if x == 0:
        return x
    with localcontext() as c:
        c.prec = PREC + 30
        d = Decimal(x)
        return float(((1 + d) / (1 - d)).ln() / 2)


def cbrt(x: float) -> float:
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    with localcontext() as c:
        c.prec = PREC
        d = abs(Decimal(x))
        r = Decimal(math.cbrt(abs(x)))
        for _ in range(3):
            r = r - (r * r * r - d) / (3 * r * r)
        return math.copysign(float(r), x)


def pow_(a: float, b: float) -> float:
    """Finite a > 0 and finite b only (the specials are checked against numpy)."""
    with localcontext() as c:
        c.prec = PREC
        z = Decimal(b) * Decimal(a).ln()
        if z > 800:
            return math.inf
        if z < -800:
            return 0.0
        return float(z.exp())


# ---------------------------------------------------------------- trigonometry
def _reduce(x: float) -> tuple[int, Decimal]:
    """(k mod 4, r) with |x| = k pi/2 + r, |r| <= pi/4, r to ~2**-300 absolute."""
    m, e = math.frexp(abs(x))
    mi, e = int(m * 2 ** 53), e - 53  # |x| = mi * 2**e
    num = mi << (e + 1 + _PIB) if e + 1 + _PIB >= 0 else Fraction(mi, 1 << -(e + 1 + _PIB))
    k = round(Fraction(num) / _PI_INT)
    y = Fraction(num) / _PI_INT - k  # |x| * 2/pi - k
    with localcontext() as c:
        c.prec = 80
        return k % 4, _dec(y) * pi_dec() / 2


def _sin_cos_dec(r: Decimal) -> tuple[Decimal, Decimal]:
    with localcontext() as c:
        c.prec = 80
        s = term = r
        n = 1
        while abs(term) > Decimal(10) ** -75 * (abs(s) + Decimal(10) ** -300):
            term = -term * r * r / ((2 * n) * (2 * n + 1))
            s += term
            n += 1
        co = term = Decimal(1)
        n = 1
        while abs(term) > Decimal(10) ** -75:
            term = -term * r * r / ((2 * n - 1) * (2 * n))
            co += term
            n += 1
        return s, co


def sin(x: float) -> float:
    if math.isinf(x) or math.isnan(x):
        return math.nan
    if x == 0:
        return x
    q, r = _reduce(x)
    s, co = _sin_cos_dec(r)
    v = (s, co, -s, -co)[q]
    return float(v) if x > 0 else -float(v)


def cos(x: float) -> float:
    if math.isinf(x) or math.isnan(x):
        return math.nan
    q, r = _reduce(x)
    s, co = _sin_cos_dec(r)
    return float((co, -s, -co, s)[q])


def tan(x: float) -> float:
    if math.isinf(x) or math.isnan(x):
        return math.nan
    if x == 0:
        return x
    q, r = _reduce(x)
    s, co = _sin_cos_dec(r)
    with localcontext() as c:
        c.prec = 80
        v = s / co if q % 2 == 0 else -co / s
    return float(v) if x > 0 else -float(v)


def _atan_dec(v: Decimal) -> Decimal:
    """atan(v), v >= 0, in 80 digits."""
    with localcontext() as c:
        c.prec = 80
        inv = v > 1
        if inv:
            v = 1 / v
        for _ in range(4):
            v = v / (1 + (1 + v * v).sqrt())
        s, term, n = Decimal(0), v, 0
        while term and abs(term) > abs(v) * Decimal(10) ** -76:
            s += term / (2 * n + 1)
            term *= -v * v
            n += 1
        s *= 16
        return pi_dec() / 2 - s if inv else s


def atan(x: float) -> float:
    if _tiny(x):
        return x
    if x == 0 or math.isnan(x):
        return x
    if math.isinf(x):
        return math.copysign(math.pi / 2, x)
    return math.copysign(float(_atan_dec(abs(Decimal(x)))), x)


def asin(x: float) -> float:
    if _tiny(x):
        return x
    if abs(x) > 1 or math.isnan(x):
        return math.nan
    if x == 0:
        return x
    with localcontext() as c:
        c.prec = 80
        d = abs(Decimal(x))
        v = pi_dec() / 2 if d == 1 else _atan_dec(d / (1 - d * d).sqrt())
        return math.copysign(float(v), x)


def acos(x: float) -> float:
    if abs(x) > 1 or math.isnan(x):
        return math.nan
    with localcontext() as c:
        c.prec = 80
        d = Decimal(x)
        if d == 1:
            return 0.0
        v = _atan_dec(abs((1 - d * d).sqrt() / d)) if d != 0 else pi_dec() / 2
        return float(v if d >= 0 else pi_dec() - v)


def atan2(y: float, x: float) -> float:
    """Finite, nonzero x and y (the specials are checked against math.atan2)."""
    with localcontext() as c:
        c.prec = 80
        t = _atan_dec(abs(Decimal(y) / Decimal(x)))
        if x < 0:
            t = pi_dec() - t
        return math.copysign(float(t), y)


# ---------------------------------------------------------------- special functions
def _erf_series(d: Decimal) -> Decimal:
    """erf(d) by its Taylor series (used for |d| < 3)."""
    with localcontext() as c:
        c.prec = 70
        s = term = d
        n = 0
        while abs(term) > Decimal(10) ** -68:
            n += 1
            term = -term * d * d / n
            s += term / (2 * n + 1)
        return 2 * s / pi_dec().sqrt()


def _erfc_cf(d: Decimal) -> Decimal:
    """erfc(d) for d >= 3 by the continued fraction, evaluated backwards."""
    with localcontext() as c:
        c.prec = 60
        n = int(60 + 4000 / float(d) ** 2)
        t = Decimal(0)
        for k in range(n, 0, -1):
            t = Decimal(k) / 2 / (d + t)
        return (-d * d).exp() / pi_dec().sqrt() / (d + t)


def erf(x: float) -> float:
    if _tiny(x):
        return float(Decimal(x) * 2 / pi_dec().sqrt())
    if x == 0 or math.isnan(x):
        return x
    if abs(x) >= 6:
        return math.copysign(1.0, x) if abs(x) < 1e300 else math.copysign(1.0, x)
    d = Decimal(x)
    if abs(x) < 3:
        return float(_erf_series(d))
    return math.copysign(float(1 - _erfc_cf(abs(d))), x)


def erfc(x: float) -> float:
    if math.isnan(x):
        return x
    if x >= 27.3:
        return 0.0
    if x <= -6:
        return 2.0
    d = Decimal(x)
    if x >= 3:
        return float(_erfc_cf(d))
    with localcontext() as c:
        c.prec = 70
        return float(1 - _erf_series(d))


def erf_inv(y: float) -> float:
    """Newton's method in Decimal on erf (|y| <= 1/2) or erfc (above, where 1 - |y| is exact)."""
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    if y == 0:
        return y
    a = Decimal(abs(y))
    with localcontext() as c:
        c.prec = 70
        x = Decimal(_erfinv_guess(abs(y)))
        k = 2 / pi_dec().sqrt()
        for _ in range(40):
            if a <= Decimal("0.5"):
                step = (_erf_series(x) - a) / (k * (-x * x).exp())
            else:
                step = -(_erfc_dec(x) - (1 - a)) / (k * (-x * x).exp())
            x -= step
            if abs(step) < abs(x) * Decimal(10) ** -40:
                break
        return math.copysign(float(x), y)


def _erfinv_guess(a: float) -> float:
    """A float estimate of erf_inv(a) to start Newton from (bisection on math.erfc)."""
    if a < 1e-300:
        return a * math.sqrt(math.pi) / 2
    if a < 0.5:
        return a * math.sqrt(math.pi) / 2 * (1 + math.pi * a * a / 12)
    lo, hi = 0.0, 10.0
    t = 1.0 - a
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.erfc(mid) > t:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _erfc_dec(v) -> Decimal:
    d = Decimal(v)
    if d >= 3:
        return _erfc_cf(d)
    with localcontext() as c:
        c.prec = 70
        return 1 - _erf_series(d)


def _bernoulli(n_max: int) -> list[Fraction]:
    B = [Fraction(1)]
    for m in range(1, n_max + 1):
        B.append(-sum(Fraction(math.comb(m + 1, k)) * B[k] for k in range(m)) / (m + 1))
    return B


_B = _bernoulli(40)


def _lgamma_dec(d: Decimal) -> Decimal:
    """lgamma(d) for d > 0: shift to >= 40, then Stirling's series."""
    with localcontext() as c:
        c.prec = 70
        p = Decimal(1)
        while d < 40:
            p *= d
            d += 1
        s = (d - Decimal("0.5")) * d.ln() - d + (2 * pi_dec()).ln() / 2
        zp = d
        for n in range(1, 20):
            b = _B[2 * n]
            s += _dec(Fraction(b.numerator, b.denominator * 2 * n * (2 * n - 1))) / zp
            zp *= d * d
        return s - p.ln()


def _sinpi_dec(x: float) -> Decimal:
    r = Fraction(x) - round(Fraction(x))
    with localcontext() as c:
        c.prec = 80
        s, _ = _sin_cos_dec(_dec(r) * pi_dec())
        return s


def lgamma(x: float) -> float:
    if math.isnan(x):
        return x
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return math.inf
    if x > 2.6e305:
        return math.inf
    if x in (1.0, 2.0):
        return 0.0
    with localcontext() as c:
        c.prec = 70
        if x > 0:
            return float(_lgamma_dec(Decimal(x)))
        s = abs(_sinpi_dec(x))
        return float((pi_dec() / s).ln() - _lgamma_dec(1 - Decimal(x)))


def _digamma_dec(d: Decimal) -> Decimal:
    with localcontext() as c:
        c.prec = 70
        acc = Decimal(0)
        while d < 40:
            acc -= 1 / d
            d += 1
        s = d.ln() - 1 / (2 * d)
        zp = d * d
        for n in range(1, 20):
            b = _B[2 * n]
            s -= _dec(Fraction(b.numerator, b.denominator * 2 * n)) / zp
            zp *= d * d
        return s + acc


def digamma(x: float) -> float:
    if math.isnan(x) or x == -math.inf or (x <= 0 and x == math.floor(x)):
        return math.nan
    if x == math.inf:
        return x
    with localcontext() as c:
        c.prec = 70
        if x > 0:
            return float(_digamma_dec(Decimal(x)))
        r = Fraction(x) - round(Fraction(x))
        s, co = _sin_cos_dec(_dec(r) * pi_dec())
        return float(_digamma_dec(1 - Decimal(x)) - pi_dec() * co / s)
