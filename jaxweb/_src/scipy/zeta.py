"""The Hurwitz zeta function ζ(x, q) and the polygamma functions ψ⁽ⁿ⁾(x).

ζ(x, q) = Σ_{k>=0} (q + k)^-x by Euler–Maclaurin summation: N explicit terms, the
integral of the tail, and M Bernoulli corrections (N = M = 8 in float32, 16 in
float64, JAX's choice for its derivative series; all terms are vectorized along a
trailing axis). The domain rules are XLA's, which JAX's values follow: NaN for
x < 1 and for q <= 0 with non-integer x; at the poles (integer q <= 0) +inf when x
is an even integer, else NaN; +inf at x == 1. ψ⁽ⁿ⁾(x) = (-1)^(n+1) n! ζ(n + 1, x)
for integer n >= 1, digamma for n == 0, NaN for negative or fractional n.
"""
from __future__ import annotations

__all__ = ["zeta", "polygamma"]

import math
from fractions import Fraction
from typing import Any

from ... import numpy as jnp
from .. import dtypes
from ..lax import elementwise as lax
from ..nn.util import promote_args_inexact
from .series import terms_axis

Array = Any

_TERMS = {"float32": 8, "float64": 16}


def _bernoulli_even(count: int) -> list[float]:
    """B_2, B_4, ..., B_2count (exact rationals from the Akiyama–Tanigawa algorithm)."""
    n_max = 2 * count
    out, a = [], [Fraction(0)] * (n_max + 1)
    for m in range(n_max + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        if m >= 2 and m % 2 == 0:
            out.append(a[0])
    return out


#: B_2k / (2k)! for k = 1..16
_B_OVER_FACT = [float(b / math.factorial(2 * (i + 1))) for i, b in enumerate(_bernoulli_even(16))]


def _zeta_series(x: Array, q: Array) -> Array:
    n = _TERMS.get(x.dtype.name, _TERMS["float32"])
    k = terms_axis(n, x, start=0)
    head = jnp.sum((q[..., None] + k) ** (-x[..., None]), axis=-1)
    qn = q + n
    integral = qn ** (1 - x) / (x - 1)
    t0 = qn ** (-x)
    # Σ_j B_2j/(2j)! * x (x+1) ... (x+2j-2) / qn^(2j-1): rising products along the axis
    m = terms_axis(2 * n, x, start=0)
    rising = jnp.cumprod((x[..., None] + m) / qn[..., None], axis=-1)[..., ::2]
    rising = jnp.clip(rising, max=float(dtypes.finfo(x.dtype).max))
    coefs = jnp.asarray(_B_OVER_FACT[:n], dtype=x.dtype)
    tail = t0 * (0.5 + jnp.sum(rising * coefs, axis=-1))
    return head + integral + tail


def _zeta_impl(x: Array, q: Array) -> Array:
    out = _zeta_series(x, q)
    x_int = x == lax.floor(x)
    q_le0 = q <= 0
    out = jnp.where(x < 1, math.nan, out)
    out = jnp.where(q_le0 & ~x_int, math.nan, out)
    even = x_int & (jnp.remainder(x, 2) == 0)
    out = jnp.where(q_le0 & (q == lax.floor(q)), jnp.where(even, math.inf, math.nan), out)
    return jnp.where(x == 1, math.inf, out)


def zeta(x: Array, q: Array | None = None) -> Array:
    """ζ(x, q), the Hurwitz zeta function (q is required, as in JAX)."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    return _zeta_impl(x, q)


def polygamma(n: Array, x: Array) -> Array:
    """ψ⁽ⁿ⁾(x), the n-th derivative of digamma; n must have an integer dtype."""
    n_dtype = dtypes.dtype(jnp.asarray(n).dtype if not isinstance(n, int) else dtypes.default_int())
    if n_dtype.kind not in "iu":
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype.name}.")
    n, x = promote_args_inexact("polygamma", n, x)
    if x.dtype.kind == "c":
        raise ValueError("polygamma does not support complex-valued inputs.")
    n_pos = jnp.where(n >= 1, n, 1.0)
    sign = jnp.where(jnp.remainder(n_pos, 2) == 1, 1.0, -1.0)
    higher = sign * lax.exp(lax.lgamma(n_pos + 1)) * _zeta_impl(n_pos + 1, x)
    out = jnp.where(n == 0, lax.digamma(x), higher)
    return jnp.where((n < 0) | (n != lax.floor(n)), math.nan, out)
