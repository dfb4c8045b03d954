"""Numeric constants for mathlib, derived here from exact definitions.

Cody-Waite splits (a constant as a sum of doubles whose leading parts have few
mantissa bits, so k*part is exact) are computed with Decimal from 50-digit values
of pi and ln 2, and series coefficients from their formulas, instead of being
copied as opaque literals.
"""
from __future__ import annotations

import math
import struct
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 60
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
_LN2 = Decimal(2).ln()


def _split(d: Decimal, nbits: int) -> tuple[float, Decimal]:
    """(leading double of d with only `nbits` significant bits, exact remainder)."""
    hi = float(d)
    u = struct.unpack("<q", struct.pack("<d", hi))[0]
    u &= ~((1 << (53 - nbits)) - 1)
    hi = struct.unpack("<d", struct.pack("<q", u))[0]
    return hi, d - Decimal(hi)


LN2 = float(_LN2)
LN2_HI, _r = _split(_LN2, 32)
LN2_LO = float(_r)
LOG2E = float(1 / _LN2)
SQRT2 = math.sqrt(2.0)
PI = float(_PI)
PI_2 = float(_PI / 2)
PI_4 = float(_PI / 4)
TWO_OVER_PI = float(2 / _PI)
PIO2_1, _r = _split(_PI / 2, 33)
PIO2_2, _r = _split(_r, 33)
PIO2_3 = float(_r)
HALF_LOG_2PI = float((2 * _PI).ln() / 2)

EXP_TAYLOR = [1.0 / math.factorial(n) for n in range(14)]
SIN_TAYLOR = [(-1) ** n / math.factorial(2 * n + 1) for n in range(10)]
COS_TAYLOR = [(-1) ** n / math.factorial(2 * n) for n in range(11)]
ATANH_SERIES = [1.0 / (2 * n + 1) for n in range(13)]  # atanh(f)/f in powers of f^2
ATAN_SERIES = [(-1) ** n / (2 * n + 1) for n in range(14)]  # atan(t)/t in powers of t^2


def _bernoulli(n_max: int) -> list[Fraction]:
    """B_0..B_n_max (B_1 = -1/2) by the Akiyama-Tanigawa-free recurrence."""
    B = [Fraction(1)]
    for m in range(1, n_max + 1):
        B.append(-sum(Fraction(math.comb(m + 1, k)) * B[k] for k in range(m)) / (m + 1))
    return B


_B = _bernoulli(18)
# lgamma: sum_{n>=1} B_2n / (2n(2n-1) z^(2n-1)) = (1/z) * poly(1/z^2)
STIRLING = [float(_B[2 * n] / (2 * n * (2 * n - 1))) for n in range(1, 9)]
# digamma: log z - 1/(2z) - sum_{n>=1} B_2n / (2n z^2n) = ... - (1/z^2) * poly(1/z^2)
DIGAMMA_SERIES = [float(_B[2 * n] / (2 * n)) for n in range(1, 9)]
