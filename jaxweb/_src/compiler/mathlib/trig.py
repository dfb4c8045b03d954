"""sin, cos and tan over the whole float range, as IR.

The argument is reduced to r = |x| - k pi/2 with |r| <~ pi/4, held as a
double-double (hi + lo), and k mod 4 picks the quadrant:

- Cody-Waite for |x| <= 2**19 pi (k <= 2**20): pi/2 in four parts, three of 33
  bits so k * part is exact, combined with two_sum; 152 bits of pi/2, enough for
  the closest approach of any double to a multiple of pi/2 (~2**-61).
- Payne-Hanek above: |x| = m 2**e with an integer mantissa m; only the bits of
  2/pi from position e - 1 on matter modulo 4, so a window of them (192 bits for
  float64 inputs, 96 for float32 ones) is picked from a table of 64-bit words by
  a barrel shifter of selects (the IR has no memory tables) and a double-word
  shift, multiplied by m in 32-bit limbs with uint64 products, and the fixed-point product modulo 4 gives
  k and the fraction, which is converted exactly to a double-double.

Both reductions are computed and one is selected (the IR has no branches; a
backend with real branches could skip Payne-Hanek when no element needs it).
sin and cos of the reduced argument are Taylor polynomials with the tail of r
folded in; tan is their quotient. Inputs that were float32 (or narrower) use a
shorter window and polynomials: their results are rounded to float32 anyway.
`sincospi` is the same kernel for sin(pi r) and cos(pi r), |r| <= 1/2, with an
exact reduction (lgamma and digamma reflect through it).
"""
from __future__ import annotations

import math

from .. import expr as E
from . import constants as K
from .ir import (F, I64, U64, c, div, dd_mul_const, fabs, fast_two_sum, finite, poly, rint, signed_like,
                 two_prod, two_sum, vmax, vmin, where)

CW_LIMIT = 2.0 ** 19 * math.pi
MASK32 = 0xFFFFFFFF
MANT = (1 << 52) - 1


def _u(v: int) -> E.Expr:
    return E.const(v, U64)


# per input width: mantissa limbs (32-bit), window limbs (32-bit), zero bits before
# 2/pi in the table, bits of the table-word index, low mantissa bits that are zero
_PH = {
    "narrow": dict(m_limbs=1, window=3, pad=32, index_bits=2, m_shift=29),
    "wide": dict(m_limbs=2, window=6, pad=64, index_bits=5, m_shift=0),
}


def _table_words(pad: int, count: int) -> list[int]:
    """2/pi after `pad` zero bits, as `count` 64-bit words, most significant first."""
    halves = K.two_over_pi_limbs(pad, 2 * count)
    return [(halves[2 * i] << 32) | halves[2 * i + 1] for i in range(count)]  # (cached limbs)


def _barrel(words: list[int], n: E.Expr, index_bits: int, width: int) -> list[E.Expr]:
    """words[n : n + width] for a variable n < 2**index_bits, in about
    width * index_bits + 2**index_bits selects (one stage per bit of n)."""
    vals = [_u(v) for v in words] + [_u(0)] * (width + (1 << index_bits) - 1 - len(words))
    for b in reversed(range(index_bits)):
        sh = 1 << b
        bit = E.binary("ne", E.binary("and", n, _u(sh)), _u(0))
        vals = [E.where(bit, vals[i + sh], vals[i]) for i in range(width + sh - 1)]
    return vals[:width]


def _window(a: E.Expr, p: dict) -> list[E.Expr]:
    """The bits of 2/pi that matter for a = m 2**e modulo 4, from bit e - 1 on, as
    32-bit limbs (most significant first), selected by e from the table."""
    nw, pad, ibits, mshift = p["window"], p["pad"], p["index_bits"], p["m_shift"]
    ebits = E.binary("and", E.binary("shr_logical", E.bitcast(a, U64), _u(52)), _u(0x7FF))
    # a = m 2**e with e = ebits - (1075 - mshift): the window starts at bit e - 1 of 2/pi,
    # index e - 2 + pad (0-based) of the padded table
    lo_e = 1075 - mshift + 2 - pad
    max_first = (1 << ibits) * 64 - 1
    first = E.binary("min", E.binary("max", ebits, _u(lo_e)) - _u(lo_e), _u(max_first))
    o = E.binary("and", first, _u(63))
    nwords = (nw + 1) // 2
    words = _barrel(_table_words(pad, (max_first >> 6) + nwords + 1), E.binary("shr_logical", first, _u(6)),
                    ibits, nwords + 1)
    w = []
    for i in range(nwords):  # the 64 bits from bit o of words i, i + 1 (o = 0: the shift by 64 gives 0)
        d = E.binary("or", E.binary("shl", words[i], o), E.binary("shr_logical", words[i + 1], _u(64) - o))
        w += [E.binary("shr_logical", d, _u(32)), E.binary("and", d, _u(MASK32))]
    return w[:nw]


def _payne_hanek(a: E.Expr, kind: str) -> tuple[E.Expr, E.Expr, E.Expr]:
    """(hi, lo, k mod 4) for finite a >= CW_LIMIT; garbage (never NaN traps) below."""
    p = _PH[kind]
    nm, nw = p["m_limbs"], p["window"]
    bits = E.bitcast(a, U64)
    m = E.binary("shr_logical", E.binary("or", E.binary("and", bits, _u(MANT)), _u(1 << 52)), _u(p["m_shift"]))
    w = _window(a, p)
    ms = [m] if nm == 1 else [E.binary("and", m, _u(MASK32)), E.binary("shr_logical", m, _u(32))]
    cols: list[list[E.Expr]] = [[] for _ in range(nw)]
    for ia, mi in enumerate(ms):
        for j in range(nw):
            col = ia + nw - 1 - j  # the product's position in 32-bit limbs, modulo 2**(32 nw)
            if col >= nw:
                continue
            prod = mi * w[j]
            cols[col].append(E.binary("and", prod, _u(MASK32)))
            if col + 1 < nw:
                cols[col + 1].append(E.binary("shr_logical", prod, _u(32)))
    limb, carry = [], _u(0)
    for col in cols:
        acc = carry
        for t in col:
            acc = acc + t
        limb.append(E.binary("and", acc, _u(MASK32)))
        carry = E.binary("shr_logical", acc, _u(32))
    # y = product / 2**(32 nw - 2) in [0, 4): add 1/2, the top two bits are k = round(y) mod 4
    top = E.binary("and", limb[-1] + _u(1 << 29), _u(MASK32))
    k = E.cast(E.binary("shr_logical", top, _u(30)), I64)
    ftop = E.cast(E.binary("and", top, _u((1 << 30) - 1)), I64) - E.const(1 << 29, I64)
    # f = y - k in [-1/2, 1/2): exact pieces, summed error-free from the top
    hi, lo = E.cast(ftop, F) * 2.0 ** -30, c(0.0)
    low_limbs = list(reversed(limb[:-1]))[: 4]
    for i, li in enumerate(low_limbs, start=1):
        hi, err = two_sum(hi, E.cast(li, F) * 2.0 ** -(30 + 32 * i))
        lo = lo + err
    hi, lo = fast_two_sum(hi, lo)
    hi, lo = dd_mul_const(hi, lo, K.PIO2_HI, K.PIO2_LO)
    return hi, lo, k


def _cody_waite(a: E.Expr) -> tuple[E.Expr, E.Expr, E.Expr]:
    """(hi, lo, k mod 4) for 0 <= a <= CW_LIMIT."""
    k = rint(a * K.TWO_OVER_PI)
    t = a - k * K.PIO2_C1  # exact: k * C1 is exact and close to a
    hi, e1 = two_sum(t, -(k * K.PIO2_C2))
    hi, e2 = two_sum(hi, -(k * K.PIO2_C3))
    lo = (e1 + e2) - k * K.PIO2_C4
    hi, lo = fast_two_sum(hi, lo)
    return hi, lo, E.binary("and", E.cast(k, I64), E.const(3, I64))


def reduce_pio2(x: E.Expr, narrow: bool = False) -> tuple[E.Expr, E.Expr, E.Expr]:
    """|x| = k pi/2 + (hi + lo): (hi, lo, k mod 4 as int64)."""
    a = fabs(x)
    small = a <= CW_LIMIT
    hc, lc, kc = _cody_waite(vmin(a, CW_LIMIT))
    hp, lp, kp = _payne_hanek(vmax(a, CW_LIMIT), "narrow" if narrow else "wide")
    return where(small, hc, hp), where(small, lc, lp), E.where(small, kc, kp)


# sin(r) = r + r s PS(s), cos(r) = 1 - s/2 + s^2 PC(s), s = r^2, |r| <= pi/4 (+ rounding slack)
PS = {False: [(-1) ** n / math.factorial(2 * n + 1) for n in range(1, 10)],
      True: [(-1) ** n / math.factorial(2 * n + 1) for n in range(1, 7)]}
PC = {False: [(-1) ** n / math.factorial(2 * n) for n in range(2, 11)],
      True: [(-1) ** n / math.factorial(2 * n) for n in range(2, 8)]}


def sincos_kernel(hi: E.Expr, lo: E.Expr, narrow: bool = False) -> tuple[E.Expr, E.Expr]:
    """(sin, cos) of hi + lo for |hi + lo| <~ pi/4."""
    s = hi * hi
    half = s * 0.5
    sin = hi + (hi * s * poly(s, PS[narrow]) + lo * (1.0 - half))
    w = 1.0 - half
    cos = w + (((1.0 - w) - half) + (s * s * poly(s, PC[narrow]) - hi * lo))
    return sin, cos


def quadrant(q: E.Expr, vals) -> E.Expr:
    out = vals[3]
    for j in (2, 1, 0):
        out = E.where(E.binary("eq", q, E.const(j, q.dtype)), vals[j], out)
    return out


def _nan_unless_finite(x: E.Expr, v: E.Expr) -> E.Expr:
    return where(finite(x), v, math.nan)


def sin(x: E.Expr, narrow: bool = False) -> E.Expr:
    hi, lo, q = reduce_pio2(x, narrow)
    s, co = sincos_kernel(hi, lo, narrow)
    return _nan_unless_finite(x, signed_like(x, quadrant(q, (s, co, -s, -co))))


def cos(x: E.Expr, narrow: bool = False) -> E.Expr:
    hi, lo, q = reduce_pio2(x, narrow)
    s, co = sincos_kernel(hi, lo, narrow)
    return _nan_unless_finite(x, quadrant(q, (co, -s, -co, s)))


def tan(x: E.Expr, narrow: bool = False) -> E.Expr:
    hi, lo, q = reduce_pio2(x, narrow)
    s, co = sincos_kernel(hi, lo, narrow)
    odd = E.binary("eq", E.binary("and", q, E.const(1, I64)), E.const(1, I64))
    return _nan_unless_finite(x, signed_like(x, E.where(odd, div(-co, s), div(s, co))))


def sincospi(r: E.Expr) -> tuple[E.Expr, E.Expr]:
    """(sin(pi r), cos(pi r)) for |r| <= 1/2, without rounding pi r first."""
    k = rint(r * 2.0)
    f = r - k * 0.5  # exact, |f| <= 1/4
    hi, lo = two_prod(f, K.PI_HI)
    hi, lo = fast_two_sum(hi, lo + f * K.PI_LO)
    s, co = sincos_kernel(hi, lo)
    q = E.binary("and", E.cast(k, I64), E.const(3, I64))
    return quadrant(q, (s, co, -s, -co)), quadrant(q, (co, -s, -co, s))


def sinpi_frac(x: E.Expr) -> tuple[E.Expr, E.Expr, E.Expr]:
    """(sin(pi r), cos(pi r), r) with r = x - round(x): sin(pi x) up to sign, exactly reduced."""
    r = x - rint(x)
    s, co = sincospi(r)
    return s, co, r
