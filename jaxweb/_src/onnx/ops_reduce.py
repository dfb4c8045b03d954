"""Reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare. Axes come from
an attribute before opset 13 (ReduceSum) / 18 (the others) and from a static input after."""
from __future__ import annotations

import math

import jaxweb.nn as nn
import jaxweb.numpy as jnp
from jaxweb._src import dtypes

from .registry import register
from .util import arr, axes

# op -> (fn(x, axes, keepdims), the value of an empty reduction: a float or "lowest"/"highest")
_LOWEST, _HIGHEST = "lowest", "highest"
REDUCTIONS = {
    "ReduceSum": (lambda x, a, k: jnp.sum(x, a, keepdims=k, dtype=x.dtype), 0.0),
    "ReduceMean": (lambda x, a, k: jnp.mean(x, a, keepdims=k), math.nan),
    "ReduceMax": (lambda x, a, k: jnp.max(x, a, keepdims=k), _LOWEST),
    "ReduceMin": (lambda x, a, k: jnp.min(x, a, keepdims=k), _HIGHEST),
    "ReduceProd": (lambda x, a, k: jnp.prod(x, a, keepdims=k, dtype=x.dtype), 1.0),
    "ReduceL1": (lambda x, a, k: jnp.sum(jnp.abs(x), a, keepdims=k, dtype=x.dtype), 0.0),
    "ReduceL2": (lambda x, a, k: jnp.sqrt(jnp.sum(x * x, a, keepdims=k)).astype(x.dtype), 0.0),
    "ReduceSumSquare": (lambda x, a, k: jnp.sum(x * x, a, keepdims=k, dtype=x.dtype), 0.0),
    "ReduceLogSum": (lambda x, a, k: jnp.log(jnp.sum(x, a, keepdims=k)), -math.inf),
    "ReduceLogSumExp": (lambda x, a, k: nn.logsumexp(x, a, keepdims=k).astype(x.dtype), -math.inf),
}
AXES_INPUT_SINCE = {"ReduceSum": 13}


def _empty_value(x, fill):
    dt = dtypes.dtype(x.dtype)
    if fill in (_LOWEST, _HIGHEST):
        if dt.kind == "f":
            return -math.inf if fill == _LOWEST else math.inf
        info = jnp.iinfo(dt)
        return info.min if fill == _LOWEST else info.max
    return fill


def _reduce(fn, fill, node, x, ax):
    x = arr(x)
    keep = bool(node.attr("keepdims", 1))
    if ax is None or len(ax) == 0:
        if node.attr("noop_with_empty_axes", 0):
            return x
        ax = list(range(x.ndim))
    ax = tuple(sorted(set(axes(ax, x.ndim))))
    if x.ndim and any(x.shape[a] == 0 for a in ax):
        shape = tuple(1 if i in ax else d for i, d in enumerate(x.shape)) if keep else tuple(
            d for i, d in enumerate(x.shape) if i not in ax)
        return jnp.full(shape, _empty_value(x, fill), x.dtype)
    return fn(x, ax, keep)


def _register(name, fn, fill):
    register(name, lambda node, x: _reduce(fn, fill, node, x, node.attr("axes")))
    since = AXES_INPUT_SINCE.get(name, 18)
    register(name, lambda node, x, ax=None: _reduce(fn, fill, node, x, None if ax is None else ax.ints()),
             since=since, static=(1,))


for _name, (_fn, _fill) in REDUCTIONS.items():
    _register(_name, _fn, _fill)
