"""`jax.scipy.ndimage.map_coordinates`: values of an N-d array at fractional coordinates by
nearest (order 0) or linear (order 1) interpolation, with scipy's boundary modes."""
from __future__ import annotations

__all__ = ["map_coordinates"]

from typing import Any, Callable, Sequence

from ... import numpy as jnp

Array = Any


def _mirror(i: Array, n: int) -> Array:
    """Reflection without repeating the edge: ... 2 1 | 0 1 2 ... n-1 | n-2 ..."""
    if n == 1:
        return jnp.zeros_like(i)
    p = 2 * (n - 1)
    i = jnp.abs(i) % p
    return jnp.where(i >= n, p - i, i)


def _reflect(i: Array, n: int) -> Array:
    """Reflection repeating the edge: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ..."""
    p = 2 * n
    i = i % p
    return jnp.where(i >= n, p - 1 - i, i)


_INDEX: dict[str, Callable[[Array, int], Array]] = {
    "constant": lambda i, n: i,
    "nearest": lambda i, n: jnp.clip(i, 0, n - 1),
    "wrap": lambda i, n: i % n,
    "mirror": _mirror,
    "reflect": _reflect,
}


def map_coordinates(input: Any, coordinates: Sequence[Any], order: int, mode: str = "constant",
                    cval: Any = 0.0) -> Array:
    """input sampled at `coordinates` (one array per axis, all of one shape)."""
    x = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    if len(coords) != x.ndim:
        raise ValueError(f"coordinates must be a sequence of length input.ndim, but {len(coords)} != {x.ndim}")
    if mode not in _INDEX:
        raise NotImplementedError(f"jax.scipy.ndimage.map_coordinates does not support mode {mode!r}. "
                                  f"Currently supported modes are {set(_INDEX)}.")
    if order not in (0, 1):
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")
    cval = jnp.asarray(cval, x.dtype)
    fix = _INDEX[mode]
    corners = []  # per axis: [(index, weight, in bounds)]
    for c, n in zip(coords, x.shape):
        c = c.astype(jnp.result_type(c, jnp.float32)) if not jnp.issubdtype(c.dtype, jnp.floating) else c
        if order == 0:
            i = (jnp.sign(c) * jnp.floor(jnp.abs(c) + 0.5)).astype(jnp.int32)  # half away from 0, as JAX
            corners.append([(i, None)])
        else:
            lo = jnp.floor(c)
            w = c - lo
            lo = lo.astype(jnp.int32)
            corners.append([(lo, 1 - w), (lo + 1, w)])
    out = None
    for combo in _product(corners):
        valid, index, weight = True, [], None
        for (i, w), n in zip(combo, x.shape):
            if mode == "constant":
                valid = valid & (i >= 0) & (i < n)
            index.append(jnp.clip(fix(i, n), 0, n - 1))
            if w is not None:
                weight = w if weight is None else weight * w
        v = x[tuple(index)]
        if mode == "constant":
            v = jnp.where(valid, v, cval)
        term = v if weight is None else v * weight.astype(v.dtype) if jnp.issubdtype(v.dtype, jnp.inexact) \
            else v * weight
        out = term if out is None else out + term
    if jnp.issubdtype(x.dtype, jnp.integer):
        out = jnp.round(out).astype(x.dtype)
    return out.astype(x.dtype)


def _product(lists: list) -> list:
    out = [[]]
    for options in lists:
        out = [prev + [o] for prev in out for o in options]
    return out
