"""`jax.nn.dot_product_attention`: softmax(Q Kᵀ * scale + bias, masked) V.

JAX's layout: query [B, T, N, H], key/value [B, S, K, H] (or without the batch
axis); N a multiple of K gives grouped-query attention (K == 1: multi-query). Bias
and mask are 4-D and broadcast to [B, N, T, S]. Logits are computed and
soft-maxed in float32 (at least), masked logits are set to a large negative number
(-0.7 * the float32 max, as JAX's XLA path), so fully masked rows average the
values uniformly, and padded query rows (query_seq_lengths) are zeroed.
"""
from __future__ import annotations

__all__ = ["dot_product_attention"]

import math
from typing import Any, Sequence

from ... import numpy as jnp
from .. import dtypes
from ..lax import ad_util
from .softmax import logsumexp, softmax

Array = Any


def _ensure_4d(t: Any) -> Array:
    t = jnp.asarray(t)
    missing = 4 - t.ndim
    return jnp.expand_dims(t, tuple(range(missing))) if missing > 0 else t


def _check(t: Array | None, shape: Sequence[int], dtype: Any, name: str) -> None:
    """JAX's checks (and messages) on the rank, dtype and fixed sizes of an argument."""
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {list(shape)}: but got {tuple(t.shape)}")


def _grouped(t: Array | None, K: int, G: int) -> Array | None:
    """A [B, N|1, T, S] bias or mask as [B, K, G|1, T, S] to match the grouped logits."""
    if t is None:
        return None
    b, n, tt, s = t.shape
    if n == 1:
        return jnp.reshape(t, (b, 1, 1, tt, s))
    return jnp.reshape(t, (b, K, G, tt, s))


def _combined_mask(shape: tuple, mask: Array | None, is_causal: bool, q_len: Array | None,
                   kv_len: Array | None, window: tuple[int, int] | None) -> Array | None:
    """The logical and of every requested mask, broadcastable to the [B, K, G, T, S] logits."""
    T, S = shape[-2], shape[-1]
    parts = []
    if mask is not None:
        parts.append(mask)
    qpos = jnp.arange(T)[:, None]
    kpos = jnp.arange(S)[None, :]
    if is_causal:
        parts.append((qpos >= kpos)[None, None, None])
    if window is not None:
        left, right = window
        parts.append(((qpos <= kpos + left) & (qpos >= kpos - right))[None, None, None])
    if q_len is not None:
        parts.append((jnp.arange(T)[None, :, None] < q_len[:, None, None])[:, None, None])
    if kv_len is not None:
        parts.append((jnp.arange(S)[None, None, :] < kv_len[:, None, None])[:, None, None])
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = jnp.logical_and(out, p)
    return out


def _large_negative(dtype: Any) -> float:
    return -0.7 * min(float(dtypes.finfo(dtype).max), float(dtypes.finfo(dtypes.float32).max))


def _attention(q: Array, k: Array, v: Array, bias: Array | None, mask: Array | None,
               is_causal: bool, scale: float, q_len: Array | None, kv_len: Array | None,
               window: tuple[int, int] | None, return_residual: bool) -> Any:
    B, T, N, H = q.shape
    _, S, K, _ = k.shape
    G = N // K
    logits_dtype = jnp.promote_types(q.dtype, jnp.float32)
    qg = jnp.reshape(q, (B, T, K, G, H)).astype(logits_dtype)
    logits = jnp.einsum("btkgh,bskh->bkgts", qg, k.astype(logits_dtype))
    logits = logits * jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + _grouped(bias, K, G)).astype(logits.dtype)
    full = _combined_mask(logits.shape, _grouped(mask, K, G), is_causal, q_len, kv_len, window)
    if full is not None:
        logits = jnp.where(full, logits, jnp.asarray(_large_negative(logits.dtype), logits.dtype))
    logits = logits.astype(jnp.float32)
    probs = softmax(logits, axis=-1).astype(k.dtype)
    encoded = jnp.einsum("bkgts,bskh->btkgh", probs, v)
    if q_len is not None:
        keep = jnp.arange(T)[None, :] < q_len[:, None]
        encoded = encoded * keep[:, :, None, None, None].astype(encoded.dtype)
    encoded = jnp.reshape(encoded, (B, T, N, H))
    if not return_residual:
        return encoded
    lse = logsumexp(logits, axis=-1).astype(k.dtype)  # [B, K, G, T]
    lse = jnp.reshape(jnp.moveaxis(lse, 3, 1), (B, T, N))
    return encoded, ad_util.stop_gradient(lse)


def dot_product_attention(query: Array, key: Array, value: Array, bias: Array | None = None,
                          mask: Array | None = None, *, scale: float | None = None,
                          is_causal: bool = False, query_seq_lengths: Array | None = None,
                          key_value_seq_lengths: Array | None = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: bool = False) -> Any:
    """Scaled dot-product attention over [B, T, N, H] queries (see the module docstring).

    `scale` defaults to 1/sqrt(H); `mask` is boolean (True attends); `is_causal` lets
    query t see keys s <= t; the sequence lengths mask padding per batch entry;
    `local_window_size` (left, right) limits each query to nearby keys. Only the
    "xla" implementation (the default) exists here, as jnp ops."""
    output_shape = jnp.asarray(query).shape
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = _ensure_4d(bias) if bias is not None else None
    mask = _ensure_4d(mask) if mask is not None else None
    q_len = jnp.asarray(query_seq_lengths) if query_seq_lengths is not None else None
    kv_len = jnp.asarray(key_value_seq_lengths) if key_value_seq_lengths is not None else None
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = k.shape
    _check(v, [B, S, K, H], k.dtype, "value")
    _check(q, [B, -1, -1, H], k.dtype, "query")
    _check(mask, [-1] * 4, dtypes.bool_, "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(q_len, [B], dtypes.int32, "query_seq_lengths")
    _check(kv_len, [B], dtypes.int32, "key_value_seq_lengths")
    if q.shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                         f"but got {q.shape[-2]} vs {K}")
    if implementation not in (None, "xla"):
        if implementation == "cudnn":
            raise NotImplementedError("implementation='cudnn' needs an NVIDIA GPU; jaxweb has "
                                      "only the 'xla' implementation")
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale_val = 1.0 / math.sqrt(H) if scale is None else scale
    out = _attention(q, k, v, bias, mask, is_causal, scale_val, q_len, kv_len, local_window_size,
                     return_residual)
    if return_residual:
        encoded, residual = out
        return jnp.reshape(encoded, output_shape), jnp.reshape(residual, output_shape[:-1])
    return jnp.reshape(out, output_shape)
