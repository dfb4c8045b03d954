"""Gamma-family and elementary special functions of `jax.scipy.special`.

gammaln, digamma, erf, erfc, erfinv and expit map onto lax primitives; gamma,
beta, betaln, factorial and comb are built from lgamma as JAX builds them (betaln
uses the algdiv correction for large arguments, so ln B(a, b) stays accurate when
b is large); xlogy, xlog1py, entr and logit carry JAX's custom derivatives (xlogy's
value is 0 at x == 0 but its derivative is not forced to 0).
"""
from __future__ import annotations

__all__ = ["gammaln", "gammasgn", "gamma", "loggamma", "betaln", "beta", "digamma",
           "factorial", "comb", "multigammaln", "erf", "erfc", "erfinv", "expit", "logit",
           "xlogy", "xlog1py", "entr", "kl_div", "rel_entr", "poch", "boxcox", "boxcox1p"]

import math
from typing import Any

from ... import numpy as jnp
from .. import core
from ..custom_derivatives import custom_jvp
from ..lax import elementwise as lax
from ..nn.util import promote_args_inexact

Array = Any


def _no_complex(name: str, x: Array) -> None:
    if x.dtype.kind == "c":
        raise ValueError(f"{name} does not support complex-valued inputs.")


def gammaln(x: Array) -> Array:
    """ln|Γ(x)|."""
    (x,) = promote_args_inexact("gammaln", x)
    return lax.lgamma(x)


def gammasgn(x: Array) -> Array:
    """The sign of Γ(x): NaN at the poles (non-positive integers) and for NaN, -1 where
    floor(x) is odd and negative, and for -0.0; +1 elsewhere."""
    (x,) = promote_args_inexact("gammasgn", x)
    _no_complex("gammasgn", x)
    floor_x = lax.floor(x)
    neg = x < 0
    is_nan = (neg & (x == floor_x)) | jnp.isnan(x)
    is_minus = (neg & (jnp.remainder(floor_x, 2) != 0)) | ((x == 0) & jnp.signbit(x))
    one = jnp.ones(x.shape, x.dtype)  # strongly typed, as JAX's typed constants
    return jnp.where(is_nan, jnp.full(x.shape, math.nan, x.dtype), jnp.where(is_minus, -one, one))


def gamma(x: Array) -> Array:
    """Γ(x) = gammasgn(x) * exp(gammaln(x))."""
    (x,) = promote_args_inexact("gamma", x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def loggamma(x: Array) -> Array:
    """ln Γ(x) for x > 0 (the principal branch); NaN for x <= 0 (real inputs)."""
    (x,) = promote_args_inexact("loggamma", x)
    return jnp.where(x > 0, lax.lgamma(x), math.nan)


def _algdiv(a: Array, b: Array) -> Array:
    """ln Γ(b) - ln Γ(a + b) for b >= 8, without the cancellation of the direct
    difference (the Bosten-Battiste series of DiDonato and Morris' BRATIO)."""
    c = (0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03,
         -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02)
    h = a / b
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s = [1.0]
    for _ in range(5):
        s.append(1.0 + (x + x2 * s[-1]))
    t = (1.0 / b) ** 2
    w = c[5] * s[5]
    for k in range(4, -1, -1):
        w = w * t + c[k] * s[k]
    w = w * (x / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, w - v - u, w - u - v)


def betaln(a: Array, b: Array) -> Array:
    """ln|B(a, b)|: lgamma sums for small arguments, lgamma(a) + algdiv(a, b) once the
    larger argument reaches 8."""
    a, b = promote_args_inexact("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def beta(a: Array, b: Array) -> Array:
    """B(a, b) = Γ(a)Γ(b)/Γ(a+b), with the sign from gammasgn."""
    a, b = promote_args_inexact("beta", a, b)
    _no_complex("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def digamma(x: Array) -> Array:
    """ψ(x) = d/dx ln Γ(x)."""
    (x,) = promote_args_inexact("digamma", x)
    return lax.digamma(x)


def factorial(n: Array, exact: bool = False) -> Array:
    """n! = Γ(n + 1) as floating point (0 for n < 0); `exact=True` is not supported."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N: Array, k: Array, *, repetition: bool = False) -> Array:
    """The binomial coefficient C(N, k) via lgamma (0 outside 0 <= k <= N);
    with `repetition`, C(N + k - 1, k)."""
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        cond = (k == 0) & (N >= 0)
        return jnp.where(cond, 1.0, comb(N + k - 1, k, repetition=False))
    cond = (k <= N) & (N >= 0) & (k >= 0)
    safe_n = jnp.where(cond, N, 0.0)
    safe_k = jnp.where(cond, k, 0.0)
    out = lax.exp(gammaln(safe_n + 1) - gammaln(safe_k + 1) - gammaln(safe_n + 1 - safe_k))
    return jnp.where(cond, out, 0.0)


def multigammaln(a: Array, d: int) -> Array:
    """The log of the multivariate gamma function of dimension d."""
    d = int(core.concrete_or_error(d, "d argument of multigammaln"))
    a, d_ = promote_args_inexact("multigammaln", a, d)
    constant = 0.25 * d_ * (d_ - 1) * math.log(math.pi)
    b = jnp.arange(d, dtype=d_.dtype) / 2
    terms = gammaln(jnp.expand_dims(a, -1) - jnp.expand_dims(b, tuple(range(a.ndim))))
    return jnp.sum(terms, axis=-1) + constant


def erf(x: Array) -> Array:
    """The error function."""
    (x,) = promote_args_inexact("erf", x)
    return lax.erf(x)


def erfc(x: Array) -> Array:
    """1 - erf(x), accurate in the upper tail."""
    (x,) = promote_args_inexact("erfc", x)
    return lax.erfc(x)


def erfinv(x: Array) -> Array:
    """The inverse error function on (-1, 1) (±inf at ±1)."""
    (x,) = promote_args_inexact("erfinv", x)
    return lax.erf_inv(x)


def expit(x: Array) -> Array:
    """The logistic sigmoid 1 / (1 + exp(-x))."""
    (x,) = promote_args_inexact("expit", x)
    return lax.logistic(x)


@custom_jvp
def logit(x: Array) -> Array:
    """log(x / (1 - x)), derivative 1 / (x (1 - x))."""
    (x,) = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(1, x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(1, x))))


@custom_jvp
def xlogy(x: Array, y: Array) -> Array:
    """x * log(y), and 0 where x == 0 (unless y is NaN)."""
    x, y = promote_args_inexact("xlogy", x, y)
    keep = (x != 0.0) | jnp.isnan(y)
    return jnp.where(keep, lax.mul(x, lax.log(y)), jnp.zeros_like(x))


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = xlogy(x, y)
    return out, (x_dot * lax.log(y) + y_dot * x / y).astype(out.dtype)


@custom_jvp
def xlog1py(x: Array, y: Array) -> Array:
    """x * log1p(y), and 0 where x == 0 (unless y is NaN)."""
    x, y = promote_args_inexact("xlog1py", x, y)
    keep = (x != 0.0) | jnp.isnan(y)
    return jnp.where(keep, lax.mul(x, lax.log1p(y)), jnp.zeros_like(x))


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = xlog1py(x, y)
    return out, (x_dot * lax.log1p(y) + y_dot * x / (1 + y)).astype(out.dtype)


@custom_jvp
def _xlogx(x: Array) -> Array:
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


def entr(x: Array) -> Array:
    """-x log x for x >= 0 (0 at 0), -inf for x < 0."""
    (x,) = promote_args_inexact("entr", x)
    _no_complex("entr", x)
    return lax.select(lax.lt(x, 0), lax.full_like(x, -math.inf), lax.neg(_xlogx(x)))


def rel_entr(p: Array, q: Array) -> Array:
    """p log(p / q) for p, q > 0; 0 where p == 0 and q >= 0; inf otherwise."""
    p, q = promote_args_inexact("rel_entr", p, q)
    _no_complex("rel_entr", p)
    both_pos = (p > 0) & (q > 0)
    p_zero = (p == 0) & (q >= 0)
    safe_p = jnp.where(both_pos, p, 1)
    safe_q = jnp.where(both_pos, q, 1)
    val = _xlogx(safe_p) - xlogy(safe_p, safe_q)
    return jnp.where(both_pos, val, jnp.where(p_zero, 0.0, math.inf))


def kl_div(p: Array, q: Array) -> Array:
    """rel_entr(p, q) - p + q."""
    p, q = promote_args_inexact("kl_div", p, q)
    _no_complex("kl_div", p)
    return rel_entr(p, q) - p + q


def poch(z: Array, m: Array) -> Array:
    """The Pochhammer symbol (z)_m = Γ(z + m) / Γ(z)."""
    z, m = promote_args_inexact("poch", z, m)
    return jnp.where(m == 0.0, jnp.ones_like(z), gamma(z + m) / gamma(z))


def boxcox(x: Array, lmbda: Array) -> Array:
    """The Box-Cox transform (x^λ - 1)/λ, log x at λ == 0."""
    x, lmbda = promote_args_inexact("boxcox", x, lmbda)
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    log_x = jnp.log(x)
    return jnp.where(zero, log_x, jnp.expm1(safe * log_x) / safe)


def boxcox1p(x: Array, lmbda: Array) -> Array:
    """boxcox(1 + x, λ), accurate for small x."""
    x, lmbda = promote_args_inexact("boxcox1p", x, lmbda)
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    log1p_x = jnp.log1p(x)
    return jnp.where(zero, log1p_x, jnp.expm1(safe * log1p_x) / safe)
