"""Fixed-length series and continued fractions, evaluated without loops.

JAX evaluates these with `while_loop` until convergence; here every element gets the
same fixed number of terms (chosen per dtype by the caller), laid out along a new
trailing axis, so a whole evaluation is a handful of vectorized ops whatever the
number of terms: a cumulative product for series whose term ratios are known, and a
balanced tree of 2x2 matrix products for continued fractions (the convergents'
three-term recurrence is a product of matrices; products are rescaled at each level,
with the scale's gradient stopped, since only the ratio of the result matters).
Pairwise products lose accuracy when consecutive terms nearly cancel (1 + d with
d close to -1, as in the incomplete beta fraction for large a), so
`continued_fraction_forward` offers the classic forward recurrence instead: one
step per term, unrolled, still on the vectorized terms.
Everything is built from jnp/lax ops, so it differentiates, batches and jits.
"""
from __future__ import annotations

__all__ = ["terms_axis", "ratio_series", "continued_fraction", "continued_fraction_forward", "horner"]

from typing import Any, Sequence

from ... import numpy as jnp
from ..lax import ad_util

Array = Any


def terms_axis(n_terms: int, like: Array, start: int = 1) -> Array:
    """k = start, start+1, ..., as an array of `like`'s dtype broadcastable against
    `like[..., None]` (the trailing term axis)."""
    return jnp.arange(start, start + n_terms, dtype=like.dtype)


def ratio_series(ratios: Array) -> Array:
    """1 + r1 + r1 r2 + r1 r2 r3 + ... for term ratios along the last axis."""
    return 1 + jnp.sum(jnp.cumprod(ratios, axis=-1), axis=-1)


def _mat_mul(a: tuple, b: tuple) -> tuple:
    a00, a01, a10, a11 = a
    b00, b01, b10, b11 = b
    return (a00 * b00 + a01 * b10, a00 * b01 + a01 * b11,
            a10 * b00 + a11 * b10, a10 * b01 + a11 * b11)


def _normalized(m: tuple) -> tuple:
    """m divided by its largest entry's magnitude (gradient-stopped, 1 when all zero)."""
    s = jnp.maximum(jnp.maximum(jnp.abs(m[0]), jnp.abs(m[1])), jnp.maximum(jnp.abs(m[2]), jnp.abs(m[3])))
    s = ad_util.stop_gradient(jnp.where((s == 0) | ~jnp.isfinite(s), 1, s))
    return tuple(e / s for e in m)


def continued_fraction(b: Array, a: Array, init: Sequence[Array]) -> Array:
    """The ratio X_N / Y_N of the recurrence Z_n = b_n Z_{n-1} + a_n Z_{n-2} (Z = X, Y).

    `b` and `a` hold n = 1..N along the last axis (N a power of two); `init` is
    (X_0, Y_0, X_-1, Y_-1). For a continued fraction b0 + a1/(b1 + a2/(b2 + ...)) take
    init = (b0, 1, 1, 0): X_N / Y_N is its N-th convergent."""
    n = b.shape[-1]
    if n & (n - 1):
        raise ValueError(f"continued_fraction needs a power-of-two number of terms, got {n}")
    one, zero = jnp.ones_like(b), jnp.zeros_like(b)
    m = _normalized((b, a, one, zero))  # M_n = [[b_n, a_n], [1, 0]]
    while m[0].shape[-1] > 1:
        later = tuple(e[..., 1::2] for e in m)
        earlier = tuple(e[..., 0::2] for e in m)
        m = _normalized(_mat_mul(later, earlier))
    p = tuple(e[..., 0] for e in m)
    x0, y0, xm1, ym1 = init
    return (p[0] * x0 + p[1] * xm1) / (p[0] * y0 + p[1] * ym1)


def continued_fraction_forward(b: Array, a: Array, init: Sequence[Array],
                               rescale_every: int = 4) -> Array:
    """`continued_fraction`'s value by the forward recurrence, term by term (unrolled;
    rescaled every few steps so nothing overflows)."""
    x0, y0, xm1, ym1 = init
    for n in range(b.shape[-1]):
        bn, an = b[..., n], a[..., n]
        x0, xm1 = bn * x0 + an * xm1, x0
        y0, ym1 = bn * y0 + an * ym1, y0
        if n % rescale_every == rescale_every - 1:
            s = jnp.maximum(jnp.abs(x0), jnp.abs(y0))
            s = ad_util.stop_gradient(jnp.where((s == 0) | ~jnp.isfinite(s), 1, s))
            x0, xm1, y0, ym1 = x0 / s, xm1 / s, y0 / s, ym1 / s
    return x0 / y0


def horner(coeffs: Sequence[float], x: Array) -> Array:
    """Σ coeffs[i] x^i, evaluated from the highest power down."""
    acc = jnp.zeros_like(x) + coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = acc * x + c
    return acc
