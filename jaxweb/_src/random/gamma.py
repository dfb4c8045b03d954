"""Gamma samples (and log-gamma samples) by Marsaglia and Tsang's rejection method, with
JAX's implicit-reparameterization gradient with respect to the shape `a`.

As in JAX, each element gets its own key (the sampler's key split into a.size keys)
and runs its own rejection loop; here the elements are vmapped, so the loop is one
batched `while_loop` that runs until every element has accepted. For a < 1 the sample
is boosted from Gamma(a + 1) by U^(1/a) (in log space for `loggamma`, where tiny a
would underflow).
"""
from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import jaxweb.numpy as jnp

from .. import core, dtypes
from ..api import vmap
from ..custom_derivatives import custom_jvp
from ..lax import _modules as lax
from . import xla_math
from .floats import _normal_real, _uniform
from .gamma_grad import random_gamma_grad
from .keys import PRNGKeyArray
from .prng import check_prng_key, default_prng_impl, internal_split
from .univariate import _exponential
from .util import jit, canonicalize_shape, check_float_dtype, check_shape, user_dtype

Shape = Sequence[int]
fma = xla_math.fma


def _gamma_one(key: PRNGKeyArray, alpha: Any, log_space: bool) -> Any:
    """One Gamma(alpha) sample (alpha a scalar) from one key."""
    dtype = core.get_aval(alpha).dtype
    zero, one = lax.full((), 0.0, dtype), lax.full((), 1.0, dtype)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, 1.0 / 3.0)
    c = lax.div(lax.full((), 1.0 / 3.0, dtype), lax.sqrt(d))

    def cond_fn(kxvu):
        _, x, v, u = kxvu
        squeeze = lax.ge(u, fma(lax.full((), -0.0331, dtype), lax.mul(x, x), one))
        log_ok = lax.ge(xla_math.log(u), lax.add(lax.mul(x, 0.5),
                                                 lax.mul(d, lax.add(lax.sub(one, v), xla_math.log(v)))))
        return lax.bitwise_and(squeeze, log_ok)

    def body_fn(kxvu):
        def next_kxv(kxv):
            k, sub = internal_split(kxv[0])
            x = _normal_real(sub, (), dtype)
            return k, x, fma(x, c, one)

        k, x_key, u_key = internal_split(kxvu[0], 3)
        _, x, v = lax.while_loop(lambda kxv: lax.le(kxv[2], zero), next_kxv,
                                 (x_key, zero, lax.full((), -1.0, dtype)))
        return k, lax.mul(x, x), lax.mul(lax.mul(v, v), v), _uniform(u_key, 0.0, 1.0, (), dtype)

    key, subkey = internal_split(key)
    # the initial state passes cond_fn, so the body runs at least once
    _, _, v, _ = lax.while_loop(cond_fn, body_fn, (key, zero, one, lax.full((), 2.0, dtype)))
    if log_space:
        log_samples = lax.neg(_exponential(subkey, (), dtype))
        log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_samples, 0.0)), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(xla_math.log(d), xla_math.log(v)), log_boost)
    samples = lax.sub(1.0, _uniform(subkey, 0.0, 1.0, (), dtype))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, v), boost)


def _gamma_impl(key: PRNGKeyArray, a: Any, log_space: bool) -> Any:
    shape = core.get_aval(a).shape
    size = core.get_aval(a).size
    if size == 0:
        return a
    keys = internal_split(key, size)
    samples = vmap(partial(_gamma_one, log_space=log_space))(keys, lax.reshape(a, (size,)))
    return lax.reshape(samples, shape)


@partial(custom_jvp, nondiff_argnums=(2,))
def _random_gamma(key_data: Any, a: Any, log_space: bool) -> Any:
    return _gamma_impl(PRNGKeyArray(default_prng_impl(), key_data), a, log_space)


@_random_gamma.defjvp
def _random_gamma_jvp(log_space: bool, primals: tuple, tangents: tuple) -> tuple:
    key_data, a = primals
    _, a_dot = tangents
    ans = _random_gamma(key_data, a, log_space)
    return ans, a_dot * _gamma_grad(ans, a, log_space)


def _gamma_grad(sample: Any, a: Any, log_space: bool) -> Any:
    """d sample / d a at fixed uniforms (implicit reparameterization, Figurnov et al. 2018)."""
    if log_space:  # d log(s) = ds / s, with s = exp(log s) floored at the smallest normal
        samples = xla_math.exp(sample)
        samples = jnp.where(samples == 0, dtypes.finfo(samples.dtype).tiny, samples)
        return random_gamma_grad(a, samples) / samples
    return random_gamma_grad(a, sample)


@jit(static_argnames=("shape", "dtype", "log_space"))
def _gamma(key: PRNGKeyArray, a: Any, shape: Any, dtype: dtypes.DType, log_space: bool = False) -> Any:
    if shape is None:
        shape = core.get_aval(a).shape
    else:
        check_shape("gamma", shape, core.get_aval(a).shape)
    a = lax.convert_element_type(a, dtype)
    if core.get_aval(a).shape != tuple(shape):
        a = jnp.broadcast_to(a, shape)
    if key._impl is not default_prng_impl():
        raise NotImplementedError(f"gamma is only implemented for the threefry2x32 PRNG, not {key._impl}")
    return _random_gamma(key._base_array, a, log_space)


def gamma(key: Any, a: Any, shape: Shape | None = None, dtype: Any = None, *,
          out_sharding: Any = None) -> Any:
    """Gamma(a, 1) random values; differentiable in `a`."""
    key, _ = check_prng_key("gamma", key)
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype("gamma", dtype)
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype)


def loggamma(key: Any, a: Any, shape: Shape | None = None, dtype: Any = None, *,
             out_sharding: Any = None) -> Any:
    """log of Gamma(a, 1) random values, accurate where a << 1 makes the samples tiny."""
    key, _ = check_prng_key("loggamma", key)
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype("gamma", dtype)
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype, log_space=True)
