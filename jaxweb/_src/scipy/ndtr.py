"""The standard normal CDF family: ndtr, log_ndtr, ndtri.

ndtr uses erf near 0 and erfc in the tails (as JAX), so both tails keep relative
accuracy. log_ndtr switches at JAX's segment bounds: -log-free `-ndtr(-x)` above
the upper bound, log(ndtr(x)) in the middle, and the asymptotic series of the Mills
ratio below the lower bound (where ndtr underflows); its derivative is JAX's custom
rule exp(log φ(x) - log_ndtr(x)). ndtri inverts through erfinv in the centre and,
in the tails, refines the asymptotic guess sqrt(-2 log p) with Newton steps on
log_ndtr(x) = log p, which stay accurate far beyond where 2p - 1 rounds to -1.
"""
from __future__ import annotations

__all__ = ["ndtr", "log_ndtr", "ndtri"]

import math
from functools import partial
from typing import Any

from ... import numpy as jnp
from .. import dtypes
from ..custom_derivatives import custom_jvp
from ..lax import elementwise as lax

Array = Any

#: dtype name -> (lower, upper) segment bounds of log_ndtr
_LOG_NDTR_SEGMENTS = {"float32": (-10.0, 5.0), "float64": (-20.0, 8.0)}
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _strong(x: Array) -> Array:
    """x without its weak type: JAX's versions compute with typed constants, so their
    results are never weakly typed."""
    return lax.convert_element_type(x, x.dtype, weak_type=False) if x.aval.weak_type else x


def _float_input(name: str, x: Array) -> Array:
    x = jnp.asarray(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"x.dtype={x.dtype.name} is not supported, see docstring for supported types.")
    return _strong(x)


def _ndtr(x: Array) -> Array:
    half_sqrt2 = 0.5 * math.sqrt(2.0)
    w = x * half_sqrt2
    z = lax.abs(w)
    y = lax.select(lax.lt(z, half_sqrt2), 1.0 + lax.erf(w),
                   lax.select(lax.gt(w, 0.0), 2.0 - lax.erfc(z), lax.erfc(z)))
    return 0.5 * y


def ndtr(x: Array) -> Array:
    """Φ(x), the standard normal CDF (float32/float64 inputs only, as in JAX)."""
    return _ndtr(_float_input("ndtr", x))


def _double_factorial(n: int) -> int:
    return math.prod(range(n, 1, -2))


def _log_ndtr_lower(x: Array, series_order: int) -> Array:
    """log Φ(x) for very negative x: log φ(x) - log(-x) + log(1 + Σ (-1)^n (2n-1)!! / x^2n)."""
    x2 = lax.square(x)
    log_scale = -0.5 * x2 - lax.log(-x) - _HALF_LOG_2PI
    series = jnp.ones_like(x)
    x2n = x2
    for n in range(1, series_order + 1):
        term = _double_factorial(2 * n - 1) / x2n
        series = series - term if n % 2 else series + term
        x2n = x2n * x2
    return log_scale + lax.log(series)


@partial(custom_jvp, nondiff_argnums=(1,))
def log_ndtr(x: Array, series_order: int = 3) -> Array:
    """log Φ(x), accurate in both tails (float32/float64; `series_order` terms of the
    asymptotic series below the lower segment bound, at most 30)."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = _strong(jnp.asarray(x))
    if x.dtype.name not in _LOG_NDTR_SEGMENTS:
        raise TypeError(f"x.dtype={x.dtype.name} is not supported.")
    lower, upper = _LOG_NDTR_SEGMENTS[x.dtype.name]
    above = lax.gt(x, upper)
    ndtr_arg = jnp.where(above, -x, lax.max(x, lax.full_like(x, lower)))
    ndtr_res = _ndtr(ndtr_arg)
    lower_res = _log_ndtr_lower(lax.min(x, lax.full_like(x, lower)), series_order)
    return jnp.where(above, -ndtr_res, jnp.where(lax.gt(x, lower), lax.log(ndtr_res), lower_res))


@log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    ans = log_ndtr(x, series_order)
    log_pdf = -0.5 * lax.square(x) - _HALF_LOG_2PI
    return ans, t * lax.exp(log_pdf - ans)


def _ndtri_tail(p: Array) -> Array:
    """Φ⁻¹(p) for p <= 1/2 away from the centre: an asymptotic first guess, then Newton on
    f(x) = log_ndtr(x) - log p (f' = φ(x)/Φ(x), computed in logs so nothing underflows)."""
    log_p = lax.log(p)
    t = lax.sqrt(-2.0 * log_p)
    # Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4): quadratic convergence from here.
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
          (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    steps = 3 if x.dtype == dtypes.float64 else 2
    for _ in range(steps):
        lnd = log_ndtr(x, 10)
        log_pdf = -0.5 * lax.square(x) - _HALF_LOG_2PI
        x = x - (lnd - log_p) / lax.exp(log_pdf - lnd)
    return x


def ndtri(p: Array) -> Array:
    """Φ⁻¹(p), the standard normal quantile: -inf at 0, inf at 1, NaN outside [0, 1]."""
    p = _float_input("ndtri", p)
    q = jnp.where(p > 0.5, 1.0 - p, p)             # exact for p in [1/2, 1]
    central = lax.gt(q, 0.1)
    safe_tail = jnp.where(central | (q <= 0), 0.25, q)
    tail = _ndtri_tail(safe_tail)
    mid = math.sqrt(2.0) * lax.erf_inv(2.0 * jnp.where(central, q, 0.25) - 1.0)
    x = jnp.where(central, mid, tail)
    x = jnp.where(p > 0.5, -x, x)
    x = jnp.where(p == 0, -math.inf, jnp.where(p == 1, math.inf, x))
    return jnp.where((p < 0) | (p > 1) | jnp.isnan(p), math.nan, x)
