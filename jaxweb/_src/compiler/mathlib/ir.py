"""IR sugar shared by the float64 expansions: constants, selects, Horner
polynomials, exact scaling by powers of two, and error-free transformations
(two_sum, two_prod) for the few places that need more than double precision.

Everything here builds plain IR (add, mul, where, bitcast, shifts, ...). The
error-free transformations rely on IEEE round-to-nearest and on no
reassociation or contraction downstream: expr never simplifies float
arithmetic, and backends emit it as written.
"""
from __future__ import annotations

from ... import dtypes
from .. import expr as E

F = dtypes.float64
I64 = dtypes.int64
U64 = dtypes.uint64
I32 = dtypes.int32


def c(v: float) -> E.Expr:
    return E.const(v, F)


def _lift(b, like: E.Expr) -> E.Expr:
    return b if isinstance(b, E.Expr) else E.const(b, like.dtype)


def div(a, b): return E.binary("div", a, _lift(b, a))
def eq(a, b): return E.binary("eq", a, _lift(b, a))
def ne(a, b): return E.binary("ne", a, _lift(b, a))
def vmax(a, b): return E.binary("max", a, _lift(b, a))
def vmin(a, b): return E.binary("min", a, _lift(b, a))
def fabs(x): return E.unary("abs", x)
def sqrt(x): return E.unary("sqrt", x)
def floor(x): return E.unary("floor", x)
def rint(x): return E.unary("round_even", x)
def isnan(x): return ne(x, x)
def not_(p): return E.unary("not", p)
def finite(x): return E.unary("is_finite", x)


def where(cnd, a, b):
    like = a if isinstance(a, E.Expr) else b
    dt = like.dtype if isinstance(like, E.Expr) else F
    return E.where(cnd, a if isinstance(a, E.Expr) else E.const(a, dt), b if isinstance(b, E.Expr) else E.const(b, dt))


def signed_like(x, r):
    """r with the sign of x (r >= 0; x < 0 flips it)."""
    return where(x < 0.0, -r, r)


def sign_bit(x: E.Expr) -> E.Expr:
    """True where x has its sign bit set (-0.0 and -nan included)."""
    return E.binary("lt", E.bitcast(x, I64), E.const(0, I64))


def select(table, index: E.Expr, dtype=F) -> E.Expr:
    """table[index] for a small constant table (a chain of selects)."""
    out = E.const(table[-1], dtype)
    for j in range(len(table) - 2, -1, -1):
        out = E.where(E.binary("eq", index, E.const(j, index.dtype)), E.const(table[j], dtype), out)
    return out


def poly(x: E.Expr, coeffs) -> E.Expr:
    """sum coeffs[i] * x**i (Horner)."""
    acc = E.const(coeffs[-1], x.dtype)
    for a in reversed(coeffs[:-1]):
        acc = acc * x + a
    return acc


def pow2(k: E.Expr) -> E.Expr:
    """2**k as a float64 for integral k (int64) in [-1022, 1023]."""
    return E.bitcast(E.binary("shl", k + 1023, E.const(52, I64)), F)


def scale2(p: E.Expr, k: E.Expr) -> E.Expr:
    """p * 2**k for integral k (float64) in about [-2000, 2000], in two normal factors
    (so results that are subnormal are rounded once, and large k overflow cleanly)."""
    ki = E.cast(k, I64)
    k1 = E.binary("shr_arith", ki, E.const(1, I64))
    return p * pow2(k1) * pow2(ki - k1)


# ---------------------------------------------------------------- error-free transformations
def two_sum(a: E.Expr, b: E.Expr) -> tuple[E.Expr, E.Expr]:
    """(s, e) with s = fl(a + b) and s + e == a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fast_two_sum(a: E.Expr, b: E.Expr) -> tuple[E.Expr, E.Expr]:
    """two_sum for |a| >= |b| (Dekker): three operations."""
    s = a + b
    return s, b - (s - a)


SPLITTER = 134217729.0  # 2**27 + 1


def split(a: E.Expr) -> tuple[E.Expr, E.Expr]:
    """a = hi + lo with hi and lo of at most 26 significant bits (|a| < 2**995)."""
    t = a * SPLITTER
    hi = t - (t - a)
    return hi, a - hi


def split_const(v: float) -> tuple[float, float]:
    t = v * SPLITTER
    hi = t - (t - v)
    return hi, v - hi


def two_prod(a: E.Expr, b, b_split: tuple[float, float] | None = None) -> tuple[E.Expr, E.Expr]:
    """(p, e) with p = fl(a * b) and p + e == a * b exactly (Dekker; no FMA needed).
    `b` may be a Python float (split at build time)."""
    ah, al = split(a)
    if isinstance(b, E.Expr):
        bh, bl = split(b)
        p = a * b
    else:
        bhv, blv = b_split or split_const(b)
        bh, bl = c(bhv), c(blv)
        p = a * b
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def dd_mul_const(hi: E.Expr, lo: E.Expr, v_hi: float, v_lo: float) -> tuple[E.Expr, E.Expr]:
    """(hi + lo) * (v_hi + v_lo) as a normalized double-double."""
    p, e = two_prod(hi, v_hi)
    return fast_two_sum(p, e + (hi * v_lo + lo * v_hi))
