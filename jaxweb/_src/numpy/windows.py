"""Window functions of signal processing: bartlett, blackman, hamming, hanning, kaiser.

Each takes a concrete length M and returns M samples in the default float type (a
single 1 for M == 1, an empty array for M == 0), built from `iota` so that no data
travels from the host.
"""
from __future__ import annotations

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]

import math
from typing import Any, Callable

from .. import core, dtypes
from ..lax import base as lax_base, elementwise as lax
from .bessel import i0
from .ufuncs import multiply


def _length(M: Any, name: str) -> int:
    """M as a Python int (JAX truncates floats with int()); negative M is an error."""
    m = int(core.concrete_or_error(M, f"M argument of jnp.{name}"))
    if m < 0:
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got ({m},).")
    return m


def _window(name: str, body: Callable[[Any, int], Any]) -> Callable[[int], Any]:
    def window(M: int) -> Any:
        m = _length(M, name)
        dt = dtypes.default_float()
        if m <= 1:
            return lax_base.constant((m,), 1, dt)
        return body(lax.broadcasted_iota(dt, (m,), 0), m)
    window.__name__ = window.__qualname__ = name
    return window


def _cos_term(n: Any, m: int, k: int) -> Any:
    return lax.cos(lax.mul(n, 2 * k * math.pi / (m - 1)))


bartlett = _window("bartlett", lambda n, m: lax.sub(
    1.0, lax.div(lax.abs(lax.sub(lax.add(lax.mul(n, 2.0), 1.0), float(m))), float(m - 1))))
blackman = _window("blackman", lambda n, m: lax.add(
    lax.sub(0.42, lax.mul(_cos_term(n, m, 1), 0.5)), lax.mul(_cos_term(n, m, 2), 0.08)))
hamming = _window("hamming", lambda n, m: lax.sub(0.54, lax.mul(_cos_term(n, m, 1), 0.46)))
hanning = _window("hanning", lambda n, m: lax.mul(lax.sub(1.0, _cos_term(n, m, 1)), 0.5))
bartlett.__doc__ = "`jnp.bartlett`: the triangular window of M points."
blackman.__doc__ = "`jnp.blackman`: the Blackman window of M points."
hamming.__doc__ = "`jnp.hamming`: the Hamming window of M points."
hanning.__doc__ = "`jnp.hanning`: the Hann window of M points."


def kaiser(M: int, beta: Any) -> Any:
    """`jnp.kaiser`: the Kaiser window of M points, I0(beta sqrt(1 - r²)) / I0(beta)."""
    m = _length(M, "kaiser")
    dt = dtypes.default_float()
    if m <= 1:
        return lax_base.constant((m,), 1, dt)
    n = lax.broadcasted_iota(dt, (m,), 0)
    alpha = 0.5 * (m - 1)
    r = lax.div(lax.sub(n, alpha), alpha)
    arg = multiply(beta, lax.sqrt(lax.sub(1.0, lax.mul(r, r))))
    return lax.div(i0(arg), i0(beta))
