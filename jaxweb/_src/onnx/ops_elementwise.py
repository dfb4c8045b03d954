"""Elementwise operators: arithmetic, comparison and logic, math functions, activations,
casts. Most are one jnp/lax/nn call; each table row is one ONNX operator."""
from __future__ import annotations

import math
from typing import Any, Callable

import jaxweb.lax as lax
import jaxweb.nn as nn
import jaxweb.numpy as jnp
from jaxweb._src import dtypes, hostdata

from . import fast_math
from .registry import op, register
from .tensors import HostTensor
from .util import arr, astype, broadcast_flat, broadcast_shapes, canon, dtype_of, to_dtype


# ---------------------------------------------------------------- host (static) evaluation
def host_map(fn: Callable, out_dtype: Any, *xs: HostTensor) -> HostTensor | None:
    """`fn` applied elementwise to host tensors with numpy broadcasting (None: not here)."""
    shape = broadcast_shapes(*(x.shape for x in xs))
    cols = [broadcast_flat(x, shape) for x in xs]
    dt = out_dtype if out_dtype is not None else xs[0].dtype
    try:
        vals = [fn(*v) for v in zip(*cols)] if xs else []
    except (ZeroDivisionError, ValueError, OverflowError):
        return None
    return HostTensor(dt, shape, values=[hostdata.coerce_scalar(v, dt) for v in vals])


def _int_div(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def _host_binary(fn: Callable, out: Any = None) -> Callable:
    return lambda node, a, b: host_map(fn, out, a, b)


def _host_unary(fn: Callable, out: Any = None) -> Callable:
    return lambda node, a: host_map(fn, out, a)


# ---------------------------------------------------------------- arithmetic
def _same(a: Any, b: Any) -> tuple:
    """Both operands as arrays of the first one's dtype (ONNX requires equal types)."""
    return arr(a), astype(b, dtype_of(a))


def _div(a: Any, b: Any) -> Any:
    a, b = _same(a, b)
    return lax.div(*jnp.broadcast_arrays(a, b)) if dtypes.is_int(dtypes.dtype(a.dtype)) else a / b


BINARY = {
    "Add": (lambda a, b: jnp.add(*_same(a, b)), lambda x, y: x + y),
    "Sub": (lambda a, b: jnp.subtract(*_same(a, b)), lambda x, y: x - y),
    "Mul": (lambda a, b: jnp.multiply(*_same(a, b)), lambda x, y: x * y),
    "Div": (_div, _int_div),
    "BitwiseAnd": (lambda a, b: jnp.bitwise_and(*_same(a, b)), lambda x, y: x & y),
    "BitwiseOr": (lambda a, b: jnp.bitwise_or(*_same(a, b)), lambda x, y: x | y),
    "BitwiseXor": (lambda a, b: jnp.bitwise_xor(*_same(a, b)), lambda x, y: x ^ y),
}
COMPARE = {
    "Equal": (jnp.equal, lambda x, y: x == y), "Less": (jnp.less, lambda x, y: x < y),
    "LessOrEqual": (jnp.less_equal, lambda x, y: x <= y), "Greater": (jnp.greater, lambda x, y: x > y),
    "GreaterOrEqual": (jnp.greater_equal, lambda x, y: x >= y),
    "And": (jnp.logical_and, lambda x, y: x and y), "Or": (jnp.logical_or, lambda x, y: x or y),
    "Xor": (jnp.logical_xor, lambda x, y: x != y),
}
for _name, (_fn, _py) in BINARY.items():
    register(_name, (lambda f: lambda node, a, b: f(a, b))(_fn), host=_host_binary(_py))
for _name, (_fn, _py) in COMPARE.items():
    register(_name, (lambda f: lambda node, a, b: f(*_same(a, b)))(_fn), host=_host_binary(_py, dtypes.bool_))


@op("Pow")
def _pow(node, x, y):
    x, y = arr(x), arr(y)
    if dtypes.is_float(dtypes.dtype(x.dtype)):
        return jnp.power(x, y.astype(x.dtype))
    if dtypes.is_float(dtypes.dtype(y.dtype)):
        return jnp.power(x.astype(y.dtype), y).astype(x.dtype)
    return jnp.power(x, y.astype(x.dtype))


@op("Mod", host=lambda node, a, b: host_map(
    (lambda x, y: math.fmod(x, y) if node.attr("fmod", 0) else x % y), None, a, b))
def _mod(node, a, b):
    a, b = _same(a, b)
    if node.attr("fmod", 0):
        return jnp.fmod(a, b)
    return jnp.remainder(a, b)


@op("BitShift")
def _bitshift(node, a, b):
    a, b = _same(a, b)
    return jnp.left_shift(a, b) if node.attr("direction") == "LEFT" else jnp.right_shift(a, b)


def _variadic(fn: Callable, mean: bool = False) -> Callable:
    def impl(node, *xs):
        xs = [x for x in xs if x is not None]
        first = arr(xs[0])
        out = first
        for x in xs[1:]:
            out = fn(out, astype(x, dtype_of(xs[0])))
        if len(xs) == 1:
            out = out + jnp.zeros((), out.dtype)
        return out / len(xs) if mean else out
    return impl


register("Sum", _variadic(jnp.add), host=lambda node, *xs: _host_fold(lambda x, y: x + y, xs))
register("Mean", _variadic(jnp.add, mean=True))
register("Max", _variadic(jnp.maximum), host=lambda node, *xs: _host_fold(max, xs))
register("Min", _variadic(jnp.minimum), host=lambda node, *xs: _host_fold(min, xs))


def _host_fold(fn: Callable, xs: tuple) -> HostTensor | None:
    xs = [x for x in xs if x is not None]
    if any(dtypes.is_float(x.dtype) for x in xs):
        return None  # NaN propagation: leave it to the device
    out = xs[0]
    for x in xs[1:]:
        out = host_map(fn, None, out, x)
        if out is None:
            return None
    return out


@op("Where", host=lambda node, c, a, b: host_map(lambda p, x, y: x if p else y, a.dtype, c, a, b))
def _where(node, c, a, b):
    return jnp.where(arr(c), *_same(a, b))


# ---------------------------------------------------------------- unary math and activations
def _hard_swish(x):
    return x * jnp.clip(x / 6 + 0.5, 0, 1)


UNARY = {
    "Abs": (jnp.abs, abs), "Neg": (jnp.negative, lambda v: -v), "Exp": (jnp.exp, None),
    "Log": (jnp.log, None), "Sqrt": (jnp.sqrt, None), "Reciprocal": (jnp.reciprocal, None),
    "Floor": (jnp.floor, math.floor), "Ceil": (jnp.ceil, math.ceil), "Round": (jnp.round, None),
    "Sin": (jnp.sin, None), "Cos": (jnp.cos, None), "Tan": (jnp.tan, None), "Asin": (jnp.arcsin, None),
    "Acos": (jnp.arccos, None), "Atan": (jnp.arctan, None), "Sinh": (jnp.sinh, None),
    "Cosh": (jnp.cosh, None), "Asinh": (jnp.arcsinh, None), "Acosh": (jnp.arccosh, None),
    "Atanh": (jnp.arctanh, None), "Erf": (lax.erf, None), "Sign": (jnp.sign, None),
    "Not": (jnp.logical_not, lambda v: not v), "BitwiseNot": (jnp.bitwise_not, None),
    "Relu": (nn.relu, None), "Sigmoid": (nn.sigmoid, None), "Tanh": (jnp.tanh, None),
    "Softplus": (nn.softplus, None), "Softsign": (nn.soft_sign, None), "HardSwish": (_hard_swish, None),
    "Mish": (lambda x: x * jnp.tanh(nn.softplus(x)), None), "Identity": (lambda x: x, lambda v: v),
}
for _name, (_fn, _py) in UNARY.items():
    register(_name, (lambda f: lambda node, x: f(arr(x)))(_fn),
             host=_host_unary(_py) if _py is not None else None)
register("Identity", lambda node, x: x)


def _float_attr(node, name: str, default: float) -> float:
    return float(node.attr(name, default))


ACTIVATIONS = {  # op -> fn(x, node)
    "LeakyRelu": lambda x, n: jnp.where(x >= 0, x, x * _float_attr(n, "alpha", 0.01)),
    "Elu": lambda x, n: jnp.where(x > 0, x, _float_attr(n, "alpha", 1.0) * jnp.expm1(x)),
    "Selu": lambda x, n: _float_attr(n, "gamma", 1.05070102214813232421875) * jnp.where(
        x > 0, x, _float_attr(n, "alpha", 1.67326319217681884765625) * jnp.expm1(x)),
    "Celu": lambda x, n: nn.celu(x, _float_attr(n, "alpha", 1.0)),
    "ThresholdedRelu": lambda x, n: jnp.where(x > _float_attr(n, "alpha", 1.0), x, jnp.zeros((), x.dtype)),
    "HardSigmoid": lambda x, n: jnp.clip(x * _float_attr(n, "alpha", 0.2) + _float_attr(n, "beta", 0.5), 0, 1),
    "Shrink": lambda x, n: _shrink(x, _float_attr(n, "lambd", 0.5), _float_attr(n, "bias", 0.0)),
    "Gelu": lambda x, n: fast_math.gelu(x, n.attr("approximate", "none") == "tanh"),
    "IsNaN": lambda x, n: jnp.isnan(x),
    "IsInf": lambda x, n: _isinf(x, n.attr("detect_positive", 1), n.attr("detect_negative", 1)),
}
for _name, _fn in ACTIVATIONS.items():
    register(_name, (lambda f: lambda node, x: f(arr(x), node))(_fn))


def _shrink(x, lambd: float, bias: float):
    lam = jnp.asarray(lambd, x.dtype) if dtypes.is_float(dtypes.dtype(x.dtype)) else lambd
    return jnp.where(x < -lam, x + bias, jnp.where(x > lam, x - bias, jnp.zeros((), x.dtype))).astype(x.dtype)


def _isinf(x, pos: int, neg: int):
    inf = jnp.isinf(x)
    if pos and neg:
        return inf
    if pos:
        return inf & (x > 0)
    if neg:
        return inf & (x < 0)
    return jnp.zeros(x.shape, bool)


@op("PRelu")
def _prelu(node, x, slope):
    x, slope = _same(x, slope)
    return jnp.where(x < 0, x * slope, x)


@op("Clip", since=1)
def _clip_attrs(node, x):
    x = arr(x)
    lo, hi = node.attr("min"), node.attr("max")
    return _clip(x, None if lo is None else jnp.asarray(lo, x.dtype), None if hi is None else jnp.asarray(hi, x.dtype))


@op("Clip", since=11)
def _clip_inputs(node, x, lo=None, hi=None):
    x = arr(x)
    return _clip(x, None if lo is None else astype(lo, x.dtype), None if hi is None else astype(hi, x.dtype))


def _clip(x, lo, hi):
    if lo is not None:
        x = jnp.where(x < lo, lo, x)
    if hi is not None:
        x = jnp.where(x > hi, hi, x)
    return x


# ---------------------------------------------------------------- casts
def _cast_to(x: Any, dt: dtypes.DType) -> Any:
    x = arr(x)
    src = dtypes.dtype(x.dtype)
    if dt.kind == "b" and src.kind != "b":
        return x != 0
    if src.kind == "f" and dt.kind in "iu" and src is not canon(dt):
        x = jnp.trunc(x)
    return astype(x, dt)


def _host_cast(node, x, like=None):
    dt = to_dtype(node.attr("to")) if like is None else like.dtype
    if x.dtype.kind == "f" and dt.kind in "iu" and any(math.isnan(v) or math.isinf(v) for v in x.values):
        return None
    conv = (lambda v: v != 0) if dt.kind == "b" else (lambda v: v)
    return HostTensor(dt, x.shape, values=[hostdata.coerce_scalar(conv(v), dt) for v in x.values])


op("Cast", host=_host_cast)(lambda node, x: _cast_to(x, to_dtype(node.attr("to"))))
op("CastLike", host=_host_cast)(lambda node, x, like: _cast_to(x, dtype_of(like)))
