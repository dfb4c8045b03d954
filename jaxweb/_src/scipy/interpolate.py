"""`jax.scipy.interpolate.RegularGridInterpolator`: linear or nearest interpolation on a
rectilinear grid (points strictly increasing per axis), values outside the grid set to
`fill_value` (None: extrapolated). A pytree, as JAX's."""
from __future__ import annotations

__all__ = ["RegularGridInterpolator"]

import itertools
from typing import Any

from ... import numpy as jnp
from ..tree_util import register_pytree_node_class

Array = Any


@register_pytree_node_class
class RegularGridInterpolator:
    """scipy.interpolate.RegularGridInterpolator's interface; bounds_error must be False."""

    def __init__(self, points: Any, values: Any, method: str = "linear", bounds_error: bool = False,
                 fill_value: Any = jnp.nan):
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        self.method, self.bounds_error = method, bounds_error
        self.grid = tuple(jnp.asarray(p) for p in points)
        v = jnp.asarray(values)
        if len(self.grid) > v.ndim:
            raise ValueError(f"there are {len(self.grid)} point arrays, but values has {v.ndim} dimensions")
        if not jnp.issubdtype(v.dtype, jnp.inexact):
            v = v.astype(jnp.float32)
        self.values = v
        self.fill_value = None if fill_value is None else jnp.asarray(fill_value, v.dtype)

    def tree_flatten(self):
        return (self.grid, self.values, self.fill_value), (self.method, self.bounds_error)

    @classmethod
    def tree_unflatten(cls, aux: Any, children: Any) -> "RegularGridInterpolator":
        obj = object.__new__(cls)
        obj.method, obj.bounds_error = aux
        obj.grid, obj.values, obj.fill_value = children
        return obj

    def __call__(self, xi: Any, method: str | None = None) -> Array:
        method = self.method if method is None else method
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        nd = len(self.grid)
        x = jnp.asarray(xi)
        if isinstance(xi, (tuple, list)) and len(xi) == nd:
            x = jnp.stack(jnp.broadcast_arrays(*[jnp.asarray(c) for c in xi]), -1)
        if x.shape[-1] != nd:
            raise ValueError(f"the requested sample points xi have dimension {x.shape[-1]}, "
                             f"but this RegularGridInterpolator has dimension {nd}")
        lead = x.shape[:-1]
        x = x.reshape(-1, nd)
        idx, dist, outside = [], [], jnp.zeros(x.shape[0], bool)
        for d, g in enumerate(self.grid):
            c = x[:, d]
            i = jnp.clip(jnp.searchsorted(g, c) - 1, 0, g.shape[0] - 2)
            idx.append(i)
            dist.append((c - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (c < g[0]) | (c > g[-1])
        if method == "linear":
            out = 0
            for corner in itertools.product((0, 1), repeat=nd):
                w = 1
                for d, bit in enumerate(corner):
                    w = w * (dist[d] if bit else 1 - dist[d])
                vals = self.values[tuple(i + bit for i, bit in zip(idx, corner))]
                out = out + vals * jnp.reshape(w, w.shape + (1,) * (vals.ndim - 1))
        else:
            near = tuple(jnp.where(t <= 0.5, i, i + 1) for i, t in zip(idx, dist))
            out = self.values[near]
        if self.fill_value is not None:
            mask = jnp.reshape(outside, outside.shape + (1,) * (out.ndim - 1))
            out = jnp.where(mask, self.fill_value, out)
        return out.reshape(lead + self.values.shape[nd:])
