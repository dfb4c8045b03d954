"""`jnp.linalg` norms: vector_norm, matrix_norm and numpy's `norm` dispatching to them.

Orders as numpy: vectors take inf, -inf, 0 (count of nonzeros), 1, 2 and any p;
matrices 'fro', 'nuc', 1, -1, 2, -2 (singular values), inf, -inf.
"""
from __future__ import annotations

__all__ = ["norm", "vector_norm", "matrix_norm"]

import math
from typing import Any, Sequence

from .. import core
from ..lax.base import canonical_axes
from .linalg_factor import inexact
from . import reductions as _reductions
from . import shape as _shape
from . import ufuncs as _ufuncs


def vector_norm(x: Any, /, *, axis: int | Sequence[int] | None = None, keepdims: bool = False,
                ord: Any = 2) -> Any:
    """`jnp.linalg.vector_norm` over `axis` (all axes by default)."""
    (x,) = inexact("vector_norm", x)
    x = _ufuncs.abs(x) if core.get_aval(x).dtype.kind == "c" else x
    if axis is None:
        out = vector_norm(_shape.ravel(x), axis=0, ord=ord)
        return _shape.reshape(out, (1,) * core.get_aval(x).ndim) if keepdims else out
    a = _ufuncs.abs(x)
    kw = dict(axis=axis, keepdims=keepdims)
    if ord == math.inf:
        return _reductions.max(a, **kw)
    if ord == -math.inf:
        return _reductions.min(a, **kw)
    if ord == 0:
        return _reductions.sum(a != 0, dtype=core.get_aval(x).dtype, **kw)
    if ord == 1:
        return _reductions.sum(a, **kw)
    if ord == 2:
        return _ufuncs.sqrt(_reductions.sum(x * x, **kw))
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    return _ufuncs.power(_reductions.sum(_ufuncs.power(a, ord), **kw), 1.0 / ord)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """`jnp.linalg.matrix_norm` of the last two axes."""
    (x,) = inexact("matrix_norm", x)
    if core.get_aval(x).dtype.kind == "c" and ord not in (2, -2, "nuc"):
        x = _ufuncs.abs(x)
    return _matrix(x, (-2, -1), keepdims, ord)


def _matrix(x: Any, axis: tuple[int, int], keepdims: bool, ord: Any) -> Any:
    nd = core.get_aval(x).ndim
    r, c = canonical_axes(axis, nd)
    if r == c:
        raise ValueError("Duplicate axes given.")
    if ord in ("fro", "f", None):
        out = _ufuncs.sqrt(_reductions.sum(x * x, axis=(r, c)))
    elif ord in (1, -1):
        col = _reductions.sum(_ufuncs.abs(x), axis=r)
        out = (_reductions.max if ord == 1 else _reductions.min)(col, axis=c - (1 if c > r else 0))
    elif ord in (math.inf, -math.inf):
        row = _reductions.sum(_ufuncs.abs(x), axis=c)
        out = (_reductions.max if ord == math.inf else _reductions.min)(row, axis=r - (1 if r > c else 0))
    elif ord in ("nuc", 2, -2):
        from .linalg_spectral import svd
        s = svd(_shape.moveaxis(x, (r, c), (-2, -1)), compute_uv=False)
        out = _reductions.sum(s, axis=-1) if ord == "nuc" else (s[..., 0] if ord == 2 else s[..., -1])
    else:
        raise ValueError(f"Invalid order '{ord}' for matrix norm.")
    if keepdims:
        out = _shape.expand_dims(out, (r, c))
    return out


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """`jnp.linalg.norm`: a vector norm over one axis (or of the flattened array when
    neither ord nor axis is given), a matrix norm over two."""
    (x,) = inexact("norm", x)
    nd = core.get_aval(x).ndim
    if axis is None and ord is None:
        x = _ufuncs.abs(x) if core.get_aval(x).dtype.kind == "c" else x
        out = _ufuncs.sqrt(_reductions.sum(x * x))
        return _shape.reshape(out, (1,) * nd) if keepdims else out
    axes = tuple(range(nd)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    spectral = len(axes) == 2 and ord in (2, -2, "nuc")
    if core.get_aval(x).dtype.kind == "c" and not spectral:  # these are norms of |x|
        x = _ufuncs.abs(x)
    if len(axes) == 1:
        return vector_norm(x, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) == 2:
        return _matrix(x, axes, keepdims, "fro" if ord is None else ord)
    raise ValueError(f"Improper number of dimensions to norm: axis={axis}")
