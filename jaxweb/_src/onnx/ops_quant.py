"""Integer and bit-level operators: MatMulInteger, ConvInteger, QLinearMatMul, BitCast;
and SwiGLU, AffineGrid."""
from __future__ import annotations

import jaxweb.lax as lax
import jaxweb.nn as nn
import jaxweb.numpy as jnp
from jaxweb._src import dtypes

from .ops_conv import window_params
from .registry import op, unsupported
from .util import arr, canon, dtype_of, to_dtype


def _centered(x, zero):
    x = arr(x).astype(jnp.int32)
    return x if zero is None else x - arr(zero).astype(jnp.int32)


@op("MatMulInteger", since=10)
def _matmul_integer(node, a, b, a_zero=None, b_zero=None):
    za = None if a_zero is None else (arr(a_zero) if arr(a_zero).ndim == 0 else arr(a_zero).reshape(-1, 1))
    return jnp.matmul(_centered(a, za), _centered(b, b_zero))


@op("ConvInteger", since=10)
def _conv_integer(node, x, w, x_zero=None, w_zero=None):
    xf, wf = _centered(x, x_zero).astype(jnp.float32), _centered(w, w_zero).astype(jnp.float32)
    kernel = list(node.attr("kernel_shape") or wf.shape[2:])
    strides, dilations, pads = window_params(node, tuple(xf.shape), kernel)
    y = lax.conv_general_dilated(xf, wf, strides, pads, rhs_dilation=dilations,
                                 feature_group_count=node.attr("group", 1))
    return jnp.round(y).astype(jnp.int32)  # exact: 8-bit products summed stay far below 2**24


@op("QLinearMatMul", since=10)
def _qlinear_matmul(node, a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero):
    acc = jnp.matmul(_centered(a, a_zero).astype(jnp.float32), _centered(b, b_zero).astype(jnp.float32))
    s = arr(a_scale).astype(jnp.float32) * arr(b_scale).astype(jnp.float32) / arr(y_scale).astype(jnp.float32)
    out = dtype_of(y_zero)
    y = jnp.round(acc * s) + arr(y_zero).astype(jnp.float32)
    info = jnp.iinfo(out)
    return jnp.clip(y, info.min, info.max).astype(canon(out))


@op("BitCast", since=26)
def _bitcast(node, x):
    x = arr(x)
    to = to_dtype(node.attr("to"))
    if to.itemsize != dtypes.dtype(x.dtype).itemsize or to.kind == "b" or dtypes.dtype(x.dtype).kind == "b":
        raise unsupported(node, f"bit cast {x.dtype} -> {to.name} (only same-width numeric types)")
    return lax.bitcast_convert_type(x, canon(to))


@op("SwiGLU", since=26)
def _swiglu(node, a, b):
    a = arr(a)
    return a * nn.sigmoid(a * node.attr("alpha", 1.0)) * arr(b)


@op("AffineGrid", since=20, static=(1,))
def _affine_grid(node, theta, size):
    theta = arr(theta)
    dims = size.ints()
    spatial = dims[2:]
    align = node.attr("align_corners", 0)

    def coords(n):
        if align:
            return jnp.linspace(-1.0, 1.0, n) if n > 1 else jnp.zeros((1,))
        return (jnp.arange(n, dtype=jnp.float32) * 2 + 1) / n - 1
    axes = [coords(n).astype(theta.dtype) for n in reversed(spatial)]  # x (width) first
    mesh = jnp.meshgrid(*axes, indexing="xy") if len(axes) == 2 else _mesh3(axes)
    base = jnp.stack(list(mesh) + [jnp.ones_like(mesh[0])], axis=-1)  # [..spatial, k+1]
    flat = base.reshape(-1, base.shape[-1])
    grid = jnp.einsum("pk,nik->npi", flat, theta)
    return grid.reshape((dims[0],) + tuple(spatial) + (len(spatial),))


def _mesh3(axes):
    x, y, z = axes
    zz, yy, xx = jnp.meshgrid(z, y, x, indexing="ij")
    return xx, yy, zz
