"""Samplers built on gamma samples: beta, dirichlet, t, chisquare, f,
generalized_normal and ball, each composing gamma/loggamma as JAX does (log space
where small shape parameters would underflow)."""
from __future__ import annotations

from operator import index
from typing import Any, Sequence

import jaxweb.numpy as jnp

from .. import core, dtypes
from ..lax import _modules as lax
from . import xla_math
from .floats import _normal_real
from .gamma import _gamma
from .prng import check_prng_key, internal_split
from .univariate import _exponential, _rademacher
from .util import (jit, canonicalize_shape, check_all_safe_to_cast, check_broadcast_shapes,
                   check_float_dtype, check_shape, user_dtype)

Shape = Sequence[int]


def _float_dtype_arg(name: str, dtype: Any) -> dtypes.DType:
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype(name, dtype)
    return dtype


# ---------------------------------------------------------------- beta, dirichlet
@jit(static_argnums=(3, 4))
def _beta(key: Any, a: Any, b: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    a, b = lax.convert_element_type(a, dtype), lax.convert_element_type(b, dtype)
    key_a, key_b = internal_split(key)
    a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
    log_gamma_a = _gamma(key_a, a, shape=shape, dtype=dtype, log_space=True)
    log_gamma_b = _gamma(key_b, b, shape=shape, dtype=dtype, log_space=True)
    # gamma_a / (gamma_a + gamma_b), scaled by the larger one so neither underflows
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = xla_math.exp(lax.sub(log_gamma_a, log_max))
    gamma_b_scaled = xla_math.exp(lax.sub(log_gamma_b, log_max))
    return lax.div(gamma_a_scaled, lax.add(gamma_a_scaled, gamma_b_scaled))


def beta(key: Any, a: Any, b: Any, shape: Shape | None = None, dtype: Any = None, *,
         out_sharding: Any = None) -> Any:
    """Beta(a, b) random values on [0, 1]."""
    key, _ = check_prng_key("beta", key)
    dtype = _float_dtype_arg("beta", dtype)
    check_all_safe_to_cast("beta", dtype, a, b)
    shape = check_broadcast_shapes("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


def _softmax_last(x: Any) -> Any:
    """jax.nn.softmax over the last axis: exp(x - max) / sum."""
    unnormalized = xla_math.exp(x - lax.stop_gradient(jnp.max(x, axis=-1, keepdims=True)))
    return unnormalized / jnp.sum(unnormalized, axis=-1, keepdims=True)


@jit(static_argnums=(2, 3))
def _dirichlet(key: Any, alpha: Any, shape: Any, dtype: dtypes.DType) -> Any:
    if not alpha.ndim >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {alpha.ndim}")
    if shape is None:
        shape = alpha.shape[:-1]
    else:
        check_shape("dirichlet", shape, alpha.shape[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    # gamma in log space: small alpha would give samples that underflow to 0
    log_gamma = _gamma(key, alpha, shape=tuple(shape) + alpha.shape[-1:], dtype=dtype, log_space=True)
    return _softmax_last(log_gamma)


def dirichlet(key: Any, alpha: Any, shape: Shape | None = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:
    """Dirichlet(alpha) random vectors (alpha of shape (..., n)), on the simplex."""
    key, _ = check_prng_key("dirichlet", key)
    dtype = _float_dtype_arg("dirichlet", dtype)
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _dirichlet(key, alpha, shape, dtype)


# ---------------------------------------------------------------- t, chisquare, f
@jit(static_argnums=(2, 3))
def _t(key: Any, df: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = internal_split(key)
    n = _normal_real(key_n, shape, dtype)
    half_df = lax.div(df, 2.0)
    g = _gamma(key_g, half_df, shape=shape, dtype=dtype)
    return n * jnp.sqrt(half_df / g)


@jit(static_argnums=(2, 3))
def _chisquare(key: Any, df: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    df = lax.convert_element_type(df, dtype)
    log_g = _gamma(key, lax.div(df, 2.0), shape=shape, dtype=dtype, log_space=True)
    return lax.mul(xla_math.exp(log_g), 2.0)


@jit(static_argnums=(3, 4))
def _f(key: Any, dfnum: Any, dfden: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    dfden, dfnum = lax.convert_element_type(dfden, dtype), lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = internal_split(key)
    chi2_dfn = _chisquare(key_dfn, dfnum, shape, dtype)
    chi2_dfd = _chisquare(key_dfd, dfden, shape, dtype)
    return lax.div(xla_math.div(chi2_dfn, dfnum), xla_math.div(chi2_dfd, dfden))


def _one_param(name: str, body: Any, doc: str) -> Any:
    def sampler(key: Any, df: Any, shape: Shape | None = None, dtype: Any = None, *,
                out_sharding: Any = None) -> Any:
        key, _ = check_prng_key(name, key)
        dtype = _float_dtype_arg(name, dtype)
        shape = check_broadcast_shapes(name, shape, df)
        check_all_safe_to_cast(name, dtype, df)
        return body(key, df, shape, dtype)
    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = doc
    return sampler


t = _one_param("t", _t, "Student's t random values with `df` degrees of freedom.")
chisquare = _one_param("chisquare", _chisquare, "Chi-square random values with `df` degrees of freedom.")


def f(key: Any, dfnum: Any, dfden: Any, shape: Shape | None = None, dtype: Any = None, *,
      out_sharding: Any = None) -> Any:
    """F-distribution random values with (dfnum, dfden) degrees of freedom."""
    key, _ = check_prng_key("f", key)
    dtype = _float_dtype_arg("f", dtype)
    shape = check_broadcast_shapes("f", shape, dfnum, dfden)
    check_all_safe_to_cast("f", dtype, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype)


# ---------------------------------------------------------------- generalized normal, ball
@jit(static_argnums=(2, 3))
def _generalized_normal(key: Any, p: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    k_gamma, k_sign = internal_split(key)
    g = _gamma(k_gamma, 1 / p, shape=shape, dtype=dtype)
    r = _rademacher(k_sign, shape, dtype)
    return r * g ** (1 / p)


def generalized_normal(key: Any, p: float, shape: Shape = (), dtype: Any = None, *,
                       out_sharding: Any = None) -> Any:
    """Random values with density proportional to exp(-|x|^p)."""
    shape = canonicalize_shape(shape)
    key, _ = check_prng_key("generalized_normal", key)
    dtype = user_dtype(float if dtype is None else dtype)
    return _generalized_normal(key, p, shape, dtype)


@jit(static_argnums=(2, 3, 4))
def _ball(key: Any, p: Any, d: int, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    k1, k2 = internal_split(key)
    g = _generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


def ball(key: Any, d: int, p: float = 2, shape: Shape = (), dtype: Any = None, *,
         out_sharding: Any = None) -> Any:
    """Uniform random points in the unit Lp ball in d dimensions (shape (*shape, d))."""
    shape = canonicalize_shape(shape)
    key, _ = check_prng_key("ball", key)
    dtype = user_dtype(float if dtype is None else dtype)
    d = index(core.concrete_or_error(d, "The error occurred in jax.random.ball()"))
    return _ball(key, p, d, shape, dtype)

