"""numpy's polynomial functions over coefficient arrays (highest degree first).

`poly`, `polyval`, `polyadd`, `polysub`, `polymul`, `polydiv`, `polyder`, `polyint`,
`polyfit` and `vander`, written with jnp operations so they differentiate and batch.
Coefficient counts and degrees are static (shapes), so loops over them (Horner's rule in
`polyval`, long division in `polydiv`) unroll at trace time. `polyfit` solves the
column-scaled Vandermonde least-squares problem by an SVD (`jnp.linalg.lstsq`), as JAX
does. `roots` (and `poly` of a square matrix) take the eigenvalues of a general matrix
(`_linalg_spectral.eigvals`: the companion matrix's, for roots).
"""
from __future__ import annotations

__all__ = ["poly", "polyval", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint",
           "polyfit", "roots", "vander"]

import math
import operator
from typing import Any

from .. import core, dtypes
from ..lax import elementwise as lax
from .util import check_arraylike, ensure_array, promote_dtypes
from . import (creation as _creation, indexing as _indexing, linalg_ops as _linalg_ops,
    linalg_spectral as _linalg_spectral, reductions as _reductions, shape as _shape, sorting as _sorting,
    ufuncs as _ufuncs, ufuncs_math as _ufuncs_math)
from .linalg_factor import inv
from .linalg_spectral import lstsq


def _inexact(*args: Any) -> list:
    """Promote to a common dtype, then integers and bools to the default float."""
    args = promote_dtypes(*[ensure_array(a) for a in args])
    dt = core.get_aval(args[0]).dtype
    if dt.kind in "biu":
        args = [lax.convert_element_type(a, dtypes.default_float(), core.get_aval(a).weak_type)
                for a in args]
    return args


def _index(v: Any, what: str) -> int:
    return operator.index(core.concrete_or_error(v, what))


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """`jnp.vander`: the matrix of powers of x, highest power first unless `increasing`."""
    check_arraylike("vander", x)
    x = ensure_array(x)
    if core.get_aval(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = core.get_aval(x).shape[0] if N is None else _index(N, "'N' argument of jnp.vander()")
    if n < 0:
        raise ValueError("N must be nonnegative")
    dt = core.get_aval(x).dtype
    powers = lax.broadcasted_iota(dt, (n,), 0)
    if not increasing:
        powers = lax.sub(lax.full_like(powers, n - 1), powers)
    return _ufuncs.power(x[:, None], powers[None, :])


def poly(seq_of_zeros: Any) -> Any:
    """`jnp.poly`: the monic polynomial whose roots are the given values."""
    check_arraylike("poly", seq_of_zeros)
    (z,) = _inexact(seq_of_zeros)
    z = _shape.atleast_1d(z)
    sh = core.get_aval(z).shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = _linalg_spectral.eigvals(z)
        sh = core.get_aval(z).shape
    if len(sh) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = core.get_aval(z).dtype
    if sh[0] == 0:
        return _creation.ones((), dt)
    a = _creation.ones((1,), dt)
    for k in range(sh[0]):
        a = _linalg_ops.convolve(a, _shape.stack([_creation.ones((), dt), _ufuncs.negative(z[k])]), mode="full")
    return a


def roots(p: Any, *, strip_zeros: bool = True) -> Any:
    """`jnp.roots`: the (complex) roots of the polynomial p, the eigenvalues of its
    companion matrix. Leading zeros are stripped when `strip_zeros` (which needs concrete
    coefficients, as in JAX); without it the count stays static (usable under jit) and
    each leading zero gives a NaN root at the end, as JAX's."""
    check_arraylike("roots", p)
    (p,) = _inexact(p)
    p = _shape.atleast_1d(p)
    if core.get_aval(p).ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    n = core.get_aval(p).shape[0]
    if n < 2:
        return _creation.zeros((0,), dtypes.complex_of(core.get_aval(p).dtype))
    is_zero = _ufuncs.equal(p, 0)
    leading = _ufuncs_math.where(_reductions.all(is_zero), n, _reductions.argmin(is_zero))
    if strip_zeros:
        leading = operator.index(core.concrete_or_error(
            leading, "The error occurred in the jnp.roots() function. To use this within a JIT-compiled "
            "context, pass strip_zeros=False, but be aware that leading zeros will result in some "
            "returned roots being set to NaN."))
        return _companion_roots(p[leading:])
    p = _ufuncs_math.where(leading == n, _creation.ones_like(p), p)  # all zero: no NaN from 0 / 0
    r = _companion_roots(_shape.roll(p, -leading))  # the leading zeros became zero roots ...
    r = r[_sorting.argsort(_ufuncs.equal(r, 0), stable=True)]  # ... moved to the end ...
    nan = _creation.full_like(r, complex(math.nan, math.nan))
    return _ufuncs_math.where(_creation.arange(n - 1) < n - 1 - leading, r, nan)  # ... and made NaN


def _companion_roots(p: Any) -> Any:
    """The roots of p (p[0] != 0): the eigenvalues of its companion matrix."""
    n = core.get_aval(p).shape[0]
    real = core.get_aval(p).dtype
    if n < 2:
        return _creation.zeros((0,), dtypes.complex_of(real))
    companion = _shape.concatenate([(-p[1:] / p[0])[None, :], _creation.eye(n - 2, n - 1, dtype=real)], axis=0)
    return _linalg_spectral.eigvals(companion)


def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
    """`jnp.polyval`: p[0] x^(n-1) + ... + p[n-1] by Horner's rule (p may have trailing
    batch axes that broadcast with x)."""
    check_arraylike("polyval", p, x)
    p, x = promote_dtypes(ensure_array(p), ensure_array(x))
    pa, xa = core.get_aval(p), core.get_aval(x)
    shape = _shape.broadcast_shapes(pa.shape[1:], xa.shape)
    y = _creation.zeros(shape, xa.dtype)  # not weak, as in JAX
    for i in range(pa.shape[0]):
        y = _ufuncs.add(_ufuncs.multiply(y, x), p[i])
    return y


def polyadd(a1: Any, a2: Any) -> Any:
    """`jnp.polyadd`: the sum, aligned at the constant term."""
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes(ensure_array(a1), ensure_array(a2))
    n1, n2 = core.get_aval(a1).shape[0], core.get_aval(a2).shape[0]
    if n2 <= n1:
        return a1.at[n1 - n2:].add(a2)
    return a2.at[n2 - n1:].add(a1)


def polysub(a1: Any, a2: Any) -> Any:
    """`jnp.polysub`: the difference, aligned at the constant term."""
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(ensure_array(a1), ensure_array(a2))
    return polyadd(a1, _ufuncs.negative(a2))


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
    """`jnp.polymul`: the product (a full convolution of the coefficients)."""
    check_arraylike("polymul", a1, a2)
    a1, a2 = _inexact(a1, a2)
    if trim_leading_zeros and (core.get_aval(a1).shape[0] > 1 or core.get_aval(a2).shape[0] > 1):
        a1, a2 = _indexing.trim_zeros(a1, trim="f"), _indexing.trim_zeros(a2, trim="f")
    if core.get_aval(a1).shape[0] == 0:
        a1 = _creation.zeros(1, core.get_aval(a2).dtype)
    if core.get_aval(a2).shape[0] == 0:
        a2 = _creation.zeros(1, core.get_aval(a1).dtype)
    return _linalg_ops.convolve(a1, a2, mode="full")


def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
    """`jnp.polydiv`: (quotient, remainder) by long division; the remainder keeps u's
    length (leading zeros trimmed to sqrt(eps) only with `trim_leading_zeros`, outside jit)."""
    check_arraylike("polydiv", u, v)
    u, v = _inexact(u, v)
    m, n = core.get_aval(u).shape[0] - 1, core.get_aval(v).shape[0] - 1
    dt = core.get_aval(u).dtype
    scale = _ufuncs.true_divide(1.0, v[0])
    q = _creation.zeros(max(m - n + 1, 1), dt)
    for k in range(m - n + 1):
        d = _ufuncs.multiply(scale, u[k])
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(_ufuncs.multiply(_ufuncs.negative(d), v))
    if trim_leading_zeros:
        tol = float(dtypes.finfo(dt).eps) ** 0.5
        big = [abs(float(c)) >= tol for c in core.concrete_or_error(u, "polydiv trim").tolist()]
        first = big.index(True) if True in big else len(big)
        u = u[first:]
    return q, u


def polyder(p: Any, m: int = 1) -> Any:
    """`jnp.polyder`: the m-th derivative."""
    check_arraylike("polyder", p)
    m = _index(m, "'m' argument of jnp.polyder")
    (p,) = _inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n = core.get_aval(p).shape[0]
    dt = core.get_aval(p).dtype
    coeff = [1.0] * max(n - m, 0)
    for i in range(n - m):  # coefficient of x^(n-1-i) differentiated m times
        power = n - 1 - i
        for j in range(m):
            coeff[i] *= power - j
    return _ufuncs.multiply(p[:n - m], _creation.asarray(coeff, dt))


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """`jnp.polyint`: the m-th antiderivative, with integration constants k (a scalar,
    or one per integration, the first one ending up as the constant term)."""
    m = _index(m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p, k = _inexact(p, k)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = _shape.atleast_1d(k)
    if core.get_aval(k).shape[0] == 1:
        k = _creation.full((m,), k[0])
    if core.get_aval(k).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    n = core.get_aval(p).shape[0]
    dt = core.get_aval(p).dtype
    total = n + m
    coeff = []
    for i in range(total):  # divisor of the coefficient ending at x^(total-1-i)
        power = total - 1 - i
        c = 1.0
        for j in range(m):
            c *= max(1, power - j)
        coeff.append(c)
    return _ufuncs.true_divide(_shape.concatenate([p, k]), _creation.asarray(coeff, dt))


def polyfit(x: Any, y: Any, deg: int, rcond: float | None = None, full: bool = False,
            w: Any = None, cov: bool = False) -> Any:
    """`jnp.polyfit`: least-squares polynomial coefficients (highest degree first), by an
    SVD solve of the column-scaled Vandermonde system as in JAX; `full` adds (residuals,
    rank, singular values, rcond), `cov` the coefficient covariance."""
    check_arraylike("polyfit", x, y, *([] if w is None else [w]))
    deg = _index(deg, "deg must be int")
    order = deg + 1
    x, y = _inexact(x, y)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    xa, ya = core.get_aval(x), core.get_aval(y)
    if xa.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if xa.size == 0:
        raise TypeError("expected non-empty vector for x")
    if ya.ndim < 1 or ya.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if xa.shape[0] != ya.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = xa.shape[0] * float(dtypes.finfo(xa.dtype).eps)
    rcond = float(core.concrete_or_error(rcond, "rcond must be float"))
    lhs, rhs = vander(x, order), y
    if w is not None:
        (wa,) = _inexact(w)
        if core.get_aval(wa).ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if core.get_aval(wa).shape[0] != ya.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * wa[:, None]
        rhs = rhs * (wa[:, None] if ya.ndim == 2 else wa)
    scale = _ufuncs.sqrt(_reductions.sum(lhs * lhs, axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if core.get_aval(c).ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, _creation.asarray(rcond)
    if not cov:
        return c
    vbase = inv(lhs.T @ lhs) / _linalg_ops.outer(scale, scale)
    if cov == "unscaled":
        fac = _creation.asarray(1.0, core.get_aval(vbase).dtype)
    else:
        if xa.shape[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the covariance matrix")
        fac = resids / (xa.shape[0] - order)
    if ya.ndim == 1:
        return c, vbase * _shape.atleast_1d(fac)[None]
    return c, vbase[:, :, None] * _shape.atleast_1d(fac)[None, None, :]
