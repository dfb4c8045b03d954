"""Losses, quantization, signal windows and the rest: NegativeLogLikelihoodLoss,
SoftmaxCrossEntropyLoss, QuantizeLinear/DequantizeLinear, Hann/Hamming/BlackmanWindow,
CumProd, Swish, CenterCropPad, Det."""
from __future__ import annotations

import math

import jaxweb.nn as nn
import jaxweb.numpy as jnp
from jaxweb._src import dtypes

from .registry import op, unsupported
from .util import arr, astype, axis, canon, dtype_of, to_dtype


# ---------------------------------------------------------------- losses
def _nll(node, logp, target, weight):
    """Per-element losses and their weights; ignored targets weigh 0."""
    target = arr(target)
    ignore = node.attr("ignore_index")
    safe = target if ignore is None else jnp.where(target == ignore, 0, target)
    picked = jnp.take_along_axis(logp, jnp.expand_dims(safe, 1), axis=1).squeeze(1)
    w = jnp.ones(target.shape, logp.dtype) if weight is None else jnp.take(astype(weight, logp.dtype), safe)
    if ignore is not None:
        w = jnp.where(target == ignore, jnp.zeros((), w.dtype), w)
    return -picked * w, w


def _reduce(node, loss, w):
    red = node.attr("reduction", "mean")
    if red == "none":
        return loss
    if red == "sum":
        return jnp.sum(loss)
    return jnp.sum(loss) / jnp.sum(w)


@op("NegativeLogLikelihoodLoss", since=12)
def _nll_loss(node, x, target, weight=None):
    loss, w = _nll(node, arr(x), target, weight)
    return _reduce(node, loss, w)


@op("SoftmaxCrossEntropyLoss", since=12)
def _sce_loss(node, scores, labels, weight=None):
    logp = nn.log_softmax(arr(scores), axis=1)
    loss, w = _nll(node, logp, labels, weight)
    return _reduce(node, loss, w), logp


# ---------------------------------------------------------------- quantization
def _along(v, x, node):
    """A scale or zero point broadcast against x: scalar, per-axis or blocked."""
    v = arr(v)
    if v.ndim == 0 or v.size == 1:
        return v.reshape(())
    a = axis(node.attr("axis", 1), x.ndim)
    block = node.attr("block_size", 0)
    if block:
        return jnp.repeat(v, block, axis=a)[tuple(slice(0, d) for d in x.shape)]
    shape = [1] * x.ndim
    shape[a] = v.shape[0]
    return v.reshape(shape)


@op("DequantizeLinear", since=10)
def _dequantize(node, x, scale, zero=None):
    x = arr(x)
    s = _along(scale, x, node)
    xf = x.astype(jnp.float32)
    if zero is not None:
        xf = xf - _along(zero, x, node).astype(jnp.float32)
    return (xf * s.astype(jnp.float32)).astype(s.dtype)


@op("QuantizeLinear", since=10)
def _quantize(node, x, scale, zero=None):
    x = arr(x)
    out = dtype_of(zero) if zero is not None else to_dtype(node.attr("output_dtype", 2) or 2)
    if out.kind not in "iu" or out.itemsize != 1 and out.name not in ("int16", "uint16"):
        raise unsupported(node, f"output type {out.name}")
    y = jnp.round(x.astype(jnp.float32) / _along(scale, x, node).astype(jnp.float32))
    if zero is not None:
        y = y + _along(zero, x, node).astype(jnp.float32)
    info = jnp.iinfo(out)
    return jnp.clip(y, info.min, info.max).astype(canon(out))


# ---------------------------------------------------------------- windows
_WINDOWS = {
    "HannWindow": lambda t: 0.5 - 0.5 * math.cos(t),
    "HammingWindow": lambda t: 25 / 46 - 21 / 46 * math.cos(t),
    "BlackmanWindow": lambda t: 0.42 - 0.5 * math.cos(t) + 0.08 * math.cos(2 * t),
}


def _window(fn):
    def impl(node, size):
        n = int(size.values[0])
        period = n if node.attr("periodic", 1) else n - 1
        vals = [fn(2 * math.pi * i / period) if period else 1.0 for i in range(n)]
        return jnp.asarray(vals, canon(to_dtype(node.attr("output_datatype", 1))))
    return impl


for _name, _fn in _WINDOWS.items():
    op(_name, since=17, static=(0,))(_window(_fn))


# ---------------------------------------------------------------- the rest
@op("CumProd", since=26, static=(1,))
def _cumprod(node, x, ax):
    x = arr(x)
    a = axis(ax.ints()[0], x.ndim)
    if node.attr("reverse", 0):
        x = jnp.flip(x, a)
    if node.attr("exclusive", 0):
        pad = [(0, 0)] * x.ndim
        pad[a] = (1, 0)
        x = jnp.pad(x, pad, constant_values=1)[tuple(slice(0, d) for d in x.shape)]
    y = jnp.cumprod(x, axis=a, dtype=x.dtype)
    return jnp.flip(y, a) if node.attr("reverse", 0) else y


op("Swish", since=24)(lambda node, x: arr(x) * nn.sigmoid(arr(x) * node.attr("alpha", 1.0)))


@op("CenterCropPad", since=18, static=(1,))
def _center_crop_pad(node, x, shape):
    x = arr(x)
    ax = node.attr("axes") or list(range(x.ndim))
    ax = [axis(a, x.ndim) for a in ax]
    for a, want in zip(ax, shape.ints()):
        have = x.shape[a]
        if want < have:
            start = (have - want) // 2
            idx = [slice(None)] * x.ndim
            idx[a] = slice(start, start + want)
            x = x[tuple(idx)]
        elif want > have:
            pad = [(0, 0)] * x.ndim
            pad[a] = ((want - have) // 2, want - have - (want - have) // 2)
            x = jnp.pad(x, pad)
    return x


op("Det", since=11)(lambda node, x: jnp.linalg.det(arr(x)))
del dtypes
