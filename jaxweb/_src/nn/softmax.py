"""Normalizing functions of `jax.nn`: softmax, log_softmax, logsumexp, logmeanexp,
standardize and one_hot.

softmax carries JAX's custom JVP (y * (t - sum(y t))), which is exact and stable even
where the forward pass subtracts the maximum; logsumexp stops the gradient through
its shift as JAX does, so the derivative is the softmax.
"""
from __future__ import annotations

__all__ = ["softmax", "log_softmax", "logsumexp", "logmeanexp", "standardize", "one_hot"]

import math
import warnings
from typing import Any, Sequence

from ... import numpy as jnp
from .. import core, dtypes
from ..custom_derivatives import custom_jvp
from ..lax import ad_util
from ..lax import elementwise as lax
from ..lax import structural as lax_st
from ..numpy.reductions import canonical_axis
from .util import check_arraylike, ensure_arraylike, promote_args_inexact

Array = Any
Axis = int | Sequence[int] | None


def logsumexp(a: Array, axis: Axis = None, b: Array | None = None, keepdims: bool = False,
              return_sign: bool = False, where: Array | None = None) -> Array | tuple[Array, Array]:
    """log(sum(b * exp(a))) over `axis`, shifted by the (gradient-stopped) maximum.

    With `b`, terms where b == 0 are dropped; a negative sum gives NaN unless
    `return_sign`, which returns (log|sum|, sign(sum)) instead (as jax.nn.logsumexp)."""
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -math.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    axes = canonical_axis(axis, a.ndim)
    amax = jnp.max(a, axis=axes, keepdims=keepdims, where=where, initial=-math.inf)
    amax = ad_util.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_kept = amax if keepdims else lax_st.expand_dims(amax, axes)
    exp_a = jnp.exp(jnp.subtract(a, amax_kept.astype(a.dtype)))
    if b is not None:
        exp_a = jnp.multiply(exp_a, b)
    sumexp = jnp.sum(exp_a, axis=axes, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    out = lax.add(lax.log(jnp.abs(sumexp)), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None:
        out = jnp.where(sign < 0, jnp.array(math.nan, dtype=out.dtype), out)
    return out


def logmeanexp(x: Array, axis: Axis = None, where: Array | None = None,
               keepdims: bool = False) -> Array:
    """`jax.nn.logmeanexp`: logsumexp(x) - log(count of the reduced elements)."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    x = ensure_arraylike("logmeanexp", x)
    if where is None:
        count = math.prod(x.shape[i] for i in canonical_axis(axis, x.ndim))
        return lse - math.log(count) if count else lse - jnp.log(jnp.zeros((), lse.dtype))
    ones = jnp.broadcast_to(jnp.asarray(where), x.shape).astype(lse.dtype)
    return lse - jnp.log(jnp.sum(ones, axis=axis, keepdims=keepdims))


def log_softmax(x: Array, axis: Axis = -1, where: Array | None = None) -> Array:
    """`jax.nn.log_softmax`: x - logsumexp(x) along `axis` (masked entries give -inf)."""
    x = ensure_arraylike("log_softmax", x)
    x_max = jnp.max(x, axis, where=where, initial=-math.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -math.inf)
    shifted = x_safe - ad_util.stop_gradient(x_max)
    shifted_lse = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_lse
    if where is not None:
        return jnp.where(where, result, -math.inf)
    return result


def _softmax_impl(x: Array, axis: Axis, where: Array | None, initial: Any) -> Array:
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


_softmax = custom_jvp(_softmax_impl, nondiff_argnums=(1,))


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x, where, initial), (x_dot, _, _) = primals, tangents
    y = _softmax(x, axis, where, initial)
    return y, y * (x_dot - jnp.sum(y * x_dot, axis, where=where, keepdims=True))


def softmax(x: Array, axis: Axis = -1, where: Array | None = None, *,
            initial: Any = -math.inf) -> Array:
    """`jax.nn.softmax`: exp(x - max) normalized along `axis`; entries masked out by
    `where` are 0. `initial` is the floor of the maximum (the masked fill value),
    JAX's former public argument, kept as a keyword."""
    check_arraylike("softmax", x)
    if isinstance(axis, list):
        axis = tuple(axis)
    return _softmax(jnp.asarray(x), axis, where, initial)


def standardize(x: Array, axis: Axis = -1, mean: Array | None = None,
                variance: Array | None = None, epsilon: Array = 1e-5,
                where: Array | None = None, *, algorithm: str = "fast") -> Array:
    """`jax.nn.standardize`: (x - mean) / sqrt(variance + epsilon) along `axis`.

    The variance is mean(x²) - mean² clipped at 0 ("fast", JAX's default) or
    mean((x - mean)²) ("stable")."""
    check_arraylike("standardize", x)
    for v in (mean, variance, where):
        if v is not None:
            check_arraylike("standardize", v)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


def one_hot(x: Array, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Array:
    """`jax.nn.one_hot`: x[..., None] == arange(num_classes) along `axis`, as `dtype`
    (default float); indices outside [0, num_classes) give all zeros."""
    num_classes = core.concrete_or_error(
        num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.")
    num_classes = int(num_classes)
    x = jnp.asarray(x)
    if x.dtype.kind not in "iu":
        warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
                      DeprecationWarning, stacklevel=2)
    dtype = dtypes.default_float() if dtype is None else dtype
    out_axis = axis + x.ndim + 1 if axis < 0 else axis
    if not 0 <= out_axis <= x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim + 1}")
    lhs = lax_st.expand_dims(x, (out_axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, tuple(rhs_shape), out_axis)
    return jnp.equal(lhs, rhs).astype(dtype)
