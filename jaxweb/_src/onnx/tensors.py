"""ONNX tensors on the host: TensorProto -> HostTensor, and HostTensor -> jaxweb Array.

A HostTensor is a small tensor held in Python (dtype, shape, little-endian bytes or a flat
list of Python scalars). Initializers, Constant nodes and the shape arithmetic that graphs
compute at run time (Shape -> Gather -> Concat -> Reshape) stay HostTensors, so under `jit`
they are static values: a Reshape reads its target shape from one at trace time. A
HostTensor keeps its ONNX dtype (int64 stays int64); it becomes a device array, in jaxweb's
canonical dtype (int32 when x64 is off, as in JAX), only where an operator needs one.
"""
from __future__ import annotations

import math
import os
import struct
from typing import Any, Sequence

from jaxweb._src import dtypes, hostdata
from jaxweb._src.array import array_from_bytes

from .protobuf import decode
from .registry import Unsupported
from .schema import TENSOR

#: TensorProto.DataType -> jaxweb dtype (None: a type jaxweb has no arrays of)
DTYPES = {1: dtypes.float32, 2: dtypes.uint8, 3: dtypes.int8, 4: dtypes.uint16, 5: dtypes.int16,
          6: dtypes.int32, 7: dtypes.int64, 9: dtypes.bool_, 10: dtypes.float16, 11: dtypes.float64,
          12: dtypes.uint32, 13: dtypes.uint64, 14: dtypes.complex64, 15: dtypes.complex128,
          16: dtypes.bfloat16}
DTYPE_NAMES = {0: "undefined", 8: "string", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2",
               20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0",
               25: "uint2", 26: "int2", **{k: v.name for k, v in DTYPES.items()}}
CODE_OF = {v: k for k, v in DTYPES.items()}
# which typed field holds each dtype's values, and how they are stored there
_TYPED_FIELD = {"float32": "float_data", "complex64": "float_data", "float64": "double_data",
                "complex128": "double_data", "int64": "int64_data", "uint32": "uint64_data",
                "uint64": "uint64_data"}
_BITS16 = ("float16", "bfloat16")


def onnx_dtype(code: int, what: str = "tensor") -> dtypes.DType:
    """The jaxweb dtype of an ONNX element type, or a clear error for one it lacks."""
    dt = DTYPES.get(code)
    if dt is None:
        raise Unsupported(f"jaxweb.onnx: {what} has element type "
                                  f"{DTYPE_NAMES.get(code, code)}, which jaxweb has no arrays of")
    return dt


class HostTensor:
    """A tensor held on the host: `dtype` (its ONNX dtype as a jaxweb DType), `shape`, and
    its elements as little-endian `data` bytes and/or a flat list `values`."""
    __slots__ = ("dtype", "shape", "_data", "_values", "_array")

    def __init__(self, dtype: dtypes.DType, shape: Sequence[int], data: Any = None, values: list | None = None):
        self.dtype, self.shape = dtype, tuple(int(d) for d in shape)
        self._data, self._values, self._array = data, values, None
        if data is None and values is None:
            raise ValueError("a HostTensor needs data or values")

    @classmethod
    def of(cls, values: Any, dtype: dtypes.DType, shape: Sequence[int] | None = None) -> "HostTensor":
        """From Python scalars (nested lists or a flat list with `shape`), coerced to `dtype`."""
        if shape is None:
            shape, flat = hostdata.flatten_nested(values)
        else:
            flat = list(values)
        return cls(dtype, shape, values=[hostdata.coerce_scalar(v, dtype) for v in flat])

    @classmethod
    def from_value(cls, x: Any, dtype: dtypes.DType) -> "HostTensor":
        """From an array-like (a numpy or jaxweb array, nested lists, a scalar)."""
        if hasattr(x, "tolist") and hasattr(x, "shape"):
            shape, flat = tuple(x.shape), x.reshape(-1).tolist() if len(x.shape) != 1 else x.tolist()
            return cls(dtype, shape, values=[hostdata.coerce_scalar(v, dtype) for v in flat])
        return cls.of(x, dtype)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def values(self) -> list:
        """The elements as a flat list of Python scalars, in C order."""
        if self._values is None:
            self._values = hostdata.unpack(self._data, self.dtype, self.size)
        return self._values

    @property
    def data(self) -> bytes | memoryview:
        if self._data is None:
            self._data = hostdata.pack(self._values, self.dtype)
        return self._data

    def tolist(self) -> Any:
        return hostdata.nest(self.values, self.shape) if self.shape else self.values[0]

    def ints(self) -> list[int]:
        return [int(v) for v in self.values]

    def array(self) -> Any:
        """The tensor as a device array (made once, then shared)."""
        if self._array is None:
            self._array = array_from_bytes(self.data, self.dtype, self.shape)
        return self._array

    def __repr__(self) -> str:
        vals = self.values if self.size <= 8 else self.values[:8] + ["..."]
        return f"HostTensor({self.dtype.name}, {self.shape}, {vals})"


def _typed_values(t: dict, dt: dtypes.DType, count: int) -> bytes:
    """The bytes of a tensor whose elements sit in one of TensorProto's typed fields."""
    field = _TYPED_FIELD.get(dt.name, "int32_data")
    vals = t.get(field, [])
    want = count * (2 if dt.kind == "c" else 1)
    if len(vals) != want:
        raise ValueError(f"tensor {t.get('name', '')!r}: {len(vals)} values in {field} for "
                         f"{count} elements of {dt.name}")
    if dt.name in _BITS16:
        return struct.pack(f"<{count}H", *(v & 0xFFFF for v in vals))
    if dt.kind == "c":
        return struct.pack(f"<{want}{dtypes.real_part_dtype(dt).fmt}", *vals)
    return hostdata.pack(vals, dt)


def _external(t: dict, base_dir: str | None, nbytes: int) -> memoryview:
    """Bytes of a tensor stored in an external data file beside the model."""
    info = {e["key"]: e["value"] for e in t.get("external_data", [])}
    name = t.get("name", "")
    if base_dir is None:
        raise ValueError(f"tensor {name!r} keeps its data in an external file ({info.get('location')!r}): "
                         "load the model from a path, or pass base_dir=")
    location = os.path.normpath(info.get("location", ""))
    if location.startswith("..") or os.path.isabs(location):
        raise ValueError(f"tensor {name!r}: external data location {location!r} is outside the model's folder")
    offset, length = int(info.get("offset", 0)), int(info.get("length", nbytes))
    with open(os.path.join(base_dir, location), "rb") as f:
        f.seek(offset)
        data = f.read(length)
    if len(data) != nbytes:
        raise ValueError(f"tensor {name!r}: {len(data)} bytes in {location!r}, expected {nbytes}")
    return memoryview(data)


def from_proto(t: dict | bytes, base_dir: str | None = None) -> HostTensor:
    """A HostTensor from a decoded (or encoded) TensorProto; raw, typed and external data."""
    if not isinstance(t, dict):
        t = decode(t, TENSOR)
    name = t.get("name", "")
    dt = onnx_dtype(t.get("data_type", 0), f"tensor {name!r}")
    shape = tuple(t.get("dims", []))
    count = math.prod(shape)
    nbytes = count * dt.itemsize
    if t.get("data_location", 0) == 1:
        data = _external(t, base_dir, nbytes)
    elif "raw_data" in t:
        data = t["raw_data"]
        if len(data) != nbytes:
            raise ValueError(f"tensor {name!r}: raw_data has {len(data)} bytes, {shape} {dt.name} needs {nbytes}")
    else:
        data = _typed_values(t, dt, count)
    return HostTensor(dt, shape, data=data)
