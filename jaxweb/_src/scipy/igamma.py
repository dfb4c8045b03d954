"""Regularized incomplete gamma functions P(a, x) (gammainc) and Q(a, x) (gammaincc).

As JAX (after Cephes): the power series of P where x < 1 or x <= a, and the
continued fraction of Q (Legendre's, in Cephes' recurrence form) elsewhere, each
scaled by x^a e^-x / Γ(a). JAX iterates each to convergence (at most 2000 steps);
here both use a fixed number of terms per dtype (`_TERMS`), evaluated as one
vectorized cumulative product and one tree of 2x2 products (series.py). The counts
give full precision for a up to about 100 (float32) / 60 (float64) near the diagonal
x ≈ a, where convergence is slowest, and everywhere away from it; beyond, accuracy
degrades gradually (documented in the tests). The x-derivative is JAX's closed
form x^(a-1) e^-x / Γ(a); the a-derivative differentiates the fixed-length
evaluation itself (JAX runs a separate derivative recurrence). Edges follow scipy
where JAX's loop gives NaN: P(0, x > 0) = 1 and P(inf, finite x) = 0.
"""
from __future__ import annotations

__all__ = ["gammainc", "gammaincc"]

import math
from typing import Any

from ... import numpy as jnp
from .. import dtypes
from ..custom_derivatives import custom_jvp
from ..lax import elementwise as lax
from ..nn.util import promote_args_inexact
from .series import continued_fraction, ratio_series, terms_axis
from ..api import jvp

Array = Any

#: dtype name -> (series terms, continued-fraction terms (a power of two))
_TERMS = {"float32": (64, 64), "float64": (128, 128)}


def _terms(dt: Any) -> tuple[int, int]:
    return _TERMS.get(dtypes.dtype(dt).name, _TERMS["float32"])


def _log_prefactor(a: Array, x: Array) -> Array:
    """log(x^a e^-x / Γ(a))."""
    return a * lax.log(x) - x - lax.lgamma(a)


def _p_series(a: Array, x: Array, n_terms: int) -> Array:
    """Σ_n x^n / ((a+1)...(a+n)), so that P = series * x^a e^-x / Γ(a+1)."""
    k = terms_axis(n_terms, x)
    return ratio_series(x[..., None] / (a[..., None] + k))


def _q_fraction(a: Array, x: Array, n_terms: int) -> Array:
    """The continued fraction with Q = fraction * x^a e^-x / Γ(a) (Cephes' igamc form:
    p_n = z_n p_{n-1} - n (n + 1 - a) p_{n-2}, z_n = x - a + 2 + 2n)."""
    k = terms_axis(n_terms, x)
    z = (x - a + 2)[..., None] + 2 * k
    coef = -(k * (k + 1 - a[..., None]))
    init = (x + 1, (x - a + 2) * x, jnp.ones_like(x), x)
    return continued_fraction(z, coef, init)


def _masks(a: Array, x: Array) -> tuple:
    nan_in = jnp.isnan(a) | jnp.isnan(x)
    domain = (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | nan_in
    return domain, x == 0, x == math.inf


def _evaluate(a: Array, x: Array) -> tuple[Array, Array]:
    """(P, Q) from whichever of series and fraction fits each element; lanes outside the
    algorithms' domain get harmless inputs (their results are replaced by the caller)."""
    n_series, n_frac = _terms(x.dtype)
    domain, x_zero, x_inf = _masks(a, x)
    ok = ~(domain | x_zero | x_inf | (a == math.inf))
    use_q = (x >= 1) & (x > a)
    a_s = jnp.where(ok, a, 1.0)
    x_s = jnp.where(ok, x, 1.0)
    log_pre = _log_prefactor(a_s, x_s)
    underflow = log_pre < -math.log(float(dtypes.finfo(x.dtype).max))
    pre = jnp.exp(log_pre)
    ps = _p_series(jnp.where(use_q, 1.0, a_s), jnp.where(use_q, 0.5, x_s), n_series)
    p = jnp.where(underflow, 0.0, ps * pre / jnp.where(use_q, 1.0, a_s))
    qf = _q_fraction(jnp.where(use_q, a_s, 1.0), jnp.where(use_q, x_s, 2.0), n_frac)
    q = jnp.where(underflow, 0.0, qf * pre)
    return jnp.where(use_q, 1 - q, p), jnp.where(use_q, q, 1 - p)


def _gammainc_impl(a: Array, x: Array) -> Array:
    p, _ = _evaluate(a, x)
    domain, x_zero, x_inf = _masks(a, x)
    p = jnp.where(a == math.inf, jnp.where(x_inf, math.nan, 0.0), p)
    p = jnp.where(x_zero, 0.0, jnp.where(x_inf | (a == 0), 1.0, p))
    return jnp.where(domain, math.nan, p)


def _gammaincc_impl(a: Array, x: Array) -> Array:
    _, q = _evaluate(a, x)
    domain, x_zero, x_inf = _masks(a, x)
    q = jnp.where(a == math.inf, jnp.where(x_inf, math.nan, 1.0), q)
    q = jnp.where(x_zero, 1.0, jnp.where(x_inf | (a == 0), 0.0, q))
    return jnp.where(domain, math.nan, q)


def _dx(a: Array, x: Array) -> Array:
    """d/dx P(a, x) = x^(a-1) e^-x / Γ(a) (JAX's formula)."""
    return lax.exp(-x + (a - 1) * lax.log(x) - lax.lgamma(a))


@custom_jvp
def _gammainc(a: Array, x: Array) -> Array:
    return _gammainc_impl(a, x)


@_gammainc.defjvp
def _gammainc_jvp(primals, tangents):
    (a, x), (a_dot, x_dot) = primals, tangents
    out, da = jvp(_gammainc_impl, (a, x), (a_dot, jnp.zeros_like(x)))
    return out, da + x_dot * _dx(a, x)


@custom_jvp
def _gammaincc(a: Array, x: Array) -> Array:
    return _gammaincc_impl(a, x)


@_gammaincc.defjvp
def _gammaincc_jvp(primals, tangents):
    (a, x), (a_dot, x_dot) = primals, tangents
    out, da = jvp(_gammaincc_impl, (a, x), (a_dot, jnp.zeros_like(x)))
    return out, da - x_dot * _dx(a, x)


def _upcast(fn, a: Array, x: Array) -> Array:
    """float16/bfloat16 compute in float32, as JAX's igamma does."""
    dt = a.dtype
    if dt.itemsize < 4:
        return fn(a.astype(jnp.float32), x.astype(jnp.float32)).astype(dt)
    return fn(a, x)


def gammainc(a: Array, x: Array) -> Array:
    """P(a, x) = γ(a, x) / Γ(a), the regularized lower incomplete gamma function."""
    a, x = promote_args_inexact("gammainc", a, x)
    return _upcast(_gammainc, a, x)


def gammaincc(a: Array, x: Array) -> Array:
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return _upcast(_gammaincc, a, x)
