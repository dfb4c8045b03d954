"""Modified Bessel functions of the first kind, orders 0 and 1: i0, i0e, i1, i1e.

i0e(x) = e^-|x| I0(x) and i1e(x) = e^-|x| I1(x) from the ascending power series
for |x| up to a per-dtype switch point and Hankel's asymptotic expansion beyond it,
each with a fixed number of terms (coefficients are exact rationals computed here,
truncated where the asymptotic series reaches its smallest term at the switch).
i0 = e^|x| i0e and i1 = e^|x| i1e. Derivatives are JAX's rules:
i0e' = i1e - sign(x) i0e and i1e' = i0e - i1e (sign(x) + 1/x), 1/2 at x == 0.
"""
from __future__ import annotations

__all__ = ["i0", "i0e", "i1", "i1e"]

import math
from fractions import Fraction
from typing import Any

from ... import numpy as jnp
from .. import dtypes
from ..custom_derivatives import custom_jvp
from ..lax import elementwise as lax
from ..nn.util import promote_args_inexact
from .series import horner

Array = Any

#: dtype name -> (switch point, power-series terms, asymptotic terms)
_PLAN = {"float32": (9.0, 22, 16), "float64": (19.0, 48, 36)}


def _power_coeffs(order: int, count: int) -> list[float]:
    """I_order(x) = (x/2)^order Σ_k c_k (x²/4)^k with c_k = 1 / (k! (k + order)!)."""
    return [1.0 / (math.factorial(k) * math.factorial(k + order)) for k in range(count)]


def _asymptotic_coeffs(order: int, count: int) -> list[float]:
    """e^-x I_order(x) ~ (2πx)^-1/2 Σ_k a_k x^-k,
    a_k = (-1)^k Π_{j<=k} (4 order² - (2j - 1)²) / (k! 8^k)."""
    out, c = [], Fraction(1)
    for k in range(count):
        out.append(float(c))
        c = c * -(4 * order * order - (2 * k + 1) ** 2) / ((k + 1) * 8)
    return out


def _plan(x: Array) -> tuple:
    return _PLAN.get(x.dtype.name, _PLAN["float32"])


def _scaled(order: int, x: Array) -> Array:
    """e^-|x| I_order(|x|)."""
    switch, n_pow, n_asym = _plan(x)
    ax = lax.abs(x)
    small = ax <= switch
    xs = jnp.where(small, ax, 1.0)
    q = xs * xs / 4
    series = horner(_power_coeffs(order, n_pow), q) * lax.exp(-xs)
    if order:
        series = series * (xs / 2)
    xl = jnp.where(small, switch + 1.0, ax)
    asym = horner(_asymptotic_coeffs(order, n_asym), 1 / xl) * lax.rsqrt(2 * math.pi * xl)
    return jnp.where(small, series, jnp.where(ax == math.inf, 0.0, asym))


def _upcast(fn, x: Array) -> Array:
    if x.dtype.itemsize < 4:
        return fn(x.astype(jnp.float32)).astype(x.dtype)
    return fn(x)


@custom_jvp
def _i0e(x: Array) -> Array:
    return _scaled(0, x)


@custom_jvp
def _i1e(x: Array) -> Array:
    return _scaled(1, x) * lax.sign(x)


_i0e.defjvps(lambda g, y, x: g * (_i1e(x) - lax.sign(x) * y))


def _i1e_jvp(g: Array, y: Array, x: Array) -> Array:
    eps = float(dtypes.finfo(x.dtype).eps)
    not_tiny = lax.abs(x) > eps
    safe = jnp.where(not_tiny, x, eps)
    dy = _i0e(safe) - y * (lax.sign(safe) + 1 / safe)
    return g * jnp.where(not_tiny, dy, 0.5)


_i1e.defjvps(_i1e_jvp)


def i0e(x: Array) -> Array:
    """e^-|x| I0(x), the exponentially scaled modified Bessel function of order 0."""
    (x,) = promote_args_inexact("i0e", x)
    return _upcast(_i0e, x)


def i0(x: Array) -> Array:
    """I0(x), the modified Bessel function of order 0."""
    (x,) = promote_args_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), _upcast(_i0e, x))


def i1e(x: Array) -> Array:
    """e^-|x| I1(x), the exponentially scaled modified Bessel function of order 1."""
    (x,) = promote_args_inexact("i1e", x)
    return _upcast(_i1e, x)


def i1(x: Array) -> Array:
    """I1(x), the modified Bessel function of order 1."""
    (x,) = promote_args_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), _upcast(_i1e, x))
