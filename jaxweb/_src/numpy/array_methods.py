"""Operators and methods of Array and Tracer, forwarded to jaxweb.numpy functions.

Both concrete Arrays and tracers get the same methods, so user code behaves the
same inside and outside transformations. The tables below are data: an operator
name maps to the jnp function that implements it; lookups happen at call time.
"""
from __future__ import annotations

from typing import Any

import jaxweb.numpy as jnp  # the public namespace: a method may name a family loaded on first use

from .. import core, dtypes
from .util import is_arraylike
from . import array_api as _array_api, indexing as _indexing, shape as _shape, ufuncs as _ufuncs
from .indexing import getitem, _IndexUpdateHelper
from ..lax import elementwise as lax
from ..array import Array

_BINARY_OPS = {  # dunder -> jnp function name
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift", "divmod": "divmod",
}
_COMPARISONS = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                "eq": "equal", "ne": "not_equal"}
_UNARY_OPS = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "invert"}
_METHODS = {  # method -> jnp function taking the array first
    "all": "all", "any": "any", "argmax": "argmax", "argmin": "argmin", "argsort": "argsort",
    "astype": "astype", "clip": "clip", "conj": "conj", "conjugate": "conjugate",
    "cumprod": "cumprod", "cumsum": "cumsum", "diagonal": "diagonal", "dot": "dot",
    "flatten": "ravel", "max": "max", "mean": "mean", "min": "min", "nonzero": "nonzero",
    "prod": "prod", "ptp": "ptp", "ravel": "ravel", "repeat": "repeat", "round": "round",
    "searchsorted": "searchsorted", "sort": "sort", "squeeze": "squeeze", "std": "std",
    "sum": "sum", "swapaxes": "swapaxes", "take": "take", "trace": "trace", "var": "var",
    "copy": "copy", "argpartition": "argpartition",
}


def _binary(fname: str, reflected: bool):
    def op(self, other):
        if not is_arraylike(other):
            return NotImplemented
        fn = getattr(jnp, fname)
        return fn(other, self) if reflected else fn(self, other)
    return op


def _unary(fname: str):
    return lambda self: getattr(jnp, fname)(self)


def _method(fname: str):
    def m(self, *args, **kwargs):
        return getattr(jnp, fname)(self, *args, **kwargs)
    m.__name__ = fname
    return m


def _reshape(self, *shape, order: str = "C"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _shape.reshape(self, shape, order=order)


def _transpose(self, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)) or axes == (None,):
        axes = axes[0]
    return _shape.transpose(self, axes or None)


def _compress(self, condition, axis=None, **kwargs):
    return _indexing.compress(condition, self, axis, **kwargs)


def _choose(self, choices, mode="raise"):
    return _indexing.choose(self, choices, mode=mode)


def _getitem(self, idx):
    return getitem(self, idx)


def _at(self):
    return _IndexUpdateHelper(self)


_UINT = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def _as_uint(x: Any) -> Any:
    """x's bits as the unsigned type of its width (bool as uint8)."""
    dt = core.get_aval(x).dtype
    u = dtypes.dtype(_UINT[dt.itemsize])
    if dt.kind == "b":
        return lax.convert_element_type(x, u)
    return x if dt is u else lax.bitcast_convert_type(x, u)


def _from_uint(u: Any, dt: Any) -> Any:
    if dt.kind == "b":
        return lax.ne(u, lax.full_like(u, 0))
    return u if core.get_aval(u).dtype is dt else lax.bitcast_convert_type(u, dt)


def _view(self, dtype: Any = None, type: Any = None):
    """`Array.view`: the same bytes read as `dtype` (little-endian, as numpy on every
    platform jaxweb runs on); a different item size rescales the last axis."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    src, dst = core.get_aval(self).dtype, dtypes.dtype(dtype)
    if dst is src:
        return self
    if src.itemsize == dst.itemsize:
        return _from_uint(_as_uint(self), dst)
    if core.get_aval(self).ndim == 0:
        raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
    u = _as_uint(self)
    small, big = sorted((src.itemsize, dst.itemsize))
    ratio, bits = big // small, small * 8
    shape = core.get_aval(self).shape
    if src.itemsize > dst.itemsize:  # split each element into `ratio` little-endian pieces
        part = dtypes.dtype(_UINT[small])
        pieces = [lax.convert_element_type(
            _ufuncs.bitwise_and(_ufuncs.right_shift(u, bits * i), (1 << bits) - 1), part) for i in range(ratio)]
        out = _shape.reshape(_shape.stack(pieces, axis=-1), shape[:-1] + (shape[-1] * ratio,))
        return _from_uint(out, dst)
    if shape[-1] % ratio:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the total "
                         "size in bytes of the last axis of the array.")
    whole = dtypes.dtype(_UINT[big])
    groups = _shape.reshape(u, shape[:-1] + (shape[-1] // ratio, ratio))
    acc = None
    for i in range(ratio):
        piece = _ufuncs.left_shift(lax.convert_element_type(groups[..., i], whole), bits * i)
        acc = piece if acc is None else _ufuncs.bitwise_or(acc, piece)
    return _from_uint(acc, dst)


def _mT(self):
    return _shape.matrix_transpose(self)


def install(cls: type) -> None:
    for dunder, fname in _BINARY_OPS.items():
        setattr(cls, f"__{dunder}__", _binary(fname, False))
        setattr(cls, f"__r{dunder}__", _binary(fname, True))
    for dunder, fname in _COMPARISONS.items():
        setattr(cls, f"__{dunder}__", _binary(fname, False))
    for dunder, fname in _UNARY_OPS.items():
        setattr(cls, f"__{dunder}__", _unary(fname))
    for name, fname in _METHODS.items():
        setattr(cls, name, _method(fname))
    cls.reshape = _reshape
    cls.transpose = _transpose
    cls.compress = _compress
    cls.view = _view
    cls.choose = _choose
    cls.__getitem__ = _getitem
    cls.at = property(_at)
    cls.T = property(lambda self: _shape.transpose(self))
    cls.mT = property(_mT)
    cls.real = property(lambda self: _ufuncs.real(self))
    cls.imag = property(lambda self: _ufuncs.imag(self))
    cls.__array_priority__ = 100


def _round(self, ndigits: int | None = None) -> Any:
    """`round(x)`: Python's rounding to an int32 array; `round(x, n)` keeps the dtype."""
    if ndigits is None:
        return jnp.round(self).astype(dtypes.int32)
    return jnp.round(self, ndigits)


def install_all() -> None:
    install(Array)
    _array_api.install(Array, jnp)
    _array_api.install(core.Tracer, jnp)
    Array.__round__ = _round
    install(core.Tracer)
    core.Tracer.__hash__ = Array.__hash__  # arrays and tracers are unhashable
