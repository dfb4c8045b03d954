"""The protobuf wire format, decoded in pure Python against schemas written as data.

ONNX files are protobuf messages; the `onnx` package parses them with a compiled core that
Pyodide cannot load, so this module reads the wire format itself. A schema maps a field
number to (name, kind, repeated); kinds are the scalar encodings below or another schema
(a nested message). Unknown fields are skipped, as protobuf requires. Bytes fields come back
as memoryviews of the input, so a model's weights are never copied while parsing.
"""
from __future__ import annotations

import struct
from typing import Any

VARINT, I64, LEN, I32 = 0, 1, 2, 5
_FIXED = {"float": ("<f", 4), "double": ("<d", 8), "fixed32": ("<I", 4), "fixed64": ("<Q", 8)}
_INTS = ("int", "uint", "bool", "enum")


class DecodeError(ValueError):
    """A buffer that is not a valid protobuf message of the expected schema."""


def read_varint(buf: memoryview, pos: int) -> tuple[int, int]:
    """(value, next position) of the base-128 varint at `pos`."""
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise DecodeError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise DecodeError("varint longer than 10 bytes")


def _signed(v: int) -> int:
    """int32/int64 fields are two's complement in 64 bits."""
    return v - (1 << 64) if v >= 1 << 63 else v


def _scalar(kind: str, v: int) -> Any:
    if kind == "int" or kind == "enum":
        return _signed(v)
    if kind == "bool":
        return bool(v)
    return v


def _packed(kind: str, data: memoryview) -> list:
    """The values of a packed repeated numeric field."""
    if kind in _FIXED:
        fmt, size = _FIXED[kind]
        if len(data) % size:
            raise DecodeError(f"packed {kind} field of {len(data)} bytes")
        return list(struct.unpack(f"<{len(data) // size}{fmt[1]}", data))
    out, pos, n = [], 0, len(data)
    while pos < n:
        v, pos = read_varint(data, pos)
        out.append(_scalar(kind, v))
    return out


def _skip(buf: memoryview, pos: int, wire: int) -> int:
    if wire == VARINT:
        return read_varint(buf, pos)[1]
    if wire == I64:
        return pos + 8
    if wire == I32:
        return pos + 4
    if wire == LEN:
        n, pos = read_varint(buf, pos)
        return pos + n
    raise DecodeError(f"unsupported wire type {wire}")


def _value(kind: Any, wire: int, buf: memoryview, pos: int) -> tuple[Any, int]:
    """One field value (or a list, for a packed field) and the next position."""
    if wire == VARINT:
        v, pos = read_varint(buf, pos)
        return _scalar(kind, v), pos
    if wire in (I32, I64):
        size = 4 if wire == I32 else 8
        if kind not in _FIXED or _FIXED[kind][1] != size:
            raise DecodeError(f"wire type {wire} for a {kind} field")
        return struct.unpack_from(_FIXED[kind][0], buf, pos)[0], pos + size
    n, pos = read_varint(buf, pos)
    end = pos + n
    if end > len(buf):
        raise DecodeError("length-delimited field runs past the end of the buffer")
    data = buf[pos:end]
    if isinstance(kind, dict):
        return decode(data, kind), end
    if kind == "str":
        return bytes(data).decode("utf-8", "replace"), end
    if kind == "bytes":
        return data, end
    return _packed(kind, data), end  # a packed repeated scalar field


def decode(data: bytes | memoryview, schema: dict) -> dict:
    """A message's fields by name: repeated ones as lists (empty when absent), singular
    ones only when present (messages keep protobuf's last-one-wins for scalars)."""
    buf = data if isinstance(data, memoryview) else memoryview(data)
    if buf.format != "B" or buf.ndim != 1:
        buf = buf.cast("B")
    out: dict = {name: [] for name, _kind, rep in schema.values() if rep}
    pos, n = 0, len(buf)
    while pos < n:
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        field = schema.get(number)
        if field is None:
            pos = _skip(buf, pos, wire)
            continue
        name, kind, repeated = field
        value, pos = _value(kind, wire, buf, pos)
        if repeated:
            if isinstance(value, list) and not isinstance(kind, dict):
                out[name].extend(value)
            else:
                out[name].append(value)
        else:
            out[name] = value
    if pos != n:
        raise DecodeError("message runs past the end of its buffer")
    return out
