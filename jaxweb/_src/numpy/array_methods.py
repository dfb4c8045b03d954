"""Operators and methods of Array and Tracer, forwarded to jaxweb.numpy functions.

Both concrete Arrays and tracers get the same methods, so user code behaves the
same inside and outside transformations. The tables below are data: an operator
name maps to the jnp function that implements it; lookups happen at call time.
"""
from __future__ import annotations

import importlib
from typing import Any

from .. import core

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


def _jnp() -> Any:
    return importlib.import_module("jaxweb.numpy")


def _accepts(x: Any) -> bool:
    from .util import is_arraylike
    return is_arraylike(x)


def _binary(fname: str, reflected: bool):
    def op(self, other):
        if not _accepts(other):
            return NotImplemented
        fn = getattr(_jnp(), fname)
        return fn(other, self) if reflected else fn(self, other)
    return op


def _unary(fname: str):
    return lambda self: getattr(_jnp(), fname)(self)


def _method(fname: str):
    def m(self, *args, **kwargs):
        return getattr(_jnp(), fname)(self, *args, **kwargs)
    m.__name__ = fname
    return m


def _reshape(self, *shape, order: str = "C"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _jnp().reshape(self, shape, order=order)


def _transpose(self, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)) or axes == (None,):
        axes = axes[0]
    return _jnp().transpose(self, axes or None)


def _compress(self, condition, axis=None, **kwargs):
    return _jnp().compress(condition, self, axis, **kwargs)


def _choose(self, choices, mode="raise"):
    return _jnp().choose(self, choices, mode=mode)


def _getitem(self, idx):
    from .indexing import getitem
    return getitem(self, idx)


def _at(self):
    from .indexing import _IndexUpdateHelper
    return _IndexUpdateHelper(self)


def _mT(self):
    return _jnp().matrix_transpose(self)


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
    cls.choose = _choose
    cls.__getitem__ = _getitem
    cls.at = property(_at)
    cls.T = property(lambda self: _jnp().transpose(self))
    cls.mT = property(_mT)
    cls.real = property(lambda self: _jnp().real(self))
    cls.imag = property(lambda self: _jnp().imag(self))
    cls.__array_priority__ = 100


def install_all() -> None:
    from ..array import Array
    install(Array)
    install(core.Tracer)
    core.Tracer.__hash__ = Array.__hash__  # arrays and tracers are unhashable
