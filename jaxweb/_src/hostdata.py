"""Host-side data: Python values <-> little-endian bytes, with or without numpy.

In Pyodide there is no numpy, so arrays enter and leave devices through the
`array` and `struct` modules. When numpy is importable and the value is a numpy
array, its buffer is used directly.
"""
from __future__ import annotations

import array as _array
import math
import struct
import sys
from typing import Any, Sequence

from . import dtypes
from .dtypes import DType

_LITTLE = sys.byteorder == "little"
_ARRAY_CODES = {"b": "b", "B": "B", "h": "h", "H": "H", "i": "i", "I": "I", "f": "f", "d": "d",
                "q": "q", "Q": "Q"}


_NUMPY: list = []  # [numpy or None] once looked up


def numpy_or_none():
    """numpy, or None where it is not installed (Pyodide). Looked up once: a failing import
    searches sys.path every time (4 ms per call in Pyodide, paid per scalar made)."""
    if not _NUMPY:
        try:
            import numpy
            _NUMPY.append(numpy)
        except ImportError:  # Pyodide without numpy
            _NUMPY.append(None)
    return _NUMPY[0]


# ---------------------------------------------------------------- nested lists
def flatten_nested(x: Any) -> tuple[tuple[int, ...], list]:
    """Shape and flat element list of nested sequences; ragged input is an error."""
    if not isinstance(x, (list, tuple)):
        return (), [x]
    if len(x) == 0:
        return (0,), []
    parts = [flatten_nested(e) for e in x]
    shape0 = parts[0][0]
    for s, _ in parts:
        if s != shape0:
            raise ValueError(
                "setting an array element with a sequence. The requested array has an "
                f"inhomogeneous shape after 1 dimensions: sub-shapes {shape0} and {s} differ.")
    flat: list = []
    for _, f in parts:
        flat.extend(f)
    return (len(x),) + shape0, flat


def nest(flat: Sequence, shape: Sequence[int]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = 1
    for d in shape[1:]:
        step *= d
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


# ---------------------------------------------------------------- scalars
def bf16_bits(x: float) -> int:
    """Round a Python float to bfloat16 (round to nearest even) and return its bits."""
    u = struct.unpack("<I", struct.pack("<f", _to_f32(x)))[0]
    if math.isnan(x):
        return ((u >> 16) | 0x40) & 0xFFFF
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]


def _to_f32(x: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _to_f16(x: float) -> float:
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def coerce_scalar(v: Any, dt: DType) -> Any:
    """A Python value as stored by `dt` (wrapping ints, rounding floats)."""
    if dt.kind == "b":
        return bool(v)
    if dt.kind in "iu":
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                return 0
            v = int(v)
        v = int(v)
        bits = dt.itemsize * 8
        v &= (1 << bits) - 1
        if dt.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v
    if dt.kind == "c":
        v = complex(v)
        part = dtypes.real_part_dtype(dt)
        return complex(coerce_scalar(v.real, part), coerce_scalar(v.imag, part))
    v = float(v)
    if dt.name == "float32":
        return _to_f32(v)
    if dt.name == "float16":
        return _to_f16(v)
    if dt is dtypes.bfloat16:
        return bf16_value(bf16_bits(v))
    return v


# ---------------------------------------------------------------- packing
def pack(flat: Sequence, dt: DType) -> bytes:
    """Little-endian bytes of Python scalars in dtype `dt`."""
    if dt is dtypes.float0:  # the tangent type of integers: zero bytes per element
        return b""
    if dt is dtypes.bfloat16:
        return _array_bytes("H", [bf16_bits(float(v)) for v in flat])
    if dt.kind == "b":
        return bytes(1 if v else 0 for v in flat)
    if dt.name == "float16":
        return struct.pack(f"<{len(flat)}e", *(_to_f16(float(v)) for v in flat))
    if dt.kind == "c":  # interleaved (re, im) pairs of the part dtype
        part = dtypes.real_part_dtype(dt)
        pairs = [complex(v) for v in flat]
        return _array_bytes(_ARRAY_CODES[part.fmt], [x for z in pairs for x in (z.real, z.imag)])
    vals = [coerce_scalar(v, dt) for v in flat] if dt.kind in "iu" else [float(v) for v in flat]
    return _array_bytes(_ARRAY_CODES[dt.fmt], vals)


def _array_bytes(code: str, vals: list) -> bytes:
    a = _array.array(code, vals)
    if not _LITTLE:
        a.byteswap()
    return a.tobytes()


def unpack(data: bytes | memoryview, dt: DType, count: int) -> list:
    """Python scalars from little-endian bytes."""
    if count == 0:
        return []
    if dt is dtypes.float0:
        return [b""] * count
    n = count * dt.itemsize  # struct reads a memoryview in place: no bytes() copy of a readback
    data = data[:n] if isinstance(data, bytes) else memoryview(data).cast("B")[:n]
    if dt.kind == "b":
        return [b != 0 for b in data]
    if dt is dtypes.bfloat16:
        return [bf16_value(b) for b in struct.unpack(f"<{count}H", data)]
    if dt.kind == "c":
        parts = struct.unpack(f"<{2 * count}{dtypes.real_part_dtype(dt).fmt}", data)
        return [complex(parts[2 * i], parts[2 * i + 1]) for i in range(count)]
    code = _ARRAY_CODES.get(dt.fmt)
    if code is None:  # float16: struct's 'e'
        return list(struct.unpack(f"<{count}{dt.fmt}", data))
    a = _array.array(code)  # its tolist builds the list from the buffer: no tuple first (~20 % faster)
    a.frombytes(data)
    if not _LITTLE:
        a.byteswap()
    return a.tolist()


def f32_to_bf16_bits(x: Any) -> Any:
    """bfloat16 bits (uint16) of float32 numpy values, rounded to nearest even; NaN stays NaN."""
    np = numpy_or_none()
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), rounded)


def from_numpy(x: Any, dt: DType) -> bytes:
    """Bytes of a numpy array converted to `dt` (bfloat16 rounded to nearest even)."""
    np = numpy_or_none()
    x = np.asarray(x)
    if dt is dtypes.bfloat16:
        if x.dtype.name == "bfloat16":
            return np.ascontiguousarray(x).view(np.uint16).astype("<u2").tobytes()
        return f32_to_bf16_bits(x.astype(np.float32)).astype("<u2").tobytes()
    if x.dtype.kind in "iu" and dt.kind in "iu":
        x = x.astype(np.int64) if x.dtype.kind == "i" or x.dtype.itemsize < 8 else x
    return np.ascontiguousarray(x.astype(np.dtype(dt.name).newbyteorder("<"))).tobytes()


def to_numpy(data: bytes | memoryview, dt: DType, shape: tuple[int, ...]) -> Any:
    np = numpy_or_none()
    if dt is dtypes.float0:
        return np.zeros(shape, dtype=[("float0", "V")])
    if dt is dtypes.bfloat16:
        bits = np.frombuffer(data, dtype="<u2", count=_prod(shape))
        try:
            import ml_dtypes
            return bits.view(ml_dtypes.bfloat16).reshape(shape).copy()
        except ImportError:
            return (bits.astype(np.uint32) << 16).view(np.float32).reshape(shape).copy()
    return np.frombuffer(data, dtype=np.dtype(dt.name).newbyteorder("<"), count=_prod(shape)).reshape(shape).copy()


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
