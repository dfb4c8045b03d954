"""The rest of `jax.scipy.special` that jaxweb computes: spence, expn, wofz, dawsn, sici,
fresnel, bessel_jn.

- wofz, the Faddeeva function w(z) = exp(-z²) erfc(-iz), by Weideman's rational expansion
  (SIAM J. Numer. Anal. 31, 1994) in the upper half-plane — 32 coefficients computed here
  once from a discrete Fourier transform — and w(z) = 2 exp(-z²) - w(-z) below it. dawsn
  and fresnel follow from it (F(x) = √π/2 Im w(x); C + iS from erf of a complex argument),
  each with its Maclaurin series near 0 where the identities cancel.
- spence(x) = Li2(1 - x): the Bernoulli series in u = -ln(1 - z), with the reflection
  z -> 1 - z and the inversion z -> 1/z bringing z within |u| <= ln 2.
- expn: the series around 0 (ψ(n) term included) for x <= 1, a continued fraction above.
- sici: Maclaurin series for x <= 4, the continued fraction of E1(ix) above.
- bessel_jn: J_0..J_v by Miller's downward recurrence from order n_iter, normalized by
  J_0 + 2 Σ J_2k = 1 — JAX's algorithm and arithmetic, so its values (nan where its float32
  recurrence overflows, as at small z) are JAX's.
Fixed term counts keep every function traceable, batchable and differentiable; each is jitted
(as JAX's are), so an eager call or its gradient runs as one compiled program.
"""
from __future__ import annotations

__all__ = ["bessel_jn", "dawsn", "expn", "fresnel", "sici", "spence", "wofz"]

import cmath
import functools
import math
from typing import Any

from ... import numpy as jnp
from ..api import jit
from ..custom_derivatives import custom_jvp
from .special_basic import digamma, gammaln

Array = Any
_EULER = 0.5772156649015329
_SQRT_PI = math.sqrt(math.pi)


def _inexact(x: Any) -> Array:
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.result_type(x, jnp.float32))


def _real_only(name: str, x: Array) -> None:
    if jnp.iscomplexobj(x):
        raise ValueError(f"{name} does not support complex-valued inputs.")


# ---------------------------------------------------------------- Faddeeva
def _weideman(n: int = 32) -> tuple[float, list[float]]:
    """(L, polynomial coefficients, highest power first) of Weideman's N-term expansion."""
    m = 2 * n
    big_l = math.sqrt(n / math.sqrt(2))
    f = []
    for k in range(-m + 1, m):  # f(t) on t = L tan(θ/2), θ = kπ/M, then shifted for the DFT
        t = big_l * math.tan(k * math.pi / m / 2)
        f.append(math.exp(-t * t) * (big_l * big_l + t * t))
    f = [0.0] + f
    f = f[m:] + f[:m]  # fftshift of the 2M samples
    a = []
    for j in range(1, n + 1):
        s = sum(v * cmath.exp(-2j * math.pi * j * k / (2 * m)) for k, v in enumerate(f))
        a.append((s / (2 * m)).real)
    return big_l, a[::-1]


_W_L, _W_COEFFS = _weideman()


def _w_upper(z: Array) -> Array:
    """w(z) for Im z >= 0."""
    iz = 1j * z
    d = _W_L - iz
    zz = (_W_L + iz) / d
    p = jnp.zeros_like(zz)
    for c in _W_COEFFS:
        p = p * zz + c
    return 2 * p / (d * d) + (1 / _SQRT_PI) / d


@jit
def wofz(z: Any) -> Array:
    """The Faddeeva function w(z) = exp(-z²) erfc(-iz) (complex result)."""
    z = _inexact(z)
    cdt = jnp.result_type(z, jnp.complex64)
    z = z.astype(cdt)
    lower = z.imag < 0
    zu = jnp.where(lower, -z, z)
    w = _w_upper(zu)
    return jnp.where(lower, 2 * jnp.exp(-(z * z)) - w, w)


@jit
def dawsn(x: Any) -> Array:
    """Dawson's integral F(x) = exp(-x²) ∫_0^x exp(t²) dt."""
    x = _inexact(x)
    _real_only("dawsn", x)
    small = jnp.abs(x) < 0.5
    xs = jnp.where(small, x, 0.25)
    term, total = xs, xs
    for k in range(1, 12):  # Σ (-1)^k 2^k x^(2k+1) / (2k+1)!!
        term = term * (-2 * xs * xs) / (2 * k + 1)
        total = total + term
    big = jnp.where(small, 1.0, x)
    far = (_SQRT_PI / 2 * wofz(big).imag).astype(x.dtype)
    return jnp.where(jnp.isinf(x), 0.0, jnp.where(small, total, far))


@jit
def fresnel(x: Any) -> tuple[Array, Array]:
    """The Fresnel integrals (S(x), C(x)) = ∫_0^x (sin, cos)(π t²/2) dt."""
    x = _inexact(x)
    _real_only("fresnel", x)
    ax = jnp.abs(x)
    small = ax < 1.0
    xs = jnp.where(small, ax, 0.5)
    h = math.pi / 2
    s_sum, c_sum = jnp.zeros_like(xs), jnp.zeros_like(xs)
    fact_even, power = 1.0, jnp.ones_like(xs)  # power = (π x² / 2)^j / j!
    for j in range(14):
        if j:
            power = power * (h * xs * xs) / j
        sign = (-1) ** (j // 2)
        if j % 2:
            s_sum = s_sum + sign * power / (2 * j + 1)
        else:
            c_sum = c_sum + sign * power / (2 * j + 1)
    s_small, c_small = xs * s_sum, xs * c_sum
    xb = jnp.where(small, 1.0, ax).astype(jnp.result_type(x, jnp.complex64))
    # C + iS = (1+i)/2 (1 - exp(iπx²/2) w((1+i)√π/2 x))
    cs = (1 + 1j) / 2 * (1 - jnp.exp(1j * h * xb * xb) * _w_upper((1 + 1j) * (_SQRT_PI / 2) * xb))
    s = jnp.where(small, s_small, cs.imag.astype(x.dtype))
    c = jnp.where(small, c_small, cs.real.astype(x.dtype))
    s, c = jnp.sign(x) * s, jnp.sign(x) * c
    inf = jnp.isinf(x)
    return jnp.where(inf, jnp.sign(x) * 0.5, s), jnp.where(inf, jnp.sign(x) * 0.5, c)


# ---------------------------------------------------------------- dilogarithm
_BERN = [1.0, -0.5, 1 / 6, 0.0, -1 / 30, 0.0, 1 / 42, 0.0, -1 / 30, 0.0, 5 / 66, 0.0, -691 / 2730, 0.0, 7 / 6,
         0.0, -3617 / 510, 0.0, 43867 / 798, 0.0, -174611 / 330]


def _li2_series(z: Array) -> Array:
    """Li2(z) = Σ B_n u^(n+1) / (n+1)!, u = -ln(1 - z), for -1 <= z <= 1/2."""
    u = -jnp.log1p(-z)
    total, power = jnp.zeros_like(u), jnp.ones_like(u)
    for n, b in enumerate(_BERN):
        power = power * u / (n + 1)
        if b:
            total = total + b * power
    return total


def _li2(z: Array) -> Array:
    pi2_6 = math.pi ** 2 / 6
    mid = (z >= -1) & (z <= 0.5)
    high = z > 0.5
    zm = jnp.where(mid, z, 0.0)
    zh = jnp.where(high & (z < 1), z, 0.75)
    zl = jnp.where(z < -1, z, -2.0)
    from_mid = _li2_series(zm)
    from_high = pi2_6 - jnp.log(zh) * jnp.log1p(-zh) - _li2_series(1 - zh)
    from_low = -pi2_6 - 0.5 * jnp.log(-zl) ** 2 - _li2_series(1 / zl)
    out = jnp.where(mid, from_mid, jnp.where(high, from_high, from_low))
    return jnp.where(z == 1, pi2_6, out)


@jit
def spence(x: Any) -> Array:
    """Spence's function ∫_1^x ln t / (1 - t) dt = Li2(1 - x), for x >= 0 (nan below)."""
    x = jnp.asarray(x)
    if x.dtype not in (jnp.float32, jnp.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    bad = (x < 0) | ~jnp.isfinite(x)  # nan below 0, and at inf and nan (as JAX)
    out = _li2(1 - jnp.where(bad, 1.0, x))
    return jnp.where(bad, jnp.nan, jnp.where(x == 1, 0.0, out))


# ---------------------------------------------------------------- exponential integrals
def _expn_series(n: Array, x: Array) -> Array:
    """E_n(x) = (-x)^(n-1)/(n-1)! (ψ(n) - ln x) - Σ_{k != n-1} (-x)^k / ((k-n+1) k!), x <= 1."""
    total, term = jnp.zeros_like(x), jnp.ones_like(x)
    for k in range(30):
        if k:
            term = term * (-x) / k
        denom = k - n + 1
        total = total + jnp.where(denom == 0, 0.0, term / jnp.where(denom == 0, 1.0, denom))
    nm1 = jnp.maximum(n - 1, 0)
    lead = jnp.exp(nm1 * jnp.log(x) - gammaln(nm1 + 1)) * jnp.where(nm1 % 2 == 1, -1.0, 1.0)
    return lead * (digamma(jnp.maximum(n, 1)) - jnp.log(x)) - total


def _expn_fraction(n: Array, x: Array) -> Array:
    """E_n(x) = e^-x / (x + n - 1·n/(x + n + 2 - 2(n+1)/(x + n + 4 - ...))), x > 1."""
    t = jnp.zeros_like(x)
    for i in range(60, 0, -1):
        t = i * (n + i - 1) / (x + n + 2 * i - t)
    return jnp.exp(-x) / (x + n - t)


@custom_jvp
def _expn(n: Array, x: Array) -> Array:
    small = x <= 1
    xs = jnp.where(small & (x > 0), x, 0.5)
    xb = jnp.where(small, 2.0, x)
    ns = jnp.where(n >= 1, n, 1.0)
    out = jnp.where(small, _expn_series(ns, xs), _expn_fraction(ns, xb))
    out = jnp.where(n == 0, jnp.exp(-x) / x, out)
    out = jnp.where(x == 0, jnp.where(n < 2, jnp.inf, 1 / jnp.where(n < 2, 1.0, n - 1)), out)
    return jnp.where((n < 0) | (x < 0), jnp.nan, out)


@_expn.defjvp
def _expn_jvp(primals, tangents):
    n, x = primals
    return _expn(n, x), -_expn(n - 1, x) * tangents[1]


@jit
def expn(n: Any, x: Any) -> Array:
    """The generalized exponential integral E_n(x) = ∫_1^∞ e^(-xt) / t^n dt."""
    n, x = jnp.asarray(n), jnp.asarray(x)
    dt = jnp.result_type(n, x)
    if not jnp.issubdtype(dt, jnp.inexact):
        dt = jnp.result_type(dt, jnp.float32)
    if jnp.issubdtype(dt, jnp.complexfloating):
        raise ValueError("expn does not support complex-valued inputs.")
    n, x = jnp.broadcast_arrays(n.astype(dt), x.astype(dt))
    return _expn(n, x)


@jit
def sici(x: Any) -> tuple[Array, Array]:
    """The sine and cosine integrals (Si(x), Ci(x)); Ci(-x) = Ci(x) (the real part), Si odd."""
    x = _inexact(x)
    _real_only("sici", x)
    ax = jnp.abs(x)
    small = ax <= 4
    xs = jnp.where(small & (ax > 0), ax, 1.0)
    si_sum, ci_sum, term = jnp.zeros_like(xs), jnp.zeros_like(xs), jnp.ones_like(xs)  # term = x^j / j!
    for j in range(1, 40):
        term = term * xs / j
        if j % 2:
            si_sum = si_sum + (-1) ** (j // 2) * term / j
        else:
            ci_sum = ci_sum + (-1) ** (j // 2) * term / j
    ci_small = _EULER + jnp.log(xs) + ci_sum
    xb = jnp.where(small, 5.0, ax)
    cdt = jnp.result_type(x, jnp.complex64)
    b1 = (1 + 1j * xb).astype(cdt)
    t = jnp.zeros_like(b1)
    for i in range(60, 1, -1):  # E1(ix) e^(ix) = 1/(b1 + a2/(b2 + ...)), b_i = 1 + ix + 2(i-1), a_i = -(i-1)²
        t = -((i - 1) ** 2) / (b1 + 2 * (i - 1) + t)
    h = (jnp.cos(xb) - 1j * jnp.sin(xb)) / (b1 + t)
    si = jnp.where(small, si_sum, (math.pi / 2 + h.imag).astype(x.dtype))
    ci = jnp.where(small, ci_small, (-h.real).astype(x.dtype))
    si = jnp.where(ax == 0, 0.0, jnp.sign(x) * si)
    ci = jnp.where(ax == 0, -jnp.inf, ci)
    inf = jnp.isinf(x)
    return jnp.where(inf, jnp.sign(x) * (math.pi / 2), si), jnp.where(inf, 0.0, ci)


# ---------------------------------------------------------------- Bessel J_n
@functools.partial(jit, static_argnames=("v", "n_iter"))
def bessel_jn(z: Any, *, v: int, n_iter: int = 50) -> Array:
    """J_0(z) .. J_v(z) stacked on a new first axis (Miller's algorithm, as JAX)."""
    z = _inexact(z)
    if jnp.iscomplexobj(z):
        raise ValueError("complex input not supported.")
    v, n_iter = int(v), int(n_iter)
    f0, f1 = jnp.zeros_like(z), jnp.full_like(z, 1e-16)
    bs = jnp.zeros_like(z)
    vals = [None] * (n_iter + 1)
    for k in range(n_iter, -1, -1):  # J_k = 2(k+1)/z J_(k+1) - J_(k+2)
        f = 2.0 * (k + 1.0) * f1 / z - f0
        if k % 2 == 0:
            bs = bs + 2.0 * f
        vals[k] = f
        f0, f1 = f1, f
    return jnp.stack(vals[:v + 1]) / (bs - vals[0])
