"""Convolutions and pooling: Conv, ConvTranspose, MaxPool (with indices), AveragePool,
LpPool and their Global forms. ONNX lays data out NC(spatial...) and weights OI(spatial...),
lax's defaults for N-d convolutions; padding follows ONNX's pads/auto_pad/ceil_mode."""
from __future__ import annotations

import math

import jaxweb.lax as lax
import jaxweb.numpy as jnp
from jaxweb._src import dtypes

from .registry import op, unsupported
from .util import arr, astype, canon, dtype_of


def _same_pads(node, sizes, kernel, strides, dilations) -> list[tuple[int, int]]:
    mode = node.attr("auto_pad", "NOTSET")
    pads = []
    for n, k, s, d in zip(sizes, kernel, strides, dilations):
        if mode in ("SAME_UPPER", "SAME_LOWER"):
            total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
            small = total // 2
            pads.append((small, total - small) if mode == "SAME_UPPER" else (total - small, small))
        else:
            pads.append((0, 0))
    return pads


def window_params(node, x_shape: tuple, kernel: list[int]) -> tuple:
    """(strides, dilations, [(pad_begin, pad_end)]) of a conv/pool node."""
    k = len(kernel)
    strides = list(node.attr("strides") or [1] * k)
    dilations = list(node.attr("dilations") or [1] * k)
    mode = node.attr("auto_pad", "NOTSET")
    if mode in ("SAME_UPPER", "SAME_LOWER"):
        pads = _same_pads(node, x_shape[2:], kernel, strides, dilations)
    elif mode == "VALID":
        pads = [(0, 0)] * k
    else:
        p = node.attr("pads") or [0] * (2 * k)
        pads = list(zip(p[:k], p[k:]))
    return strides, dilations, pads


@op("Conv")
def _conv(node, x, w, b=None):
    x, w = arr(x), astype(w, dtype_of(x))
    kernel = list(node.attr("kernel_shape") or w.shape[2:])
    strides, dilations, pads = window_params(node, tuple(x.shape), kernel)
    y = lax.conv_general_dilated(x, w, strides, pads, rhs_dilation=dilations,
                                 feature_group_count=node.attr("group", 1))
    if b is not None:
        y = y + astype(b, y.dtype).reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


def _transpose_pads(node, in_sizes, kernel, strides, dilations, out_pad) -> list[tuple[int, int]]:
    k = len(kernel)
    out_shape = node.attr("output_shape")
    mode = node.attr("auto_pad", "NOTSET")
    if out_shape is None and mode in ("SAME_UPPER", "SAME_LOWER"):
        out_shape = [n * s for n, s in zip(in_sizes, strides)]
    if out_shape is not None:
        out_shape = list(out_shape)[-k:]
        pads = []
        for n, kk, s, d, op_, o in zip(in_sizes, kernel, strides, dilations, out_pad, out_shape):
            total = s * (n - 1) + op_ + (kk - 1) * d + 1 - o  # negative: the output grows
            half = total // 2
            pads.append((half, total - half) if mode == "SAME_UPPER" else (total - half, half))
        return pads
    p = node.attr("pads") or [0] * (2 * k)
    return list(zip(p[:k], p[k:]))


@op("ConvTranspose")
def _conv_transpose(node, x, w, b=None):
    x, w = arr(x), astype(w, dtype_of(x))
    g = node.attr("group", 1)
    kernel = list(node.attr("kernel_shape") or w.shape[2:])
    k = len(kernel)
    strides = list(node.attr("strides") or [1] * k)
    dilations = list(node.attr("dilations") or [1] * k)
    out_pad = list(node.attr("output_padding") or [0] * k)
    pads = _transpose_pads(node, x.shape[2:], kernel, strides, dilations, out_pad)
    c, m_g = w.shape[0], w.shape[1]
    # [C, M/g, k...] -> [M, C/g, k...], spatially flipped: a convolution of the dilated input
    wt = w.reshape((g, c // g, m_g) + tuple(w.shape[2:]))
    wt = jnp.swapaxes(wt, 1, 2).reshape((g * m_g, c // g) + tuple(w.shape[2:]))
    wt = jnp.flip(wt, tuple(range(2, 2 + k)))
    conv_pads = [((kk - 1) * d - pb, (kk - 1) * d - pe + op_)
                 for kk, d, (pb, pe), op_ in zip(kernel, dilations, pads, out_pad)]
    y = lax.conv_general_dilated(x, wt, [1] * k, conv_pads, lhs_dilation=strides, rhs_dilation=dilations,
                                 feature_group_count=g)
    if b is not None:
        y = y + astype(b, y.dtype).reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


# ---------------------------------------------------------------- pooling
def _pool_geometry(node, x):
    kernel = list(node.attr("kernel_shape"))
    strides, dilations, pads = window_params(node, tuple(x.shape), kernel)
    if node.attr("ceil_mode", 0):  # extra end padding so the last partial window counts
        grown = []
        for n, k, s, d, (pb, pe) in zip(x.shape[2:], kernel, strides, dilations, pads):
            span = n + pb + pe - (d * (k - 1) + 1)
            out = -(-span // s) + 1
            if (out - 1) * s >= n + pb:
                out -= 1
            grown.append((pb, pe, max((out - 1) * s + d * (k - 1) + 1 - (n + pb + pe), 0)))
        return kernel, strides, dilations, grown
    return kernel, strides, dilations, [(pb, pe, 0) for pb, pe in pads]


def _pool_window(node, x):
    """reduce_window's (window, strides, dilations, padding) for a pooling node over NC..."""
    kernel, strides, dilations, pads = _pool_geometry(node, x)
    one = (1, 1)
    padding = ((0, 0), (0, 0)) + tuple((pb, pe + extra) for pb, pe, extra in pads)
    return one + tuple(kernel), one + tuple(strides), one + tuple(dilations), padding


def _lowest(dt):
    return -math.inf if dtypes.dtype(dt).kind == "f" else jnp.iinfo(dt).min


@op("MaxPool")
def _max_pool(node, x):
    x = arr(x)
    win, st, dil, padding = _pool_window(node, x)
    y = lax.reduce_window(x, jnp.asarray(_lowest(x.dtype), x.dtype), lax.max, win, st, padding,
                          window_dilation=dil)
    if len(node.outputs) < 2 or not node.outputs[1]:
        return y
    return y, _max_pool_indices(node, x, *_pool_geometry(node, x), y.shape)


def _max_pool_indices(node, x, kernel, strides, dilations, pads, out_shape):
    """MaxPool's second output: each maximum's flat index into the input (first on ties)."""
    if node.attr("storage_order", 0):
        raise unsupported(node, "storage_order=1 (column-major indices)")
    padding = [(0, 0, 0), (0, 0, 0)] + [(pb, pe + extra, 0) for pb, pe, extra in pads]
    xp = lax.pad(x, jnp.asarray(_lowest(x.dtype), x.dtype), padding)
    flat = jnp.arange(math.prod(x.shape)).reshape(x.shape)
    fp = lax.pad(flat, jnp.asarray(-1, flat.dtype), padding)
    best_v = best_i = None
    for offs in _offsets(kernel):
        sl = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + (n - 1) * s + 1, s) for o, d, s, n in zip(offs, dilations, strides, out_shape[2:]))
        v, i = xp[sl], fp[sl]
        if best_v is None:
            best_v, best_i = v, i
        else:
            take = v > best_v
            best_v, best_i = jnp.where(take, v, best_v), jnp.where(take, i, best_i)
    return best_i.astype(canon(dtypes.int64))


def _offsets(kernel):
    out = [()]
    for k in kernel:
        out = [o + (i,) for o in out for i in range(k)]
    return out


@op("AveragePool")
def _avg_pool(node, x):
    x = arr(x)
    win, st, dil, padding = _pool_window(node, x)
    pads = _pool_geometry(node, x)[3]
    total = lax.reduce_window(x, jnp.zeros((), x.dtype), lax.add, win, st, padding, window_dilation=dil)
    ones = jnp.ones((1, 1) + tuple(x.shape[2:]), x.dtype)
    if node.attr("count_include_pad", 0):  # explicit pads count, ceil_mode's extra ones do not
        ones = jnp.pad(ones, ((0, 0), (0, 0)) + tuple((pb, pe) for pb, pe, _ in pads), constant_values=1)
        padding = ((0, 0), (0, 0)) + tuple((0, extra) for _, _, extra in pads)
    count = lax.reduce_window(ones, jnp.zeros((), x.dtype), lax.add, win, st, padding, window_dilation=dil)
    return total / count


@op("LpPool")
def _lp_pool(node, x):
    x = arr(x)
    p = node.attr("p", 2)
    win, st, dil, padding = _pool_window(node, x)
    s = lax.reduce_window(jnp.abs(x) ** p, jnp.zeros((), x.dtype), lax.add, win, st, padding, window_dilation=dil)
    return s ** (1.0 / p)


def _spatial(x):
    return tuple(range(2, x.ndim))


op("GlobalAveragePool")(lambda node, x: jnp.mean(arr(x), _spatial(arr(x)), keepdims=True))
op("GlobalMaxPool")(lambda node, x: jnp.max(arr(x), _spatial(arr(x)), keepdims=True))
op("GlobalLpPool")(lambda node, x: jnp.sum(jnp.abs(arr(x)) ** node.attr("p", 2), _spatial(arr(x)),
                                           keepdims=True) ** (1.0 / node.attr("p", 2)))
