"""`jax.image`: resize and scale_and_translate, with JAX's kernels and conventions.

Each resampled axis is one dense (input size x output size) weight matrix built from
the kernel (triangle, Keys cubic, OpenCV's a=-0.75 cubic, Lanczos, or area overlap),
normalized per output pixel and zeroed where the sample point falls outside the image;
the image is contracted with every matrix in one einsum. Half-centred pixels: output
pixel j samples the input at (j + 0.5) / scale - translation / scale - 0.5. Antialiasing
widens the kernel by 1/scale when downsampling. 'nearest' gathers instead (integer
images keep their dtype); every other method computes in the image's inexact dtype.
The construction is jnp code, so it differentiates and batches as JAX's does.
"""
from __future__ import annotations

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]

import enum
import math
from typing import Any, Callable, Sequence

import numpy as np

from .. import numpy as jnp

Array = Any
_F32_EPS = float(np.finfo(np.float32).eps)


class ResizeMethod(enum.Enum):
    """Image resize method (JAX's enum; `ResizeMethod.from_string('bilinear')` etc.)."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> "ResizeMethod":
        for method, names in _NAMES.items():
            if s in names:
                return method
        raise ValueError(f'Unknown resize method "{s}"')


_NAMES = {ResizeMethod.NEAREST: ("nearest",),
          ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
          ResizeMethod.LANCZOS3: ("lanczos3",), ResizeMethod.LANCZOS5: ("lanczos5",),
          ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
          ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"), ResizeMethod.AREA: ("area",)}


def _lanczos(radius: float) -> Callable[[Array], Array]:
    def kernel(x: Array) -> Array:
        y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
        out = jnp.where(x > 1e-3, jnp.divide(y, jnp.where(x != 0, np.pi ** 2 * x ** 2, 1)), 1)
        return jnp.where(x > radius, 0.0, out)
    return kernel


def _cubic(a: float) -> Callable[[Array], Array]:
    """The cubic convolution kernel with parameter a (Keys: -0.5, OpenCV/PyTorch: -0.75)."""
    def kernel(x: Array) -> Array:
        out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        out = jnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
        return jnp.where(x >= 2.0, 0.0, out)
    return kernel


def _triangle(x: Array) -> Array:
    return jnp.maximum(0, 1 - jnp.abs(x))


_AREA = object()  # weights are interval overlaps, not a kernel of the distance
#: method -> (kernel radius, kernel)
_KERNELS = {ResizeMethod.LINEAR: (1, _triangle), ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
            ResizeMethod.LANCZOS5: (5, _lanczos(5.0)), ResizeMethod.CUBIC: (2, _cubic(-0.5)),
            ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)), ResizeMethod.AREA: (1, _AREA)}


def _normalize(weights: Array) -> Array:
    total = jnp.sum(weights, axis=0, keepdims=True)
    return jnp.where(jnp.abs(total) > 1000.0 * _F32_EPS,
                     jnp.divide(weights, jnp.where(total != 0, total, 1)), 0)


def _weight_matrix(in_size: int, out_size: int, scale: Any, translation: Any, kernel: Any,
                   antialias: bool, edge_padding: bool, radius: int) -> Array:
    """The (in_size, out_size) matrix mapping one axis of the input to the output."""
    dtype = jnp.result_type(scale, translation)
    inv_scale = 1.0 / scale
    kernel_scale = jnp.maximum(inv_scale, 1.0) if antialias else 1.0
    sample = (jnp.arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    k = 0
    if edge_padding:  # the input's edge pixels repeat k places beyond each side
        k = radius
        if antialias:
            k = math.ceil(radius * max(1.0 / float(scale), 1.0))
    idx = jnp.arange(-k, in_size + k, dtype=dtype)
    if kernel is _AREA:
        left = jnp.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
        right = left + inv_scale
        weights = jnp.maximum(0.0, jnp.minimum(right[None, :], idx[:, None] + 1.0)
                              - jnp.maximum(left[None, :], idx[:, None]))
    else:
        weights = kernel(jnp.abs(sample[None, :] - idx[:, None]) / kernel_scale)
    if edge_padding:
        rows = jnp.clip(idx.astype(jnp.int32), 0, in_size - 1)
        cols = jnp.broadcast_to(jnp.arange(out_size)[None, :], (idx.shape[0], out_size))
        folded = jnp.zeros((in_size, out_size), dtype).at[rows[:, None], cols].add(weights)
        return _normalize(folded)
    inside = jnp.logical_and(sample >= -0.5, sample <= in_size - 0.5)
    return jnp.where(inside[None, :], _normalize(weights), 0)


def _resample(x: Array, shape: tuple, dims: Sequence[int], scale: Sequence, translation: Sequence,
              method: ResizeMethod, antialias: bool, precision: Any) -> Array:
    if not dims:
        return x
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge_padding = method is ResizeMethod.CUBIC_PYTORCH
    operands: list = []
    out_idx = list(range(x.ndim))
    for i, d in enumerate(dims):
        d = d % x.ndim
        w = _weight_matrix(x.shape[d], shape[d], scale[i], translation[i], kernel, antialias,
                           edge_padding, radius).astype(x.dtype)
        operands += [w, [d, x.ndim + i]]
        out_idx[d] = x.ndim + i
    return jnp.einsum(x, list(range(x.ndim)), *operands, out_idx, precision=precision)


def _method(method: Any) -> ResizeMethod:
    return ResizeMethod.from_string(method) if isinstance(method, str) else ResizeMethod(method)


def _check_shape(shape: Sequence[int], image: Array) -> tuple:
    shape = tuple(int(s) for s in shape)
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {tuple(image.shape)}")
    return shape


def _inexact(x: Any) -> Array:
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.result_type(x, jnp.float32))


def scale_and_translate(image: Any, shape: Sequence[int], spatial_dims: Sequence[int], scale: Any,
                        translation: Any, method: Any, antialias: bool = True, precision: Any = None) -> Array:
    """`jax.image.scale_and_translate`: output location y samples the input at
    (y - translation) / scale per spatial dim (half-centred pixels); samples outside the
    input give 0. 'nearest' is not supported here, as in JAX."""
    image = jnp.asarray(image)
    shape = _check_shape(shape, image)
    method = _method(method)
    if method is ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for scale_and_translate.")
    image = _inexact(image)
    scale, translation = jnp.asarray(scale), jnp.asarray(translation)
    dt = jnp.result_type(scale, translation)
    if not jnp.issubdtype(dt, jnp.inexact):
        dt = jnp.result_type(dt, jnp.float32)
    scale, translation = scale.astype(dt), translation.astype(dt)
    n = len(spatial_dims)
    return _resample(image, shape, tuple(spatial_dims), [scale[i] for i in range(n)],
                     [translation[i] for i in range(n)], method, antialias, precision)


def _resize_nearest(x: Array, shape: tuple) -> Array:
    for d, (m, n) in enumerate(zip(x.shape, shape)):
        if m == n:
            continue
        offsets = np.floor(((np.arange(n, dtype=np.float32) + 0.5) * np.float32(m) / np.float32(n))
                           .astype(np.float32)).astype(np.int32)
        x = jnp.take(x, jnp.asarray(offsets), axis=d)
    return x


def resize(image: Any, shape: Sequence[int], method: Any, antialias: bool = True, precision: Any = None) -> Array:
    """`jax.image.resize`: every axis whose size changes is resampled (batch and channel
    axes keep their size). 'nearest' keeps the dtype; other methods return the image's
    inexact dtype (integers become float32)."""
    image = jnp.asarray(image)
    shape = _check_shape(shape, image)
    method = _method(method)
    if method is ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image = _inexact(image)
    dims = tuple(i for i in range(image.ndim) if image.shape[i] != shape[i])
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    return _resample(image, shape, dims, scale, [0.0] * len(dims), method, antialias, precision)
