"""`jaxweb.Array`: a concrete array on a device.

An Array is an abstract value plus a node of the lazy graph (`compiler.graph`):
a device buffer read through a ShapeTracker (so views share their base's buffer),
a scalar constant broadcast to its shape (`zeros`, `full` and Python scalars cost
no memory until needed), or a pending computation queued on its device
(`execution`), computed at the next flush. Operators and methods are installed by
the numpy layer (`array_methods`), on Array and on Tracer alike. The buffer is
freed when the last Array (or queued computation) using it dies.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

from . import core, dtypes, execution, host, hostdata
from .device import Buffer, default_device
from .compiler import graph
from .compiler.graph import Node
from .compiler.shapetracker import ShapeTracker
from .array_repr import array_repr, array_str


#: constants of at most this many elements are written from the host when a buffer is
#: needed (a jitted call's scalar argument): cheaper than a kernel, and never a compile
_UPLOADED_CONST = 64


class Array:
    """A JAX-style array. Immutable; use `.at[...]` for functional updates."""

    __slots__ = ("aval", "_node", "_device", "__weakref__")
    __array_priority__ = 100

    def __init__(self, aval: core.ShapedArray, device: Any, node: Node):
        self.aval, self._device, self._node = aval, device, node
        if not graph.is_realized(node):
            execution.enqueue(device, self)

    @staticmethod
    def realized_all(avals: Sequence[core.ShapedArray], device: Any, nodes: Sequence[Node]) -> list["Array"]:
        """Arrays of values already in memory or constant (`graph.is_realized(node)`: a jitted
        call's outputs), made without asking whether they must be queued: one call for all."""
        out, new = [], Array.__new__
        for aval, node in zip(avals, nodes):
            a = new(Array)
            a.aval, a._device, a._node = aval, device, node
            out.append(a)
        return out

    @staticmethod
    def from_buffer(aval: core.ShapedArray, buf: Any, st: ShapeTracker | None = None) -> "Array":
        """An Array reading device buffer `buf` through `st` (contiguous if None)."""
        st = st if st is not None else ShapeTracker.from_shape((buf.size,)).reshape(aval.shape)
        return Array(aval, buf.device, graph.view(graph.buffer(buf), st))

    @staticmethod
    def from_numpy(a: Any, dtype: Any, device: Any) -> "Array":
        """A new Array holding numpy array `a` stored as `dtype` (already canonical)."""
        aval = core.ShapedArray(a.shape, dtype)
        buf = Buffer(device, aval.size, dtype)
        if aval.size:
            buf.write(hostdata.from_numpy(a, dtype))
        return Array.from_buffer(aval, buf)

    def to_device(self, device: Any, /, stream: Any = None) -> "Array":
        """This array's value on `device` (itself if it is there already; a copy through the host).
        `stream` is the array API's, which JAX does not implement either."""
        if stream is not None:
            raise NotImplementedError("stream argument of array.to_device()")
        if device is self._device:
            return self
        if self.is_const():
            return Array.constant(self.aval, device, self._const)
        buf = Buffer(device, self.size, self.dtype)
        if self.nbytes:
            buf.write(self._host_bytes())
        return Array.from_buffer(self.aval, buf)

    @staticmethod
    def constant(aval: core.ShapedArray, device: Any, value: Any) -> "Array":
        return Array(aval, device, graph.const(value, aval.dtype, aval.shape))

    # -------------------------------------------------------------- representation
    def delete(self) -> None:
        """Drop this array's value (as JAX's `Array.delete`; donation does it too)."""
        self._node = None

    def is_deleted(self) -> bool:
        return self._node is None

    def _deleted_error(self) -> RuntimeError:
        return RuntimeError(f"Array has been deleted with shape={self.aval.str_short(False)}.")

    def realized_node(self) -> Node:
        """The node of this array's value in memory (or a constant), computing it if pending."""
        if self._node is None:
            raise self._deleted_error()
        if not graph.is_realized(self._node):
            return execution.realize(self._device, self)
        return self._node

    def is_const(self) -> bool:
        return self._node is not None and self._node.op == "const"

    def constant_scalar(self) -> "Array | None":
        """The 0-d constant this array is filled with, if it is a constant (not 0-d, not float0):
        jaxpr tracing stages it as a broadcast of that scalar, as JAX does, not as a buffer."""
        if not (self.is_const() and self.ndim > 0 and self.dtype.name != "float0"):
            return None
        return Array.constant(self.aval.update(shape=()), self.device, self._const)

    @property
    def _const(self) -> Any:
        return self._node.arg if self._node.op == "const" else None

    @property
    def _buf(self) -> Any:
        """The device Buffer holding the value (None for constants), computed if pending."""
        n = self.realized_node()
        if n.op == "buffer":
            return n.arg
        return n.src[0].arg if n.op == "view" else None

    @property
    def _st(self) -> ShapeTracker:
        n = self.realized_node()
        if n.op == "view":
            return n.arg
        return ShapeTracker.from_shape(n.shape)

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

    # -------------------------------------------------------------- to host
    def block_until_ready(self) -> "Array":
        self.realized_node()
        self._device.backend.synchronize()
        return self

    def _host_bytes(self) -> bytes | memoryview:
        if self.is_const():
            return hostdata.pack([self._const], self.dtype) * self.size
        return self.contiguous_buffer().read()

    def contiguous_buffer(self) -> Any:
        """A buffer holding exactly this array's elements in row-major order (a copy if it is
        a view or a constant; the array then reads the copy)."""
        n = self.realized_node()
        if self.nbytes == 0:  # nothing to hold (empty, or float0): no kernel either
            if n.op == "buffer":
                return n.arg
            buf = Buffer(self._device, self.size, self.dtype)
            self._node = graph.view(graph.buffer(buf), ShapeTracker.from_shape((buf.size,)).reshape(self.shape))
            return buf
        if n.op == "const" and self.size <= _UPLOADED_CONST:  # a scalar argument: written, no kernel
            buf = Buffer(self._device, self.size, self.dtype)
            buf.write(self._host_bytes())
            self._node = graph.view(graph.buffer(buf), ShapeTracker.from_shape((buf.size,)).reshape(self.shape))
            return buf
        if self.held_buffer() is None:  # a view of part of a buffer, or a constant
            copied = execution.copied_slice(self._device, n) if n.op == "view" else None
            self._node = copied or execution.evaluate(self._device, [n], materialize=True)[0]
        return self.held_buffer()

    def held_buffer(self) -> Any:
        """The buffer this array already holds its elements in, whole and in row-major order
        (its node is the buffer or a contiguous view of all of it), else None: nothing is
        computed or copied (a jitted call's quick path for a training loop's arguments)."""
        return held_buffers((self,), self._device)[0]

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

    async def async_value(self) -> Any:
        """`tolist()` that awaits the device instead of blocking on it.

        A webgpu readback is a JS promise: `tolist()`/`print` wait for it through JSPI, which
        only exists when Python was entered with `runPythonAsync` (JupyterLite, PyScript). This
        coroutine works everywhere, plain `runPython` included (jaxweb-only: JAX has no async
        readback)."""
        return await host.async_value(self)

    async def async_block_until_ready(self) -> "Array":
        """`block_until_ready()` that awaits the device instead of blocking on it."""
        return await host.async_block_until_ready(self)

    def __repr__(self) -> str:
        return array_repr(self)

    def __str__(self) -> str:
        return array_str(self)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:  # an empty spec prints the scalar as str does (numpy's scalar text)
            return format(self.item(), spec) if spec else str(self)
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

    def __complex__(self) -> complex:
        return complex(self.item())

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
        from .host_arrays import from_host  # noqa: PLC0415  (host_arrays builds on this module)
        return (from_host, (self.__array__(),))


class _ArrayMeta(type):
    def __instancecheck__(cls, x: Any) -> bool:
        return isinstance(x, (Array, core.Tracer))


class ArrayType(metaclass=_ArrayMeta):
    """`jaxweb.Array` as users see it: concrete arrays and tracers are both instances,
    as with `jax.Array`, so `isinstance(x, jax.Array)` works inside transformations."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("jaxweb.Array cannot be instantiated; use jaxweb.numpy.asarray")


def array_from_bytes(data: bytes | memoryview, dtype: dtypes.DType, shape: Sequence[int]) -> Array:
    """A device array of `shape` and `dtype` holding `data` (little-endian, C order)."""
    shape = tuple(int(d) for d in shape)
    target = dtypes.canonicalize_dtype(dtype)
    size = math.prod(shape)
    if target is not dtype:  # e.g. float64 data with x64 off: convert on the host
        flat = hostdata.unpack(data, dtype, size)
        data = hostdata.pack([hostdata.coerce_scalar(v, target) for v in flat], target)
    device = default_device()
    buf = Buffer(device, size, target)
    if size:
        buf.write(data)
    return Array.from_buffer(core.ShapedArray(shape, target), buf)


def held_buffers(xs: Sequence[Any], device: Any) -> list:
    """`x.held_buffer()` of each of `xs` that is an Array on `device`, None for the others: a
    jitted call's quick path for its arguments (a training step's few dozen), in one call."""
    whole, out = graph.whole_buffer, []
    for x in xs:
        n = x._node if type(x) is Array and x._device is device else None
        b = whole(n) if n is not None else None
        out.append(b.arg if b is not None else None)
    return out
