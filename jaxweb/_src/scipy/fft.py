"""`jax.scipy.fft`: the type-II discrete cosine transform and its inverse (the only type
JAX has), along one axis or several, with norm None or 'ortho' (as JAX).

Each transform is a product with the N x N cosine matrix C[k, n] = cos(π k (2n + 1) / 2N),
scaled: exact for every length and differentiable, at O(N²) per axis."""
from __future__ import annotations

__all__ = ["dct", "dctn", "idct", "idctn"]

import math
from typing import Any, Sequence

from ... import numpy as jnp

Array = Any


def _check(name: str, type: int, norm: str | None) -> None:
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm not in (None, "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")


def _resize(x: Array, n: int | None, axis: int) -> Array:
    """x cut or zero-padded to n along axis."""
    if n is None or n == x.shape[axis]:
        return x
    if n < 1:
        raise ValueError(f"invalid number of data points ({n}) specified")
    if n < x.shape[axis]:
        return jnp.take(x, jnp.arange(n), axis=axis)
    pads = [(0, 0)] * x.ndim
    pads[axis] = (0, n - x.shape[axis])
    return jnp.pad(x, pads)


def _matrix(n: int, dtype: Any, norm: str | None, inverse: bool) -> Array:
    """The (forward or inverse) DCT-II matrix for length n under `norm`."""
    # the angle's multiple of π/2n reduced mod 4n in integers: cos sees small exact arguments
    m = (jnp.arange(n)[:, None] * (2 * jnp.arange(n)[None, :] + 1)) % (4 * n)
    c = jnp.cos(m.astype(dtype) * (math.pi / (2 * n)))
    first = jnp.arange(n) == 0
    if norm == "ortho":
        m = 2 * c * jnp.where(first, math.sqrt(1 / (4 * n)), math.sqrt(1 / (2 * n)))[:, None]
        return m.T if inverse else m
    if not inverse:
        return 2 * c
    w = jnp.where(first, 1.0 / n, 2.0 / n).astype(dtype)  # Cᵀ diag(w) C = I
    return 0.5 * c.T * w[None, :]


def _apply(x: Any, n: int | None, axis: int, norm: str | None, inverse: bool) -> Array:
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.float32)
    axis = axis % x.ndim
    x = _resize(x, n, axis)
    m = _matrix(x.shape[axis], jnp.finfo(x.dtype).dtype, norm, inverse)
    return jnp.moveaxis(jnp.tensordot(x, m, axes=([axis], [1])), -1, axis).astype(x.dtype)


def dct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The type-II DCT along `axis` (scipy.fft.dct)."""
    _check("dct", type, norm)
    return _apply(x, n, axis, norm, False)


def idct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of the type-II DCT along `axis` (scipy.fft.idct): idct(dct(x)) == x."""
    _check("idct", type, norm)
    return _apply(x, n, axis, norm, True)


def _axes(x: Array, s: Sequence[int] | None, axes: Sequence[int] | None) -> tuple[list, list]:
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    axes = [a % x.ndim for a in ((axes,) if isinstance(axes, int) else axes)]
    s = [None] * len(axes) if s is None else list(s)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    return s, axes


def dctn(x: Any, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:
    """The type-II DCT over several axes."""
    _check("dctn", type, norm)
    x = jnp.asarray(x)
    for n, ax in zip(*_axes(x, s, axes)):
        x = _apply(x, n, ax, norm, False)
    return x


def idctn(x: Any, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:
    """The inverse type-II DCT over several axes."""
    _check("idctn", type, norm)
    x = jnp.asarray(x)
    for n, ax in zip(*_axes(x, s, axes)):
        x = _apply(x, n, ax, norm, True)
    return x
