"""`jnp.i0`, the modified Bessel function of the first kind of order zero, from the scaled
series `i0e`/`i1e` of lax/bessel.py. `i0` has the JVP `i1(x) * t` (written with i1e), as
JAX's does, rather than differentiating the series.
"""
from __future__ import annotations

__all__ = ["i0"]

from typing import Any

from ..custom_derivatives import custom_jvp
from ..lax import elementwise as lax
from ..lax.bessel import i0e, i1e  # noqa: F401  (jnp.kaiser and scipy.special use them from here)
from .util import promote_args_inexact


@custom_jvp
def _i0(x: Any) -> Any:
    ax = lax.abs(x)
    return lax.mul(lax.exp(ax), i0e(ax))


@_i0.defjvp
def _i0_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    i1 = lax.mul(lax.exp(lax.abs(x)), i1e(x))
    return _i0(x), lax.mul(i1, t)


def i0(x: Any, /) -> Any:
    """`jnp.i0`: the modified Bessel function of the first kind of order zero."""
    (x,) = promote_args_inexact("i0", x)
    return _i0(x)

