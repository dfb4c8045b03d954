"""Neural-network operators: MatMul, Gemm, Einsum, the softmax family and the
normalizations (Batch, Instance, Layer, Group, LRN, Lp, MeanVariance)."""
from __future__ import annotations

import math

import jaxweb.nn as nn
import jaxweb.numpy as jnp

from . import ops_conv, ops_resize  # noqa: F401  (their operators register on import)
from .registry import op
from .util import arr, astype, axis, dtype_of, matmul


@op("MatMul")
def _matmul(node, a, b):
    a = arr(a)
    return matmul(a, astype(b, dtype_of(a)))


@op("Gemm")
def _gemm(node, a, b, c=None):
    a = arr(a)
    b = astype(b, dtype_of(a))
    if node.attr("transA", 0):
        a = a.T
    if node.attr("transB", 0):
        b = b.T
    y = a @ b
    alpha, beta = node.attr("alpha", 1.0), node.attr("beta", 1.0)
    if alpha != 1.0:
        y = y * jnp.asarray(alpha, y.dtype)
    if c is not None and beta != 0.0:
        c = astype(c, y.dtype)
        y = y + (c if beta == 1.0 else c * jnp.asarray(beta, y.dtype))
    return y


@op("Einsum")
def _einsum(node, *xs):
    xs = [arr(x) for x in xs]
    return jnp.einsum(node.attr("equation").replace(" ", ""), *xs)


# ---------------------------------------------------------------- softmax family
def _softmax_family(fn):
    def old(node, x):  # before opset 13: flatten to 2-D at `axis`, normalize the inner part
        x = arr(x)
        a = axis(node.attr("axis", 1), x.ndim)
        flat = x.reshape(math.prod(x.shape[:a]), -1)
        return fn(flat, -1).reshape(x.shape)

    def new(node, x):
        x = arr(x)
        return fn(x, axis(node.attr("axis", -1), x.ndim))
    return old, new


def _hardmax(x, a):
    idx = jnp.argmax(x, axis=a, keepdims=True)
    shape = [1] * x.ndim
    shape[a] = x.shape[a]
    return (jnp.arange(x.shape[a]).reshape(shape) == idx).astype(x.dtype)


for _name, _fn in {"Softmax": lambda x, a: nn.softmax(x, axis=a),
                   "LogSoftmax": lambda x, a: nn.log_softmax(x, axis=a), "Hardmax": _hardmax}.items():
    _old, _new = _softmax_family(_fn)
    op(_name, since=1)(_old)
    op(_name, since=13)(_new)


# ---------------------------------------------------------------- normalizations
def _per_channel(v, ndim):
    return v.reshape((1, -1) + (1,) * (ndim - 2))


@op("BatchNormalization")
def _batch_norm(node, x, scale, bias, mean, var):
    x = arr(x)
    dt = dtype_of(x)
    scale, bias, mean, var = (astype(v, dt) for v in (scale, bias, mean, var))
    eps = node.attr("epsilon", 1e-5)
    if node.attr("training_mode", 0):
        red = (0,) + tuple(range(2, x.ndim))
        bm, bv = jnp.mean(x, red), jnp.var(x, red)
        mom = node.attr("momentum", 0.9)
        y = (x - _per_channel(bm, x.ndim)) / jnp.sqrt(_per_channel(bv, x.ndim) + eps)
        y = y * _per_channel(scale, x.ndim) + _per_channel(bias, x.ndim)
        return y, mean * mom + bm * (1 - mom), var * mom + bv * (1 - mom)
    inv = scale / jnp.sqrt(var + jnp.asarray(eps, var.dtype))
    return x * _per_channel(inv, x.ndim) + _per_channel(bias - mean * inv, x.ndim)


@op("InstanceNormalization")
def _instance_norm(node, x, scale, bias):
    x = arr(x)
    red = tuple(range(2, x.ndim))
    mean = jnp.mean(x, red, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), red, keepdims=True)
    y = (x - mean) / jnp.sqrt(var + node.attr("epsilon", 1e-5))
    return y * _per_channel(astype(scale, dtype_of(x)), x.ndim) + _per_channel(astype(bias, dtype_of(x)), x.ndim)


@op("LayerNormalization")
def _layer_norm(node, x, scale, bias=None):
    x = arr(x)
    a = axis(node.attr("axis", -1), x.ndim)
    red = tuple(range(a, x.ndim))
    xf = x.astype(jnp.float32) if node.attr("stash_type", 1) == 1 else x
    mean = jnp.mean(xf, red, keepdims=True)
    var = jnp.mean(jnp.square(xf - mean), red, keepdims=True)
    inv = 1.0 / jnp.sqrt(var + node.attr("epsilon", 1e-5))
    y = ((xf - mean) * inv).astype(x.dtype) * astype(scale, dtype_of(x))
    if bias is not None:
        y = y + astype(bias, dtype_of(x))
    return y, mean, inv


@op("GroupNormalization", since=18)
def _group_norm(node, x, scale, bias):
    x = arr(x)
    g = node.attr("num_groups")
    n, c = x.shape[:2]
    xg = x.reshape((n, g, -1))
    mean = jnp.mean(xg, -1, keepdims=True)
    var = jnp.mean(jnp.square(xg - mean), -1, keepdims=True)
    y = ((xg - mean) / jnp.sqrt(var + node.attr("epsilon", 1e-5))).reshape(x.shape)
    scale, bias = astype(scale, dtype_of(x)), astype(bias, dtype_of(x))
    if node.opset < 21 and scale.shape[0] == g and g != c:  # opset 18: one scale per group
        scale, bias = jnp.repeat(scale, c // g), jnp.repeat(bias, c // g)
    return y * _per_channel(scale, x.ndim) + _per_channel(bias, x.ndim)


@op("LRN")
def _lrn(node, x):
    x = arr(x)
    size = node.attr("size")
    alpha, beta, bias = node.attr("alpha", 1e-4), node.attr("beta", 0.75), node.attr("bias", 1.0)
    sq = jnp.square(x)
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    padded = jnp.pad(sq, ((0, 0), (lo, hi)) + ((0, 0),) * (x.ndim - 2))
    c = x.shape[1]
    total = sum(padded[:, i:i + c] for i in range(size))
    return x / (bias + alpha / size * total) ** beta


@op("LpNormalization")
def _lp_norm(node, x):
    x = arr(x)
    a = axis(node.attr("axis", -1), x.ndim)
    p = node.attr("p", 2)
    norm = jnp.sum(jnp.abs(x), a, keepdims=True) if p == 1 else jnp.sqrt(jnp.sum(x * x, a, keepdims=True))
    return jnp.where(norm == 0, jnp.zeros((), x.dtype), x / jnp.where(norm == 0, 1, norm))


@op("MeanVarianceNormalization")
def _mvn(node, x):
    x = arr(x)
    red = tuple(axis(a, x.ndim) for a in node.attr("axes", [0, 2, 3]))
    mean = jnp.mean(x, red, keepdims=True)
    var = jnp.mean(jnp.square(x), red, keepdims=True) - jnp.square(mean)
    return (x - mean) / (jnp.sqrt(var) + 1e-9)
