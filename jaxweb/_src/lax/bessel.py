"""The scaled modified Bessel functions `lax.bessel_i0e` and `lax.bessel_i1e`.

Each is a Chebyshev series (coefficients in bessel_coefs.py, generated from mpmath)
summed with Clenshaw's recurrence, in x/4 - 1 on [0, 8] and in 16/x - 1 beyond, so it
is plain lax arithmetic: it fuses, batches and runs on every device. Terms too small
to matter in the working dtype are dropped. `jnp.i0` (numpy/bessel.py) builds on them.
"""
from __future__ import annotations

from typing import Any, Sequence

from .. import core, dtypes
from . import elementwise as lax
from . import bessel_coefs as C

_EPS = {2: 2.0 ** -11, 4: 2.0 ** -24, 8: 2.0 ** -53}


def _chebyshev(t: Any, coefs: Sequence[float]) -> Any:
    """sum_k coefs[k] T_k(t) by Clenshaw's recurrence, truncated for t's precision."""
    eps = _EPS[core.get_aval(t).dtype.itemsize] * 1e-2
    big = max(abs(c) for c in coefs)
    n = max(k for k, c in enumerate(coefs) if abs(c) > big * eps) + 1
    two_t = lax.mul(t, 2.0)
    b1 = b2 = lax.full_like(t, 0.0)
    for c in reversed(coefs[1:n]):
        b1, b2 = lax.add(lax.sub(lax.mul(two_t, b1), b2), c), b1
    return lax.add(lax.sub(lax.mul(t, b1), b2), coefs[0])


def _scaled(ax: Any, small: Sequence[float], large: Sequence[float], times_x: bool) -> Any:
    """The series pair for |x| = ax >= 0: small argument below 8, asymptotic above."""
    le8 = lax.le(ax, 8.0)
    t_small = lax.sub(lax.mul(lax.select(le8, ax, lax.full_like(ax, 8.0)), 0.25), 1.0)
    safe = lax.select(le8, lax.full_like(ax, 8.0), ax)
    t_large = lax.sub(lax.div(lax.full_like(ax, 16.0), safe), 1.0)
    lo = _chebyshev(t_small, small)
    if times_x:
        lo = lax.mul(lo, ax)
    hi = lax.div(_chebyshev(t_large, large), lax.sqrt(safe))
    return lax.select(le8, lo, hi)


def _compute_dtype(x: Any) -> Any:
    dt = core.get_aval(x).dtype
    return dtypes.float32 if dt.itemsize < 4 else dt


def _in(x: Any) -> Any:
    """x in the dtype the series run in (f16/bf16 compute in f32), weak type kept."""
    dt = _compute_dtype(x)
    return x if dt is core.get_aval(x).dtype else lax.convert_element_type(x, dt)


def _out(y: Any, like: Any) -> Any:
    aval = core.get_aval(like)
    return y if core.get_aval(y).dtype is aval.dtype else \
        lax.convert_element_type(y, aval.dtype, aval.weak_type)


def i0e(x: Any) -> Any:
    """exp(-|x|) * I0(x), for inexact x."""
    return _out(_scaled(lax.abs(_in(x)), C.I0E_SMALL, C.I0E_LARGE, False), x)


def i1e(x: Any) -> Any:
    """exp(-|x|) * I1(x), for inexact x (odd in x)."""
    xc = _in(x)
    out = _scaled(lax.abs(xc), C.I1E_SMALL, C.I1E_LARGE, True)
    return _out(lax.select(lax.lt(xc, 0.0), lax.neg(out), out), x)
