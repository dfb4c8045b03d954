"""More of `jax.scipy.special`: bernoulli, exp1, expi, erfcx — each by a convergent series
where its argument is small and a continued fraction (or asymptotic series) where it is
large, with a fixed number of terms so the functions trace, batch and differentiate."""
from __future__ import annotations

__all__ = ["bernoulli", "erfcx", "exp1", "expi"]

import math
from fractions import Fraction
from typing import Any

from ... import numpy as jnp
from .special_basic import erfc

Array = Any
_EULER = 0.5772156649015329


def bernoulli(n: int) -> Array:
    """The Bernoulli numbers B_0 .. B_n (B_1 = -1/2), computed exactly then rounded."""
    n = int(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return jnp.array([float(v) for v in b], jnp.float32)


def _inexact(x: Any) -> Array:
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


def _e1_series(x: Array) -> Array:
    """E1(x) = -γ - ln x - Σ (-x)^k / (k k!) for 0 < x <= 1."""
    total, term = jnp.zeros_like(x), jnp.ones_like(x)
    for k in range(1, 25):
        term = term * (-x) / k
        total = total + term / k
    return -_EULER - jnp.log(x) - total


def _e1_fraction(x: Array) -> Array:
    """E1(x) = e^-x / (x + 1 / (1 + 1 / (x + 2 / (1 + 2 / (x + ...))))) for x > 1,
    evaluated bottom-up over a fixed depth."""
    t = jnp.zeros_like(x)
    for k in range(40, 0, -1):
        t = k / (1 + k / (x + t))
    return jnp.exp(-x) / (x + t)


def exp1(x: Any) -> Array:
    """The exponential integral E1(x) = ∫_1^∞ e^{-xt}/t dt (inf at 0; nan for x < 0 and,
    as JAX, at inf)."""
    x = _inexact(x)
    small = x <= 1
    safe_small = jnp.where(small & (x > 0), x, 0.5)
    safe_big = jnp.where(small, 2.0, x)
    out = jnp.where(small, _e1_series(safe_small), _e1_fraction(safe_big))
    return jnp.where((x < 0) | (x == jnp.inf), jnp.nan, jnp.where(x == 0, jnp.inf, out))  # E1(inf): nan, as JAX


def expi(x: Any) -> Array:
    """The exponential integral Ei(x) (−E1(−x) for x < 0; nan at 0, as JAX)."""
    x = _inexact(x)
    pos = jnp.where(x > 0, x, 1.0)
    total, term = jnp.zeros_like(pos), jnp.ones_like(pos)
    for k in range(1, 50):  # γ + ln x + Σ x^k / (k k!), for 0 < x <= 20
        term = term * pos / k
        total = total + term / k
    series = _EULER + jnp.log(pos) + total
    big = jnp.where(x > 20, x, 50.0)
    asym, term = jnp.ones_like(big), jnp.ones_like(big)
    for k in range(1, 21):  # e^x / x Σ k! / x^k (its smallest term near k = x)
        term = term * k / big
        asym = asym + term
    asym = jnp.exp(big) / big * asym
    positive = jnp.where(x > 20, asym, series)
    return jnp.where(x > 0, positive, jnp.where(x == 0, jnp.nan, -exp1(-x)))  # Ei(0): nan, as JAX


def erfcx(x: Any) -> Array:
    """exp(x²) erfc(x) without overflow or underflow: directly for x < 2, by Laplace's
    continued fraction 1/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) above."""
    x = _inexact(x)
    near = x < 2
    direct = jnp.exp(jnp.where(near, x, 0) ** 2) * erfc(jnp.where(near, x, 0))
    far = jnp.where(near, 2.0, x)
    t = jnp.zeros_like(far)
    for k in range(60, 0, -1):
        t = (k / 2) / (far + t)
    frac = 1 / math.sqrt(math.pi) / (far + t)
    return jnp.where(near, direct, frac)
