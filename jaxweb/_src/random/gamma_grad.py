"""d sample / d alpha for Gamma(alpha, 1) samples: JAX's `random_gamma_grad`.

Differentiating the CDF identity P(alpha, x(alpha)) = u at fixed u gives
dx/dalpha = -(dP/dalpha) / (dP/dx); the derivative of the regularized incomplete
gamma function comes from its power series (x <= 1 or x <= alpha) or its continued
fraction, both iterated until the derivative converges, as in JAX (and XLA).
"""
from __future__ import annotations

import math
from typing import Any

from .. import core, dtypes
from ..lax import _modules as lax


def _full_like(x: Any, v: float) -> Any:
    aval = core.get_aval(x)
    return lax.full(aval.shape, v, aval.dtype)


def _any(pred: Any) -> Any:
    nd = core.get_aval(pred).ndim
    return lax.reduce_or(pred, tuple(range(nd))) if nd else pred


def _series_sample_derivative(x: Any, a: Any, enabled: Any, eps: float) -> Any:
    def body(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = lax.add(r, 1.0)
        dc_da = lax.sub(lax.mul(dc_da, lax.div(x, r)), lax.div(lax.mul(c, x), lax.mul(r, r)))
        dans_da = lax.add(dans_da, dc_da)
        c = lax.mul(c, lax.div(x, r))
        ans = lax.add(ans, c)
        more = lax.bitwise_and(enabled, lax.gt(lax.abs(lax.div(dc_da, dans_da)), eps))
        new = (r, c, ans, x, dc_da, dans_da)
        return (more, *(lax.select(enabled, n, o) for n, o in zip(new, vals[1:])))

    init = (enabled, a, _full_like(a, 1.0), _full_like(a, 1.0), x, _full_like(a, 0.0), _full_like(a, 0.0))
    vals = lax.while_loop(lambda v: _any(v[0]), body, init)
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(lax.add(a, 1.0)))
    return lax.div(lax.mul(lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da))), x), a)


def _continued_fraction_sample_derivative(x: Any, a: Any, enabled: Any, eps: float) -> Any:
    def cond(vals):
        return lax.bitwise_and(lax.lt(vals[5], 2000.0), _any(vals[0]))

    def body(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = lax.add(c, 1.0)
        y = lax.add(y, 1.0)
        z = lax.add(z, 2.0)
        yc = lax.mul(y, c)
        pk = lax.sub(lax.mul(pkm1, z), lax.mul(pkm2, yc))
        qk = lax.sub(lax.mul(qkm1, z), lax.mul(qkm2, yc))
        nonzero = lax.ne(qk, 0.0)
        r = lax.div(pk, qk)
        t = lax.select(nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), _full_like(r, 1.0))
        ans = lax.select(nonzero, r, ans)
        dpk_da = lax.add(lax.sub(lax.sub(lax.mul(dpkm1_da, z), pkm1), lax.mul(dpkm2_da, yc)), lax.mul(pkm2, c))
        dqk_da = lax.add(lax.sub(lax.sub(lax.mul(dqkm1_da, z), qkm1), lax.mul(dqkm2_da, yc)), lax.mul(qkm2, c))
        dans_da_new = lax.select(nonzero, lax.div(lax.sub(dpk_da, lax.mul(ans, dqk_da)), qk), dans_da)
        grad_cond = lax.select(nonzero, lax.abs(lax.sub(dans_da_new, dans_da)), _full_like(dans_da, 1.0))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = lax.gt(lax.abs(pk), 1.0 / eps)
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = (
            lax.select(rescale, lax.mul(v, eps), v)
            for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da))
        more = lax.bitwise_and(enabled, lax.gt(grad_cond, eps))
        kept = (ans, t, y, z)
        rest = (pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
        return (more, *(lax.select(enabled, n, o) for n, o in zip(kept, vals[1:5])), c,
                *(lax.select(enabled, n, o) for n, o in zip(rest, vals[6:])))

    y = lax.sub(1.0, a)
    z = lax.add(lax.add(x, y), 1.0)
    pkm1 = lax.add(x, 1.0)
    qkm1 = lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    zero = _full_like(x, 0.0)
    dqkm1_da = lax.neg(x)
    dans_da = lax.div(lax.sub(zero, lax.mul(ans, dqkm1_da)), qkm1)
    c = lax.full((), 0.0, core.get_aval(x).dtype)  # the iteration count, shared by all elements
    init = (enabled, ans, _full_like(x, 1.0), y, z, c, pkm1, qkm1, _full_like(x, 1.0), x,
            zero, zero, zero, dqkm1_da, dans_da)
    vals = lax.while_loop(cond, body, init)
    ans, dans_da = vals[1], vals[14]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(a))
    return lax.mul(lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da))), x)


def random_gamma_grad(a: Any, x: Any) -> Any:
    """Elementwise d x / d a for samples x of Gamma(a, 1)."""
    dtype = core.get_aval(a).dtype
    eps = dtypes.finfo(dtype).eps
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, 0.0)
    domain_error = lax.bitwise_or(lax.lt(x, 0.0), lax.le(a, 0.0))
    use_igammac = lax.bitwise_and(lax.gt(x, 1.0), lax.gt(x, a))
    ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(ax, -math.log(dtypes.finfo(dtype).max))
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(x_is_zero, domain_error),
                                             lax.bitwise_or(underflow, is_nan)))
    out = lax.select(use_igammac,
                     lax.neg(_continued_fraction_sample_derivative(
                         x, a, lax.bitwise_and(enabled, use_igammac), eps)),
                     _series_sample_derivative(x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_igammac)), eps))
    out = lax.select(x_is_zero, _full_like(out, 0.0), out)
    return lax.select(lax.bitwise_or(domain_error, is_nan), _full_like(a, float("nan")), out)
