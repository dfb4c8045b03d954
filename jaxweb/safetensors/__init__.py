"""`jaxweb.safetensors`: the `safetensors.flax` API, in pure Python (works in Pyodide).

    save(tensors, metadata=None) -> bytes        load(data) -> dict of Arrays
    save_file(tensors, filename, metadata=None)  load_file(filename) -> dict of Arrays
    safe_open(filename, framework="flax")        lazy: keys(), get_tensor(name), metadata()

Every dtype jaxweb has (BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64);
a corrupt, truncated or oversized file raises ValueError naming the file and the problem.
"""
from __future__ import annotations

from typing import Any

from jaxweb._src.weights import safetensors_format as _fmt
from jaxweb._src.weights.sources import Source as _Source
from jaxweb._src.weights.sources import write_chunks as _write_chunks

safe_open = _fmt.SafeOpen


def save(tensors: dict[str, Any], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors bytes of a dict of arrays."""
    return b"".join(bytes(c) for c in _fmt.serialize(tensors, metadata))


def save_file(tensors: dict[str, Any], filename: Any, metadata: dict[str, str] | None = None) -> None:
    """Write a dict of arrays to a safetensors file (or an open binary file)."""
    chunks = _fmt.serialize(tensors, metadata)  # everything converted before the file is touched
    _write_chunks(filename, chunks)


def _load_all(source: _Source) -> dict[str, Any]:
    with _fmt.SafeOpen(source) as f:
        return {k: f.get_tensor(k) for k in f.offset_keys()}


def load(data: bytes) -> dict[str, Any]:
    """A dict of arrays from safetensors bytes."""
    return _load_all(_Source(data))


def load_file(filename: Any) -> dict[str, Any]:
    """A dict of arrays from a safetensors file (memory-mapped in CPython)."""
    return _load_all(_Source(filename))


def metadata(data_or_filename: Any) -> dict[str, str] | None:
    """The `__metadata__` of safetensors bytes or a file, without reading the tensors."""
    with _fmt.SafeOpen(_Source(data_or_filename)) as f:
        return f.metadata()


__all__ = ["load", "load_file", "metadata", "safe_open", "save", "save_file"]
