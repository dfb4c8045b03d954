"""The regularized incomplete beta function I_x(a, b) (scipy.special.betainc).

As JAX: the continued fraction of I_x(a, b) (Numerical Recipes' form), evaluated
directly where x < (a + 1) / (a + b + 2) and through the symmetry
I_x(a, b) = 1 - I_{1-x}(b, a) elsewhere, times x^a (1-x)^b / (a B(a, b)). JAX runs
Lentz's algorithm to convergence (at most 200/600 steps); here a fixed number of
terms per dtype (`_TERMS`) goes through the forward recurrence, unrolled
(series.py; the pairwise-product tree loses digits on this fraction), which
converges for a, b up to about 100 (float32) / 400 (float64). JAX's edge rules are kept
(a == 0 or b == inf give 1 for x > 0, NaN outside the domain), and so is its
derivative: the closed form in x, an error for a and b.
"""
from __future__ import annotations

__all__ = ["betainc"]

import math
from typing import Any

from ... import numpy as jnp
from .. import dtypes
from ..custom_derivatives import SymbolicZero, custom_jvp
from ..lax import elementwise as lax
from ..nn.util import promote_args_inexact
from .series import continued_fraction_forward, terms_axis

Array = Any

#: dtype name -> continued-fraction terms (a power of two)
_TERMS = {"float32": 64, "float64": 128}


def _fraction(a: Array, b: Array, x: Array) -> Array:
    """1 / (1 + d1 / (1 + d2 / (1 + ...))) with NR's partial numerators d_n."""
    n_terms = _TERMS.get(x.dtype.name, _TERMS["float32"])
    n = terms_axis(n_terms, x)
    odd = (jnp.arange(1, n_terms + 1) % 2) == 1
    a_, b_, x_ = a[..., None], b[..., None], x[..., None]
    m_odd = (n - 1) / 2
    d_odd = -(a_ + m_odd) * (a_ + b_ + m_odd) * x_ / ((a_ + 2 * m_odd) * (a_ + 2 * m_odd + 1))
    m_even = n / 2
    d_even = m_even * (b_ - m_even) * x_ / ((a_ + 2 * m_even - 1) * (a_ + 2 * m_even))
    d = jnp.where(odd, d_odd, d_even)
    one = jnp.ones_like(x)
    return 1 / continued_fraction_forward(jnp.ones_like(d), d, (one, one, one, jnp.zeros_like(x)))


def _betainc_impl(a: Array, b: Array, x: Array) -> Array:
    a_zero = (a == 0) | (b == math.inf)
    b_zero = (b == 0) | (a == math.inf)
    x_zero, x_one = x == 0, x == 1
    is_nan = jnp.isnan(a) | jnp.isnan(b) | jnp.isnan(x)
    res_zero = (b_zero & ~x_one) | (a_zero & x_zero)
    res_one = (a_zero & ~x_zero) | (b_zero & x_one)
    res_nan = (a < 0) | (b < 0) | (x < 0) | (x > 1) | (a_zero & b_zero) | is_nan
    special = res_zero | res_one | res_nan | x_zero | x_one
    a = jnp.where(special, 1.0, a)
    b = jnp.where(special, 1.0, b)
    x = jnp.where(special, 0.5, x)
    direct = x < (a + 1) / (a + b + 2)
    a, b = jnp.where(direct, a, b), jnp.where(direct, b, a)
    x = jnp.where(direct, x, 1 - x)
    frac = _fraction(a, b, x)
    tiny = 2 * float(dtypes.finfo(x.dtype).tiny)
    lbeta_small_a = lax.lgamma(b) - lax.lgamma(a + b)
    lbeta = lax.lgamma(a) + lbeta_small_a
    factor = jnp.where(a < tiny, jnp.exp(jnp.log1p(-x) * b - lbeta_small_a),
                       jnp.exp(jnp.log(x) * a + jnp.log1p(-x) * b - lbeta) / a)
    out = frac * factor
    out = jnp.where(direct, out, 1 - out)
    out = jnp.where(res_zero | (x_zero & ~res_one), 0.0, out)
    out = jnp.where(res_one | (x_one & ~res_zero), 1.0, out)
    return jnp.where(res_nan, math.nan, out)


@custom_jvp
def _betainc(a: Array, b: Array, x: Array) -> Array:
    return _betainc_impl(a, b, x)


def _betainc_jvp(primals, tangents):
    (a, b, x), (a_dot, b_dot, x_dot) = primals, tangents
    if not (isinstance(a_dot, SymbolicZero) and isinstance(b_dot, SymbolicZero)):
        raise ValueError("Betainc gradient with respect to a and b not supported.")
    out = _betainc(a, b, x)
    if isinstance(x_dot, SymbolicZero):
        return out, jnp.zeros_like(out)
    lbeta = lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)
    dx = jnp.exp((b - 1) * jnp.log1p(-x) + (a - 1) * jnp.log(x) - lbeta)
    return out, dx * x_dot


_betainc.defjvp(_betainc_jvp, symbolic_zeros=True)


def betainc(a: Array, b: Array, x: Array) -> Array:
    """I_x(a, b) = B(x; a, b) / B(a, b) for a, b >= 0 and 0 <= x <= 1."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    if x.dtype.kind == "c":
        raise ValueError("betainc does not support complex-valued inputs.")
    if x.dtype.itemsize < 4:
        f32 = jnp.float32
        return _betainc(a.astype(f32), b.astype(f32), x.astype(f32)).astype(x.dtype)
    return _betainc(a, b, x)
