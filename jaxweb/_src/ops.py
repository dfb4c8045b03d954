"""`jax.ops`: segment reductions — data rows combined by segment id (scatter with the
segment's identity as the starting value; ids outside [0, num_segments) are dropped)."""
from __future__ import annotations

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]

from typing import Any

from .. import numpy as _numpy


def _segment(kind: str, data: Any, segment_ids: Any, num_segments: int | None, mode: Any) -> Any:
    jnp = _numpy
    data, ids = jnp.asarray(data), jnp.asarray(segment_ids)
    if num_segments is None:
        num_segments = int(jnp.max(ids)) + 1 if ids.size else 0
    num_segments = int(num_segments)
    dt = data.dtype
    if kind == "sum":
        init = jnp.zeros((), dt)
    elif kind == "prod":
        init = jnp.ones((), dt)
    elif jnp.issubdtype(dt, jnp.inexact):
        init = jnp.asarray(-jnp.inf if kind == "max" else jnp.inf, dt)
    elif dt == jnp.bool_:
        init = jnp.asarray(kind == "min", dt)
    else:
        info = jnp.iinfo(dt)
        init = jnp.asarray(info.min if kind == "max" else info.max, dt)
    out = jnp.full((num_segments,) + data.shape[ids.ndim:], init, dt)
    ref = out.at[ids]
    method = {"sum": ref.add, "prod": ref.multiply, "max": ref.max, "min": ref.min}[kind]
    return method(data, mode="drop" if mode is None else mode)


def segment_sum(data: Any, segment_ids: Any, num_segments: int | None = None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size: int | None = None, mode: Any = None) -> Any:
    """Sum of the rows of `data` per segment id (0 for empty segments)."""
    return _segment("sum", data, segment_ids, num_segments, mode)


def segment_prod(data: Any, segment_ids: Any, num_segments: int | None = None, indices_are_sorted: bool = False,
                 unique_indices: bool = False, bucket_size: int | None = None, mode: Any = None) -> Any:
    """Product of the rows per segment (1 for empty segments)."""
    return _segment("prod", data, segment_ids, num_segments, mode)


def segment_max(data: Any, segment_ids: Any, num_segments: int | None = None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size: int | None = None, mode: Any = None) -> Any:
    """Maximum of the rows per segment (-inf, or the dtype's minimum, for empty segments)."""
    return _segment("max", data, segment_ids, num_segments, mode)


def segment_min(data: Any, segment_ids: Any, num_segments: int | None = None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size: int | None = None, mode: Any = None) -> Any:
    """Minimum of the rows per segment (inf, or the dtype's maximum, for empty segments)."""
    return _segment("min", data, segment_ids, num_segments, mode)
