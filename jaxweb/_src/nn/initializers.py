"""`jax.nn.initializers`: functions `init(key, shape, dtype)` that make parameters.

Each initializer draws from jaxweb.random (bit-identical to JAX for the same key)
and scales the draw exactly as JAX does, so the same key gives the same weights.
The variance-scaling family computes fan-in/fan-out from `in_axis`, `out_axis`
and `batch_axis` (the rest of the shape is the receptive field); glorot/xavier,
lecun and he/kaiming are its named instances. Complex dtypes work where the draw
itself is defined for them (zeros, ones, constant, normal); the variance-scaling and
orthogonal families are real only here (JAX's complex versions need a complex QR and
its polar-coordinate samplers).
"""
from __future__ import annotations

__all__ = ["Initializer", "zeros", "ones", "constant", "uniform", "normal", "truncated_normal",
           "variance_scaling", "glorot_uniform", "glorot_normal", "xavier_uniform",
           "xavier_normal", "lecun_uniform", "lecun_normal", "he_uniform", "he_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "delta_orthogonal"]

import math
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from ... import numpy as jnp
from ... import random
from .. import dtypes

Array = Any
Shape = Sequence[int]
Axes = int | Sequence[int]

#: stddev of the standard normal truncated to (-2, 2): dividing by it restores unit variance
_TRUNCATED_STD = 0.87962566103423978


@runtime_checkable
class Initializer(Protocol):
    """The protocol: `init(key, shape, dtype=None, out_sharding=None) -> Array`."""

    def __call__(self, key: Array, shape: Shape, dtype: Any = None, out_sharding: Any = None) -> Array:
        raise NotImplementedError


def _dtype(dtype: Any, real_only: str | None = None) -> Any:
    dt = dtypes.default_float() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if dt.kind == "c" and real_only:
        raise NotImplementedError(f"jaxweb's {real_only} initializers are real only (got {dt.name})")
    return dt


def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)


def zeros(key: Array, shape: Shape, dtype: Any = None, out_sharding: Any = None) -> Array:
    """All zeros (the key is unused)."""
    return jnp.zeros(shape, _dtype(dtype))


def ones(key: Array, shape: Shape, dtype: Any = None, out_sharding: Any = None) -> Array:
    """All ones (the key is unused)."""
    return jnp.ones(shape, _dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Callable:
    """An initializer filling the shape with `value`."""
    def init(key: Array, shape: Shape, dtype: Any = dtype, out_sharding: Any = None) -> Array:
        return jnp.full(shape, value, dtype=_dtype(dtype))
    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Callable:
    """Uniform on [0, scale)."""
    def init(key: Array, shape: Shape, dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dt = _dtype(dtype)
        return random.uniform(key, shape, dt) * jnp.array(scale, dt)
    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Callable:
    """Normal with mean 0 and standard deviation `stddev`."""
    def init(key: Array, shape: Shape, dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dt = _dtype(dtype)
        return random.normal(key, shape, dt) * jnp.array(stddev, dt)
    return init


def truncated_normal(stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0) -> Callable:
    """stddev * a standard normal truncated to (lower, upper) (not rescaled to unit variance)."""
    def init(key: Array, shape: Shape, dtype: Any = dtype, out_sharding: Any = None) -> Array:
        dt = _dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dt) * jnp.array(stddev, dt)
    return init


def _size(shape: tuple[int, ...], axes: Axes) -> int:
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(shape: tuple[int, ...], in_axis: Axes = -2, out_axis: Axes = -1,
                  batch_axis: Axes = ()) -> tuple[float, float]:
    """(fan_in, fan_out): the in/out sizes times the receptive field (what is left of
    the shape after the in, out and batch axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
                         "tensor with default in_axis. Must be at least 2D or specify in_axis explicitly.")
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive, out_size * receptive


#: mode -> the variance's denominator from (fan_in, fan_out)
_DENOMINATORS = {
    "fan_in": lambda fi, fo: fi,
    "fan_out": lambda fi, fo: fo,
    "fan_avg": lambda fi, fo: (fi + fo) / 2,
    "fan_geo_avg": lambda fi, fo: (fi * fo) ** 0.5,
}

#: distribution -> draw(key, shape, dtype, variance)
_DRAWS = {
    "truncated_normal": lambda key, shape, dt, var: (
        random.truncated_normal(key, -2, 2, shape, dt) * (jnp.sqrt(var) / jnp.array(_TRUNCATED_STD, dt))),
    "normal": lambda key, shape, dt, var: random.normal(key, shape, dt) * jnp.sqrt(var),
    "uniform": lambda key, shape, dt, var: random.uniform(key, shape, dt, -1) * jnp.sqrt(3 * var),
}


def variance_scaling(scale: Any, mode: str, distribution: str, in_axis: Axes = -2, out_axis: Axes = -1,
                     batch_axis: Axes = (), dtype: Any = None) -> Callable:
    """Samples with variance scale / n, n from `mode` ("fan_in", "fan_out", "fan_avg",
    "fan_geo_avg"), from `distribution` ("truncated_normal" rescaled to that variance,
    "normal", or "uniform" on ±sqrt(3 variance))."""
    def init(key: Array, shape: Shape, dtype: Any = dtype, out_sharding: Any = None) -> Array:
        shape = _shape(shape)
        dt = _dtype(dtype, "variance-scaling")
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode not in _DENOMINATORS:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / _DENOMINATORS[mode](fan_in, fan_out), dtype=dt)
        if distribution not in _DRAWS:
            raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
        return _DRAWS[distribution](key, shape, dt, variance)
    return init


def _named(scale: float, mode: str, distribution: str, name: str, doc: str) -> Callable:
    def make(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Callable:
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)
    make.__name__ = make.__qualname__ = name
    make.__doc__ = doc
    return make


glorot_uniform = _named(1.0, "fan_avg", "uniform", "glorot_uniform", "Glorot/Xavier uniform: variance 2 / (fan_in + fan_out).")
glorot_normal = _named(1.0, "fan_avg", "truncated_normal", "glorot_normal", "Glorot/Xavier truncated normal.")
lecun_uniform = _named(1.0, "fan_in", "uniform", "lecun_uniform", "LeCun uniform: variance 1 / fan_in.")
lecun_normal = _named(1.0, "fan_in", "truncated_normal", "lecun_normal", "LeCun truncated normal.")
he_uniform = _named(2.0, "fan_in", "uniform", "he_uniform", "He/Kaiming uniform: variance 2 / fan_in.")
he_normal = _named(2.0, "fan_in", "truncated_normal", "he_normal", "He/Kaiming truncated normal.")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Callable:
    """A (semi-)orthogonal matrix: the shape flattened to (rows, shape[column_axis])
    with orthonormal columns or rows, times `scale`."""
    def init(key: Array, shape: Shape, dtype: Any = dtype, out_sharding: Any = None) -> Array:
        if out_sharding is not None:
            raise NotImplementedError
        shape = _shape(shape)
        dt = _dtype(dtype, "orthogonal")
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return jnp.zeros(shape, dtype=dt)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dt, n_cols)
        axis = column_axis % len(shape)
        rest = tuple(d for i, d in enumerate(shape) if i != axis)
        q = jnp.moveaxis(jnp.reshape(q, rest + (n_cols,)), -1, column_axis)
        return jnp.array(scale, dt) * q
    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Callable:
    """For 3-5D convolution kernels: zeros except an orthogonal (in, out) matrix at
    the spatial centre (Xiao et al. 2018, "Dynamical Isometry ...")."""
    def init(key: Array, shape: Shape, dtype: Any = dtype, out_sharding: Any = None) -> Array:
        if out_sharding is not None:
            raise NotImplementedError
        shape = _shape(shape)
        dt = _dtype(dtype, "delta-orthogonal")
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dt)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dt).at[centre].set(ortho)
    return init
