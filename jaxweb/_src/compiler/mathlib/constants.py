"""Numeric constants for mathlib, derived here from exact definitions.

Cody-Waite splits (a constant as a sum of doubles whose leading parts have few
mantissa bits, so k*part is exact) are computed with Decimal from a 60-digit
value of pi and from ln 2, series coefficients from their formulas (Bernoulli
numbers, zeta values), the 2/pi table of Payne-Hanek from Machin's formula in
integers, instead of being copied as opaque literals. Cheap constants are
module attributes; the tables that take milliseconds (zeta and Bernoulli
series) are computed at first use (`functools.cache`). Decimal work runs in
a local context: the process's Decimal settings are left alone.
"""
from __future__ import annotations

import functools
import math
import struct
from decimal import Decimal, localcontext
from fractions import Fraction

_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")


def _split(d: Decimal, nbits: int) -> tuple[float, Decimal]:
    """(leading double of d with only `nbits` significant bits, exact remainder)."""
    hi = float(d)
    u = struct.unpack("<q", struct.pack("<d", hi))[0]
    u &= ~((1 << (53 - nbits)) - 1)
    hi = struct.unpack("<d", struct.pack("<q", u))[0]
    return hi, d - Decimal(hi)


def _two(d: Decimal) -> tuple[float, float]:
    """d as hi + lo doubles."""
    hi = float(d)
    return hi, float(d - Decimal(hi))


with localcontext() as _ctx:
    _ctx.prec = 60
    _LN2 = Decimal(2).ln()
    LN2 = float(_LN2)
    LN2_HI, _r = _split(_LN2, 32)
    LN2_LO = float(_r)
    LOG2E = float(1 / _LN2)
    PI = float(_PI)
    PI_2 = float(_PI / 2)
    TWO_OVER_PI = float(2 / _PI)
    HALF_LOG_2PI = float((2 * _PI).ln() / 2)
    LOG_PI = float(_PI.ln())
    TWO_OVER_SQRTPI_HI, TWO_OVER_SQRTPI_LO = _two(2 / _PI.sqrt())
    # pi/2 in four parts for Cody-Waite: three of 33 bits (k * part exact for k < 2**20),
    # then the rounded rest; 152 bits of pi/2 in all.
    PIO2_C1, _r = _split(_PI / 2, 33)
    PIO2_C2, _r = _split(_r, 33)
    PIO2_C3, _r = _split(_r, 33)
    PIO2_C4 = float(_r)
    PIO2_HI, PIO2_LO = _two(_PI / 2)
    PI_HI, PI_LO = _two(_PI)
    EULER_GAMMA_DEC = Decimal("0.577215664901532860606512090082402431042159335939923598805767")
    EULER_GAMMA = float(EULER_GAMMA_DEC)

SQRT2 = math.sqrt(2.0)
EXP_TAYLOR = [1.0 / math.factorial(n) for n in range(14)]
#: log(1 + u) = u - (h - s (h + z R(z))), s = u/(2 + u), z = s^2, h = u^2/2 (2 atanh(s) in pieces)
LOG_R = [2.0 / (2 * n + 1) for n in range(1, 12)]
SINH_T = [1.0 / math.factorial(2 * n + 1) for n in range(1, 14)]  # sinh(x) = x + x s T(s)


@functools.cache
def bernoulli(n_max: int = 40) -> tuple[Fraction, ...]:
    """B_0..B_n_max (B_1 = -1/2); the odd ones past B_1 are 0 and skipped in the sums."""
    B = [Fraction(1), Fraction(-1, 2)]
    for m in range(2, n_max + 1):
        if m % 2:
            B.append(Fraction(0))
            continue
        s = Fraction(1) + Fraction(m + 1) * B[1]
        s += sum(Fraction(math.comb(m + 1, k)) * B[k] for k in range(2, m, 2))
        B.append(-s / (m + 1))
    return tuple(B)


_B16 = bernoulli(16)
# lgamma: sum_{n>=1} B_2n / (2n(2n-1) z^(2n-1)) = (1/z) * poly(1/z^2)
STIRLING = [float(_B16[2 * n] / (2 * n * (2 * n - 1))) for n in range(1, 9)]
# digamma: log z - 1/(2z) - sum_{n>=1} B_2n / (2n z^2n) = ... - (1/z^2) * poly(1/z^2)
DIGAMMA_SERIES = [float(_B16[2 * n] / (2 * n)) for n in range(1, 9)]


@functools.cache
def tanh_series() -> list[float]:
    """tanh(x) = x + x s T(s), s = x^2: T's coefficients 2^2n (2^2n - 1) B_2n / (2n)!, n >= 2."""
    B = bernoulli(40)
    return [float(Fraction(4 ** n * (4 ** n - 1)) * B[2 * n] / math.factorial(2 * n)) for n in range(2, 20)]


# ---------------------------------------------------------------- Payne-Hanek's table
def _pi_fixed(bits: int) -> int:
    """floor(pi * 2**bits), by Machin's formula in integers (32 guard bits)."""
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


@functools.cache
def two_over_pi_limbs(pad: int, count: int) -> tuple[int, ...]:
    """The bits of 2/pi after the binary point, preceded by `pad` zero bits, as
    `count` 32-bit limbs, most significant first."""
    nbits = 32 * count - pad
    b = nbits + 96
    t = (1 << (nbits + 1 + b + 64)) // _pi_fixed(b) >> 64  # floor(2**nbits * 2/pi)
    return tuple((t >> (32 * (count - 1 - n))) & 0xFFFFFFFF for n in range(count))


# ---------------------------------------------------------------- zeta series (lgamma, digamma)
def _zeta_dec(k: int) -> Decimal:
    """zeta(k) for k >= 2 by Euler-Maclaurin summation (N = 16, 9 Bernoulli terms)."""
    B = bernoulli(20)
    n = 16
    s = sum(Decimal(1) / Decimal(j) ** k for j in range(1, n))
    s += Decimal(n) ** (1 - k) / (k - 1) + Decimal(n) ** (-k) / 2
    rising = Decimal(k)  # k (k+1) ... (k + 2j - 2)
    for j in range(1, 10):
        b = B[2 * j]
        s += Decimal(b.numerator) / Decimal(b.denominator) / math.factorial(2 * j) * rising * \
            Decimal(n) ** (-k - 2 * j + 1)
        rising *= (k + 2 * j - 1) * (k + 2 * j)
    return s


@functools.cache
def zeta_m1() -> dict[int, float]:
    """zeta(k) - 1 for k = 2..40."""
    with localcontext() as ctx:
        ctx.prec = 40
        return {k: float(_zeta_dec(k) - 1) for k in range(2, 41)}


@functools.cache
def lgamma2_series() -> list[float]:
    """lgamma(2 + t) = t G(t): G's coefficients 1 - gamma, then (-1)^k (zeta(k) - 1)/k."""
    z = zeta_m1()
    return [1.0 - EULER_GAMMA] + [(-1) ** k * z[k] / k for k in range(2, 31)]


@functools.cache
def psi2_series() -> list[float]:
    """digamma(2 + t) = sum PSI2[i] t^i: 1 - gamma, then (-1)^k (zeta(k) - 1) for t^(k-1)."""
    z = zeta_m1()
    return [1.0 - EULER_GAMMA] + [(-1) ** k * z[k] for k in range(2, 33)]


def _hurwitz(s: int, a: Decimal) -> Decimal:
    """Hurwitz zeta(s, a) = sum_{j>=0} (j + a)^-s, s >= 2, by Euler-Maclaurin (N = 20)."""
    B = bernoulli(30)
    n = 20
    total = sum(1 / (j + a) ** s for j in range(n))
    b = n + a
    total += b ** (1 - s) / (s - 1) + b ** (-s) / 2
    rising = Decimal(s)
    for j in range(1, 15):
        bj = B[2 * j]
        total += Decimal(bj.numerator) / Decimal(bj.denominator) / math.factorial(2 * j) * rising * \
            b ** (-s - 2 * j + 1)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    return total


def _digamma_dec(x: Decimal) -> Decimal:
    """digamma(x), x > 0: shift past 20, then the asymptotic series."""
    B = bernoulli(30)
    acc = Decimal(0)
    while x < 20:
        acc -= 1 / x
        x += 1
    s = x.ln() - 1 / (2 * x)
    for n in range(1, 15):
        b = B[2 * n]
        s -= Decimal(b.numerator) / Decimal(b.denominator * 2 * n) / x ** (2 * n)
    return s + acc


@functools.cache
def digamma_root() -> tuple[float, float, list[float]]:
    """(x0 hi, x0 lo, R) for the positive zero x0 = 1.4616... of digamma, where
    digamma(x) = d R(d), d = x - x0: R's coefficients (-1)^(n+1) zeta(n + 1, x0)."""
    with localcontext() as ctx:
        ctx.prec = 45
        x = Decimal("1.4616321449683623")
        for _ in range(3):  # Newton, digamma' = zeta(2, x)
            x -= _digamma_dec(x) / _hurwitz(2, x)
        hi, lo = _two(x)
        return hi, lo, [float((-1) ** (n + 1) * _hurwitz(n + 1, x)) for n in range(1, 24)]
