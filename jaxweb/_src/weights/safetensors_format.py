"""The safetensors format, in pure Python (the `safetensors` package's Rust core is the
reference for what is valid and for the writer's layout).

    8 bytes   little-endian u64 N: the header's length
    N bytes   JSON: {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]}, ...,
                     "__metadata__": {"str": "str"}}   (padded with spaces)
    the rest  the tensors' bytes; offsets are relative to here

A file is accepted only if every tensor's offsets lie in the buffer, match its shape
and dtype, and the tensors tile the buffer with neither holes nor overlaps; every
check runs before any array is built, so nothing is ever half-loaded.
"""
from __future__ import annotations

import json
import math
import struct
from typing import Any, Iterator

from .. import dtypes
from .rawarrays import array_bytes, array_from_bytes, format_error
from .sources import Source

MAX_HEADER_SIZE = 100_000_000  # the reference implementation's limit
#: safetensors dtype -> jaxweb dtype, in the format's own order (the writer sorts by it)
DTYPES = {"BOOL": dtypes.bool_, "U8": dtypes.uint8, "I8": dtypes.int8, "F8_E5M2": None, "F8_E4M3": None,
          "I16": dtypes.int16, "U16": dtypes.uint16, "F16": dtypes.float16, "BF16": dtypes.bfloat16,
          "I32": dtypes.int32, "U32": dtypes.uint32, "F32": dtypes.float32, "F64": dtypes.float64,
          "I64": dtypes.int64, "U64": dtypes.uint64}
_RANK = {name: i for i, name in enumerate(DTYPES)}
_NAME_OF = {dt: name for name, dt in DTYPES.items() if dt is not None}


class TensorInfo:
    """One header entry: dtype, shape and absolute [begin, end) in the file."""
    __slots__ = ("name", "dtype", "shape", "begin", "end")

    def __init__(self, name: str, dtype: dtypes.DType, shape: tuple[int, ...], begin: int, end: int):
        self.name, self.dtype, self.shape, self.begin, self.end = name, dtype, shape, begin, end


# ---------------------------------------------------------------- writing
def serialize(tensors: dict, metadata: dict | None = None) -> list[bytes | memoryview]:
    """The file's chunks: tensors sorted by dtype (widest first, as the reference writer
    does) then name; the header padded with spaces to a multiple of 8 bytes."""
    if not isinstance(tensors, dict):
        raise TypeError(f"tensors must be a dict of name -> array, got {type(tensors).__name__}")
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in metadata.items()):
            raise ValueError("metadata must be a dict of str -> str")
    entries = []
    for name, x in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"tensor names must be strings, got {name!r}")
        if name == "__metadata__":
            raise ValueError("'__metadata__' is reserved for the metadata and cannot name a tensor")
        data, dt, shape = array_bytes(x)
        entries.append((name, dt, shape, data))
    entries.sort(key=lambda e: (-_RANK[_NAME_OF[e[1]]], e[0]))
    header: dict = {"__metadata__": dict(metadata)} if metadata else {}
    offset = 0
    for name, dt, shape, data in entries:
        n = len(data) if not isinstance(data, memoryview) else data.nbytes
        header[name] = {"dtype": _NAME_OF[dt], "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return [struct.pack("<Q", len(text)), text] + [e[3] for e in entries]


# ---------------------------------------------------------------- reading
def _no_duplicates(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise ValueError(f"duplicate key {dup!r}")
    return dict(pairs)


def parse_header(buf: memoryview, name: str) -> tuple[dict[str, TensorInfo], dict[str, str] | None]:
    """Validate a whole file's header against its size; (tensors in file order, metadata)."""
    if len(buf) < 8:
        raise format_error(name, f"truncated: {len(buf)} bytes, not even the 8-byte header length")
    n = struct.unpack("<Q", buf[:8])[0]
    if n > MAX_HEADER_SIZE:
        raise format_error(name, f"header length {n} exceeds the {MAX_HEADER_SIZE}-byte limit "
                                 "(oversized or not a safetensors file)")
    if 8 + n > len(buf):
        raise format_error(name, f"truncated: header length {n} but only {len(buf) - 8} bytes follow")
    raw = bytes(buf[8:8 + n])
    if not raw.lstrip(b" ").startswith(b"{"):
        raise format_error(name, "the header is not a JSON object (bad header length or not a safetensors file)")
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError and duplicates
        raise format_error(name, f"the header is not valid JSON: {e}") from None
    if not isinstance(header, dict):
        raise format_error(name, "the header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and (not isinstance(metadata, dict) or
                                 not all(isinstance(v, str) for v in metadata.values())):
        raise format_error(name, "__metadata__ must map strings to strings")
    start, size = 8 + n, len(buf) - 8 - n
    infos = {key: _entry(key, value, start, size, name) for key, value in header.items()}
    _check_tiling(infos, start, size, name)
    return infos, metadata


def _entry(key: str, value: Any, start: int, size: int, name: str) -> TensorInfo:
    where = f"tensor {key!r}"
    if not isinstance(value, dict) or not {"dtype", "shape", "data_offsets"} <= set(value):
        raise format_error(name, f"{where}: an entry needs dtype, shape and data_offsets, got {value!r:.200}")
    code, shape, offsets = value["dtype"], value["shape"], value["data_offsets"]
    if code not in DTYPES:
        raise format_error(name, f"{where}: unknown dtype {code!r}")
    if DTYPES[code] is None:
        raise format_error(name, f"{where}: dtype {code} is not supported by jaxweb")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise format_error(name, f"{where}: invalid shape {shape!r:.200}")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]):
        raise format_error(name, f"{where}: invalid data_offsets {offsets!r:.200}")
    dt = DTYPES[code]
    need = math.prod(shape) * dt.itemsize
    if offsets[1] - offsets[0] != need:
        raise format_error(name, f"{where}: data_offsets {offsets} span {offsets[1] - offsets[0]} bytes but "
                                 f"{code}{shape} needs {need}")
    if offsets[1] > size:
        raise format_error(name, f"{where}: data_offsets {offsets} out of range: the data buffer has "
                                 f"{size} bytes (truncated file?)")
    return TensorInfo(key, dt, tuple(shape), start + offsets[0], start + offsets[1])


def _check_tiling(infos: dict[str, TensorInfo], start: int, size: int, name: str) -> None:
    """The tensors must cover the data buffer exactly: no overlap, no hole, nothing after."""
    pos = start
    for info in sorted(infos.values(), key=lambda i: (i.begin, i.end)):
        if info.begin < pos:
            raise format_error(name, f"overlapping tensors: {info.name!r} starts at data offset "
                                     f"{info.begin - start}, inside the previous tensor (ends at {pos - start})")
        if info.begin > pos:
            raise format_error(name, f"a hole in the data buffer: bytes {pos - start}..{info.begin - start} "
                                     f"belong to no tensor (before {info.name!r})")
        pos = info.end
    if pos != start + size:
        raise format_error(name, f"{start + size - pos} bytes after the last tensor belong to no tensor")


class SafeOpen:
    """`safe_open(path, framework="flax")`: the header is read at once, each tensor only
    when asked for (memory-mapped in CPython)."""

    def __init__(self, source: Any, framework: str = "flax", device: str = "cpu"):
        if framework not in ("flax", "jax", "jaxweb", "np", "numpy"):
            raise ValueError(f"framework {framework!r}: jaxweb.safetensors makes jaxweb arrays (use 'flax')")
        self._source = source if isinstance(source, Source) else Source(source)
        try:
            self._infos, self._metadata = parse_header(self._source.buf, self._source.name)
        except Exception:
            self._source.close()
            raise

    def keys(self) -> list[str]:
        return sorted(self._infos)

    def offset_keys(self) -> list[str]:
        """The names in file order."""
        return [i.name for i in sorted(self._infos.values(), key=lambda i: i.begin)]

    def metadata(self) -> dict[str, str] | None:
        return self._metadata

    def infos(self) -> dict[str, TensorInfo]:
        """Every tensor's header entry (dtype, shape, offsets), all validated."""
        return dict(self._infos)

    def info(self, key: str) -> TensorInfo:
        if key not in self._infos:
            raise KeyError(f"{self._source.name}: no tensor named {key!r}")
        return self._infos[key]

    def get_tensor(self, key: str) -> Any:
        info = self.info(key)
        return array_from_bytes(self._source.buf[info.begin:info.end], info.dtype, info.shape)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def close(self) -> None:
        self._source.close()

    def __enter__(self) -> "SafeOpen":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
