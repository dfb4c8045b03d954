"""`jax.scipy.stats`' functions of a sample: mode, rankdata, sem."""
from __future__ import annotations

from typing import Any, NamedTuple

from ._common import Array, jnp


class ModeResult(NamedTuple):
    """mode's result: the smallest most frequent value and how often it occurs."""
    mode: Array
    count: Array


def _check_policy(nan_policy: str, allowed: tuple[str, ...], name: str) -> None:
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy not in allowed:
        raise NotImplementedError(f"In function {name}, nan_policy='{nan_policy}' is not supported")


def mode(a: Any, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """The most frequent value along `axis` (the smallest of ties) and its count."""
    _check_policy(nan_policy, ("propagate",), "mode")
    x = jnp.asarray(a)
    ndim = x.ndim
    if axis is None:
        x, axis = jnp.ravel(x), 0
    axis = axis % max(x.ndim, 1)
    s = jnp.sort(jnp.moveaxis(x, axis, -1), axis=-1)
    counts = jnp.sum(s[..., :, None] == s[..., None, :], axis=-1, dtype=jnp.int32)
    best = jnp.argmax(counts, axis=-1)[..., None]  # first maximum of the sorted row: the smallest
    m = jnp.take_along_axis(s, best, axis=-1)[..., 0]
    c = jnp.take_along_axis(counts, best, axis=-1)[..., 0]
    if keepdims:
        where = tuple(range(ndim)) if ndim != x.ndim else axis  # axis=None keeps every axis
        m, c = jnp.expand_dims(m, where), jnp.expand_dims(c, where)
    return ModeResult(m, c)


def _rank_1d(a: Array, method: str) -> Array:
    n = a.shape[0]
    order = jnp.argsort(a, stable=True)
    inv = jnp.zeros(n, jnp.int32).at[order].set(jnp.arange(n, dtype=jnp.int32))
    if method == "ordinal":
        return (inv + 1).astype(jnp.float32)
    s = a[order]
    new = jnp.concatenate([jnp.ones(1, bool), s[1:] != s[:-1]])
    dense = jnp.cumsum(new, dtype=jnp.int32)[inv]
    if method == "dense":
        return dense.astype(jnp.float32)
    starts = jnp.nonzero(jnp.concatenate([new, jnp.ones(1, bool)]), size=n + 1, fill_value=n)[0]
    if method == "max":
        return starts[dense].astype(jnp.float32)
    if method == "min":
        return (starts[dense - 1] + 1).astype(jnp.float32)
    return (0.5 * (starts[dense] + starts[dense - 1] + 1)).astype(jnp.float32)


def rankdata(a: Any, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate") -> Array:
    """Ranks from 1 ('average': ties share their mean rank; 'min', 'max', 'dense', 'ordinal'),
    as float32 for every method (as JAX)."""
    _check_policy(nan_policy, ("propagate",), "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    x = jnp.asarray(a)
    if axis is None:
        out = _rank_1d(jnp.ravel(x), method)
        nan = jnp.isnan(x).any() if jnp.issubdtype(x.dtype, jnp.inexact) else None
    else:
        moved = jnp.moveaxis(x, axis, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        out = jnp.stack([_rank_1d(r, method) for r in flat]) if flat.shape[0] else flat
        out = jnp.moveaxis(out.reshape(moved.shape), -1, axis)
        nan = jnp.isnan(x).any(axis=axis, keepdims=True) if jnp.issubdtype(x.dtype, jnp.inexact) else None
    if nan is not None:
        out = jnp.where(nan, jnp.nan, out)
    return out


def sem(a: Any, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Array:
    """The standard error of the mean: std(ddof) / sqrt(n) ('omit' skips NaNs)."""
    _check_policy(nan_policy, ("propagate", "omit"), "sem")
    x = jnp.asarray(a)
    if nan_policy == "omit":
        n = jnp.sum(~jnp.isnan(x), axis=axis, keepdims=keepdims)
        return jnp.nanstd(x, axis=axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(n)
    n = x.size if axis is None else x.shape[axis]
    return jnp.std(x, axis=axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(n)
