"""The .npy format (numpy's `lib.format`, version 1.0-3.0) without numpy.

Writing reproduces numpy's bytes exactly: the header dict with sorted keys, the spare
room for a growing first axis, space padding to a 64-byte boundary. Reading accepts
what numpy writes (C or Fortran order, either byte order) for the dtypes jaxweb has;
bfloat16 travels as numpy's opaque `'<V2'`, as `jax.numpy.save` writes it.
"""
from __future__ import annotations

import array as _array
import ast
import math
import struct
import sys
from typing import Any

from .. import dtypes
from .rawarrays import array_bytes, array_from_bytes, format_error
from ..lax.structural import transpose

MAGIC = b"\x93NUMPY"
ARRAY_ALIGN = 64
GROWTH_AXIS_MAX_DIGITS = 21
MAX_HEADER_SIZE = 10000  # numpy's default: longer headers are refused as unsafe
HEADER_SIZE_INFO = {(1, 0): ("<H", "latin1"), (2, 0): ("<I", "latin1"), (3, 0): ("<I", "utf8")}

#: numpy descr (byte order stripped) -> jaxweb dtype
DESCR_TO_DTYPE = {"b1": dtypes.bool_, "i1": dtypes.int8, "u1": dtypes.uint8, "i2": dtypes.int16,
                  "u2": dtypes.uint16, "i4": dtypes.int32, "u4": dtypes.uint32, "i8": dtypes.int64,
                  "u8": dtypes.uint64, "f2": dtypes.float16, "f4": dtypes.float32, "f8": dtypes.float64,
                  "V2": dtypes.bfloat16}
DTYPE_TO_DESCR = {dt: ("|" if dt.itemsize == 1 else "<") + d for d, dt in DESCR_TO_DTYPE.items()}


def _wrap_header(header: str, version: tuple[int, int]) -> bytes:
    fmt, encoding = HEADER_SIZE_INFO[version]
    raw = header.encode(encoding)
    hlen = len(raw) + 1
    padlen = ARRAY_ALIGN - ((len(MAGIC) + 2 + struct.calcsize(fmt) + hlen) % ARRAY_ALIGN)
    try:
        prefix = MAGIC + bytes(version) + struct.pack(fmt, hlen + padlen)
    except struct.error:
        raise ValueError(f"Header length {hlen} too big for version={version}") from None
    return prefix + raw + b" " * padlen + b"\n"


def header_bytes(descr: str, shape: tuple[int, ...], fortran_order: bool = False) -> bytes:
    """numpy's header for an array (the oldest format version that can hold it)."""
    d = {"descr": descr, "fortran_order": fortran_order, "shape": tuple(shape)}
    header = "{" + "".join(f"'{k}': {v!r}, " for k, v in sorted(d.items())) + "}"
    if shape:
        header += " " * (GROWTH_AXIS_MAX_DIGITS - len(repr(shape[-1 if fortran_order else 0])))
    for version in ((1, 0), (2, 0), (3, 0)):
        try:
            return _wrap_header(header, version)
        except (ValueError, UnicodeEncodeError):
            continue
    raise ValueError("array header too large")


def npy_bytes(x: Any) -> list[bytes | memoryview]:
    """The .npy file of an array-like, as a list of chunks (header, data)."""
    data, dt, shape = array_bytes(x)
    return [header_bytes(DTYPE_TO_DESCR[dt], shape), data]


def parse_header(buf: memoryview, name: str) -> tuple[dtypes.DType, bool, tuple[int, ...], bool, int]:
    """(dtype, big_endian, shape, fortran_order, data offset) of a .npy buffer."""
    if len(buf) < 8 or bytes(buf[:6]) != MAGIC:
        raise format_error(name, "not a .npy file (bad magic string)")
    version = (buf[6], buf[7])
    if version not in HEADER_SIZE_INFO:
        raise format_error(name, f"unsupported .npy format version {version[0]}.{version[1]}")
    fmt, encoding = HEADER_SIZE_INFO[version]
    start = 8 + struct.calcsize(fmt)
    if len(buf) < start:
        raise format_error(name, "truncated: the header length is cut off")
    hlen = struct.unpack(fmt, buf[8:start])[0]
    if hlen > MAX_HEADER_SIZE:
        raise format_error(name, f"header length {hlen} exceeds the {MAX_HEADER_SIZE}-byte limit "
                                 "(oversized or corrupt header)")
    if len(buf) < start + hlen:
        raise format_error(name, f"truncated: header of {hlen} bytes, only {len(buf) - start} present")
    try:
        d = ast.literal_eval(bytes(buf[start:start + hlen]).decode(encoding))
    except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError) as e:
        raise format_error(name, f"cannot parse the .npy header ({type(e).__name__})") from None
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
        raise format_error(name, f"the .npy header is not numpy's dict of descr/fortran_order/shape: {d!r:.200}")
    shape, fortran, descr = d["shape"], d["fortran_order"], d["descr"]
    if not isinstance(shape, tuple) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                               for s in shape):
        raise format_error(name, f"shape is not valid: {shape!r}")
    if not isinstance(fortran, bool):
        raise format_error(name, f"fortran_order is not a valid bool: {fortran!r}")
    if not isinstance(descr, str) or descr[:1] not in "<>|=" or descr[1:] not in DESCR_TO_DTYPE:
        raise format_error(name, f"unsupported dtype {descr!r} (jaxweb reads bool, int8-64, uint8-64, "
                                 "float16/32/64 and bfloat16)")
    big = descr[0] == ">" or (descr[0] == "=" and sys.byteorder == "big")
    return DESCR_TO_DTYPE[descr[1:]], big, shape, fortran, start + hlen


def read_npy(buf: memoryview, name: str) -> Any:
    """A jaxweb Array from the bytes of a .npy file (validated before anything is built)."""
    dt, big, shape, fortran, offset = parse_header(buf, name)
    need = math.prod(shape) * dt.itemsize
    have = len(buf) - offset
    if have < need:
        raise format_error(name, f"truncated: {dt.name}{list(shape)} needs {need} data bytes, file has {have}")
    if have > need:
        raise format_error(name, f"{have - need} unexpected bytes after the {dt.name}{list(shape)} data")
    data = buf[offset:offset + need]
    if big and dt.itemsize > 1:
        data = _byteswap(data, dt)
    if fortran and len(shape) > 1:
        arr = array_from_bytes(data, dt, shape[::-1])
        return transpose(arr, tuple(range(len(shape) - 1, -1, -1)))
    return array_from_bytes(data, dt, shape)


def _byteswap(data: memoryview, dt: dtypes.DType) -> bytes:
    code = {2: "H", 4: "I", 8: "Q"}[dt.itemsize]
    a = _array.array(code)
    a.frombytes(bytes(data))
    a.byteswap()
    return a.tobytes()
