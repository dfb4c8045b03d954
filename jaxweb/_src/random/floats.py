"""From bits to floats: uniform, normal, truncated_normal, bernoulli.

`uniform` is the base of almost every sampler, so its bit recipe is JAX's exactly:
the top `nmant` random bits become the mantissa of a float in [1, 2) (8 random bits
widened for dtypes with fewer than 8 mantissa bits, e.g. bfloat16), minus 1, then
one fused multiply-add into [minval, maxval) as XLA computes it, clamped below.
`normal` maps uniforms in (-1, 1) through XLA's erf_inv.
"""
from __future__ import annotations

from typing import Any, Sequence

import jaxweb.numpy as jnp

from .. import core, dtypes
from ..lax import _modules as lax
from . import xla_math
from .keys import PRNGKeyArray
from .prng import check_prng_key, internal_split, random_bits
from .threefry import UINT_DTYPES
from .util import jit, canonicalize_shape, check_float_dtype, check_shape, shape_of, user_dtype

Shape = Sequence[int]


def _one_bits(dtype: dtypes.DType) -> int:
    """The bit pattern of 1.0 in `dtype` (exponent = bias, mantissa 0)."""
    fi = dtypes.finfo(dtype)
    return (fi.maxexp - 1) << fi.nmant


def _to_dtype(x: Any, dtype: dtypes.DType) -> Any:
    return lax.convert_element_type(x, dtype)


def _broadcast(x: Any, shape: tuple[int, ...]) -> Any:
    aval = core.get_aval(x)
    if aval.shape == shape:
        return x
    return jnp.broadcast_to(x, shape)


@jit(static_argnums=(3, 4))
def _uniform(key: PRNGKeyArray, minval: Any, maxval: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    check_shape("uniform", shape)
    minval = lax.broadcast_to_rank(_to_dtype(minval, dtype), len(shape))
    maxval = lax.broadcast_to_rank(_to_dtype(maxval, dtype), len(shape))
    fi = dtypes.finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    bits = random_bits(key, rng_bits, shape)
    uint_dtype = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint_dtype)
    float_bits = lax.bitwise_or(lax.shift_right_logical(bits, rng_bits - nmant), _one_bits(dtype))
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), 1.0)
    span = jnp.subtract(maxval, minval)
    out_shape = jnp.broadcast_shapes(shape, core.get_aval(span).shape)
    scaled = xla_math.fma(_broadcast(floats, out_shape), _broadcast(span, out_shape),
                          _broadcast(minval, out_shape))
    scaled = lax.reshape(scaled, shape)
    return lax.max(_broadcast(minval, shape), scaled)


def uniform(key: Any, shape: Shape = (), dtype: Any = None, minval: Any = 0.0, maxval: Any = 1.0, *,
            out_sharding: Any = None) -> Any:
    """Uniform random values in [minval, maxval) (float32 by default, float64 with x64)."""
    key, _ = check_prng_key("uniform", key)
    dtype = user_dtype(float if dtype is None else dtype)
    shape = canonicalize_shape(shape)
    check_float_dtype("uniform", dtype)
    return _uniform(key, minval, maxval, shape, dtype)


def _normal_unscaled(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    """erf_inv of uniforms in (-1, 1): normal samples before the factor sqrt(2)."""
    check_shape("normal", shape)
    lo = lax.nextafter(lax.full((), -1.0, dtype), lax.full((), 0.0, dtype))
    return xla_math.erf_inv(_uniform(key, lo, 1.0, shape, dtype))


@jit(static_argnums=(1, 2))
def _normal_real(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    return lax.mul(lax.full((), 2.0 ** 0.5, dtype), _normal_unscaled(key, shape, dtype))


def normal(key: Any, shape: Shape = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Standard normal random values (float32 by default, float64 with x64)."""
    key, _ = check_prng_key("normal", key)
    shape = canonicalize_shape(shape)
    dtype = user_dtype(float if dtype is None else dtype)
    if dtype.kind == "c":
        return _normal_complex(key, shape, dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, got {dtype}")
    return _normal_real(key, shape, dtype)


def _normal_complex(key: PRNGKeyArray, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    """Real and imaginary parts from two split keys, each N(0, 1/2) (as JAX)."""
    real = dtypes.float64 if dtype == dtypes.complex128 else dtypes.float32
    k_re, k_im = internal_split(key)
    re, im = (_normal_real(k, shape, real).astype(dtype) for k in (k_re, k_im))
    return (re + 1j * im) / jnp.asarray(2.0 ** 0.5, dtype)


@jit(static_argnums=(3, 4))
def _truncated_normal(key: PRNGKeyArray, lower: Any, upper: Any, shape: Any, dtype: dtypes.DType) -> Any:
    if shape is None:
        shape = jnp.broadcast_shapes(shape_of(lower), shape_of(upper))
    else:
        check_shape("truncated_normal", shape, shape_of(lower), shape_of(upper))
    sqrt2 = lax.full((), 2.0 ** 0.5, dtype)
    lower, upper = _to_dtype(lower, dtype), _to_dtype(upper, dtype)
    a, b = lax.erf(lax.div(lower, sqrt2)), lax.erf(lax.div(upper, sqrt2))
    u = _uniform(key, a, b, tuple(shape), dtype)
    out = lax.mul(sqrt2, xla_math.erf_inv(u))
    inf = lax.full((), float("inf"), dtype)
    lo = xla_math.nextafter_nodiff(lax.stop_gradient(lower), inf)
    hi = xla_math.nextafter_nodiff(lax.stop_gradient(upper), lax.neg(inf))
    return jnp.clip(out, lo, hi)


def truncated_normal(key: Any, lower: Any, upper: Any, shape: Shape | None = None, dtype: Any = None, *,
                     out_sharding: Any = None) -> Any:
    """Standard normal values truncated to the open interval (lower, upper)."""
    if shape is not None:
        shape = canonicalize_shape(shape)
    key, _ = check_prng_key("truncated_normal", key)
    dtype = user_dtype(float if dtype is None else dtype)
    check_float_dtype("truncated_normal", dtype)
    return _truncated_normal(key, lower, upper, shape, dtype)


@jit(static_argnames=("shape", "mode"))
def _bernoulli(key: PRNGKeyArray, p: Any, shape: Any, mode: str) -> Any:
    if shape is None:
        shape = core.get_aval(p).shape
    else:
        check_shape("bernoulli", shape, core.get_aval(p).shape)
    dtype = core.get_aval(p).dtype
    if mode == "high":
        u = _uniform(key, 0.0, 1.0, (2, *shape), dtype)
        u1, u2 = u[0], u[1]
        u2 = lax.mul(u2, 2.0 ** -dtypes.finfo(dtype).nmant)
        return jnp.less(u2, jnp.subtract(p, u1))
    return jnp.less(_uniform(key, 0.0, 1.0, tuple(shape), dtype), p)


def bernoulli(key: Any, p: Any = 0.5, shape: Shape | None = None, mode: str = "low", *,
              out_sharding: Any = None) -> Any:
    """Booleans that are True with probability p (broadcast to `shape`)."""
    if shape is not None:
        shape = canonicalize_shape(shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    key, _ = check_prng_key("bernoulli", key)
    dtype = core.get_aval(p).dtype if not isinstance(p, (list, tuple)) else jnp.asarray(p).dtype
    if dtype.kind != "f":
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(key, p, shape, mode)
