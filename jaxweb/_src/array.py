"""`jaxweb.Array`: a concrete array on a device.

An Array is an abstract value plus either a device buffer read through a
ShapeTracker (so views share their base's buffer) or a scalar constant broadcast
to its shape (`zeros`, `full` and Python scalars cost no memory until needed).
Operators and methods are installed by the numpy layer (`array_methods`), on
Array and on Tracer alike. The buffer is freed when the last Array using it dies.
"""
from __future__ import annotations

import operator
from typing import Any

from . import core, hostdata
from .compiler.lazy import BufSym, ConstSym, Sym
from .compiler.shapetracker import ShapeTracker


class Array:
    """A JAX-style array. Immutable; use `.at[...]` for functional updates."""

    __slots__ = ("aval", "_buf", "_st", "_const", "_device", "__weakref__")
    __array_priority__ = 100

    def __init__(self, aval: core.ShapedArray, device: Any, buf: Any = None,
                 st: ShapeTracker | None = None, const: Any = None):
        self.aval, self._device, self._buf, self._const = aval, device, buf, const
        self._st = st if st is not None else ShapeTracker.from_shape(aval.shape)
        assert (buf is None) != (const is None) or aval.size == 0 or buf is not None

    # -------------------------------------------------------------- metadata
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)

    @property
    def device(self):
        return self._device

    def devices(self) -> set:
        return {self._device}

    @property
    def sharding(self):
        return self._device

    def is_fully_addressable(self) -> bool:
        return True

    def sym(self) -> Sym:
        if self._buf is None:
            return ConstSym(0 if self._const is None else self._const, self.dtype, self.shape)
        return BufSym(self._buf, self._st, self.dtype)

    # -------------------------------------------------------------- to host
    def block_until_ready(self) -> "Array":
        self._device.backend.synchronize()
        return self

    def _host_bytes(self) -> bytes | memoryview:
        if self._buf is None:
            v = 0 if self._const is None else self._const
            return hostdata.pack([v], self.dtype) * self.size
        from .dispatch import contiguous_buffer  # late: dispatch builds on this module
        return contiguous_buffer(self).read()

    def _host_flat(self) -> list:
        return hostdata.unpack(self._host_bytes(), self.dtype, self.size)

    def tolist(self) -> Any:
        return hostdata.nest(self._host_flat(), self.shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        arr = hostdata.to_numpy(self._host_bytes(), self.dtype, self.shape)
        return arr if dtype is None else arr.astype(dtype)

    def item(self, *args: Any) -> Any:
        if args:
            return self.reshape(-1)[args[0] if len(args) == 1 else args].item()  # type: ignore[attr-defined]
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._host_flat()[0]

    def copy_to_host_async(self) -> None:
        pass

    def __repr__(self) -> str:
        from .array_repr import array_repr
        return array_repr(self)

    def __str__(self) -> str:
        from .array_repr import array_str
        return array_str(self)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.item(), spec)
        return format(str(self), spec)

    # -------------------------------------------------------------- Python protocol
    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self.item())

    def __int__(self) -> int:
        self._check_scalar("int")
        return int(self.item())

    def __float__(self) -> float:
        self._check_scalar("float")
        return float(self.item())

    def __round__(self, ndigits: int | None = None) -> Any:
        from .. import numpy as jnp  # late: the numpy layer sits above
        if ndigits is None:
            return jnp.round(self).astype(jnp.int32)
        return jnp.round(self, ndigits)

    def __complex__(self) -> complex:
        return complex(float(self))

    def __index__(self) -> int:
        if self.dtype.kind not in "iub":
            raise TypeError(f"Only integer scalar arrays can be converted to a scalar index; "
                            f"got {self.dtype.name}{list(self.shape)}")
        self._check_scalar("__index__")
        return operator.index(self.item())

    def _check_scalar(self, what: str) -> None:
        if self.ndim != 0:  # as JAX (numpy 2): only 0-d arrays convert
            raise TypeError(f"Only scalar arrays can be converted to Python scalars; "
                            f"got arr.ndim={self.ndim} ({what})")

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:  # raised by iter() itself, as numpy and JAX do
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))  # type: ignore[index]

    def __hash__(self):
        raise TypeError("unhashable type: 'jaxweb.Array'")

    def __reduce__(self):
        np = hostdata.numpy_or_none()
        if np is None:
            raise TypeError("pickling jaxweb arrays needs numpy")
        from .numpy.creation import asarray
        return (asarray, (self.__array__(),))


class _ArrayMeta(type):
    def __instancecheck__(cls, x: Any) -> bool:
        return isinstance(x, (Array, core.Tracer))


class ArrayType(metaclass=_ArrayMeta):
    """`jaxweb.Array` as users see it: concrete arrays and tracers are both instances,
    as with `jax.Array`, so `isinstance(x, jax.Array)` works inside transformations."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("jaxweb.Array cannot be instantiated; use jaxweb.numpy.asarray")
