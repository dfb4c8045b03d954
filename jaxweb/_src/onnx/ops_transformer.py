"""Transformer operators (opset 23+): Attention, RMSNormalization, RotaryEmbedding."""
from __future__ import annotations

import math

import jaxweb.nn as nn
import jaxweb.numpy as jnp

from .registry import op
from .util import arr, astype, axis, dtype_of, matmul

NEG_INF = -math.inf


def _heads(x, n):
    """[B, S, n*D] -> [B, n, S, D]."""
    b, s, hidden = x.shape
    return x.reshape(b, s, n, hidden // n).transpose(0, 2, 1, 3)


def _bias(node, q_len, kv_len, dt, mask, nonpad, past_len, batch):
    """The additive mask [.., q, kv]: attn_mask (bool or float, padded to kv), causality
    (bottom-right aligned), sliding windows and the per-batch valid key lengths."""
    bias = jnp.zeros((q_len, kv_len), dt)
    if mask is not None:
        mask = arr(mask)
        if mask.shape[-1] < kv_len:
            pad = [(0, 0)] * (mask.ndim - 1) + [(0, kv_len - mask.shape[-1])]
            mask = jnp.pad(mask, pad, constant_values=False if mask.dtype == jnp.bool_ else NEG_INF)
        mask = jnp.where(mask, jnp.zeros((), dt), jnp.asarray(NEG_INF, dt)) if mask.dtype == jnp.bool_ else mask.astype(dt)
        bias = bias + mask
    qi = jnp.arange(q_len).reshape(q_len, 1)
    kj = jnp.arange(kv_len).reshape(1, kv_len)
    if nonpad is not None:
        lens = arr(nonpad).reshape(batch, 1, 1, 1)
        offset = lens - q_len
    else:
        offset = 0 if past_len is None else past_len
    allowed = None
    if node.attr("is_causal", 0):
        allowed = kj <= qi + offset
    left, right = node.attr("left_window_size", -1), node.attr("right_window_size", -1)
    if left >= 0:
        ok = kj >= qi + offset - left
        allowed = ok if allowed is None else allowed & ok
    if right >= 0:
        ok = kj <= qi + offset + right
        allowed = ok if allowed is None else allowed & ok
    if allowed is not None:
        bias = bias + jnp.where(allowed, jnp.zeros((), dt), jnp.asarray(NEG_INF, dt))
    if nonpad is not None:
        bias = bias + jnp.where(kj.reshape(1, 1, 1, kv_len) < arr(nonpad).reshape(batch, 1, 1, 1),
                                jnp.zeros((), dt), jnp.asarray(NEG_INF, dt))
    return bias


@op("Attention", since=23)
def _attention(node, q, k, v, mask=None, past_k=None, past_v=None, nonpad=None):
    q, k, v = arr(q), astype(k, dtype_of(q)), astype(v, dtype_of(q))
    three_d = q.ndim == 3
    if three_d:
        q, k, v = _heads(q, node.attr("q_num_heads")), _heads(k, node.attr("kv_num_heads")), _heads(
            v, node.attr("kv_num_heads"))
    scale = node.attr("scale")
    scale = math.sqrt(1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if past_k is not None:
        k = jnp.concatenate([astype(past_k, q.dtype), k], axis=2)
        v = jnp.concatenate([astype(past_v, q.dtype), v], axis=2)
    present_k, present_v = k, v
    if k.shape[1] != q.shape[1]:  # grouped-query attention: each kv head serves a group
        k, v = jnp.repeat(k, q.shape[1] // k.shape[1], axis=1), jnp.repeat(v, q.shape[1] // v.shape[1], axis=1)
    s = matmul(q * scale, jnp.swapaxes(k, -1, -2) * scale)
    softcap = node.attr("softcap", 0.0)
    if softcap:
        s = softcap * jnp.tanh(s / softcap)
    bias = _bias(node, q.shape[2], k.shape[2], q.dtype, mask, nonpad,
                 None if past_k is None else past_k.shape[2], q.shape[0])
    with_bias = s + bias
    mode = node.attr("qk_matmul_output_mode", 0)
    qk_out = with_bias if mode == 2 else s  # 0, 1: the (soft-capped) product; 2: with the mask added
    p = nn.softmax(with_bias, axis=-1)
    dead = jnp.isneginf(jnp.max(bias, axis=-1, keepdims=True))
    p = jnp.where(dead, jnp.zeros((), p.dtype), p)
    if mode == 3:
        qk_out = p
    y = matmul(p, v)
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    return y, present_k, present_v, qk_out


@op("RMSNormalization", since=23)
def _rms_norm(node, x, scale):
    x = arr(x)
    a = axis(node.attr("axis", -1), x.ndim)
    xf = x.astype(jnp.float32)
    ms = jnp.mean(xf * xf, tuple(range(a, x.ndim)), keepdims=True)
    y = (xf / jnp.sqrt(ms + node.attr("epsilon", 1e-5))).astype(x.dtype)
    return y * astype(scale, dtype_of(x))


@op("RotaryEmbedding", since=23)
def _rotary(node, x, cos, sin, pos=None):
    x = arr(x)
    shape = x.shape
    x = x.transpose(0, 2, 1, 3) if x.ndim == 4 else x.reshape(
        shape[0], shape[1], node.attr("num_heads"), -1)
    dim = node.attr("rotary_embedding_dim", 0) or x.shape[3]
    rot, keep = x[..., :dim], x[..., dim:]
    cos, sin = astype(cos, x.dtype), astype(sin, x.dtype)
    if pos is not None:
        cos, sin = jnp.take(cos, arr(pos), axis=0), jnp.take(sin, arr(pos), axis=0)
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]
    inter = node.attr("interleaved", 0)
    x1, x2 = (rot[..., 0::2], rot[..., 1::2]) if inter else (rot[..., :dim // 2], rot[..., dim // 2:])
    real, imag = cos * x1 - sin * x2, sin * x1 + cos * x2
    rot = jnp.stack([real, imag], -1).reshape(rot.shape) if inter else jnp.concatenate([real, imag], -1)
    y = jnp.concatenate([rot, keep], -1)
    return y.reshape(shape) if len(shape) == 3 else y.transpose(0, 2, 1, 3)
