"""Where weight bytes come from: a path (memory-mapped in CPython, so a large file is
paged in only where tensors are read), an open binary file, or bytes already in memory."""
from __future__ import annotations

import os
from typing import Any


class Source:
    """A read-only byte view of one input, with a name for error messages."""

    def __init__(self, obj: Any):
        self._mmap = self._file = None
        if isinstance(obj, (bytes, bytearray, memoryview)):
            self.name, self.buf = "<bytes>", memoryview(obj).cast("B")
        elif isinstance(obj, (str, os.PathLike)):
            self.name = os.fspath(obj)
            self._file = open(self.name, "rb")  # noqa: SIM115  (closed by close())
            self.buf = self._map(self._file)
        elif hasattr(obj, "read"):
            self.name = str(getattr(obj, "name", "<file>"))
            self.buf = memoryview(obj.read()).cast("B")
        else:
            raise TypeError(f"expected a path, a binary file or bytes, got {type(obj).__name__}")

    def _map(self, f: Any) -> memoryview:
        try:
            import mmap  # noqa: PLC0415
            size = os.fstat(f.fileno()).st_size
            if size:
                self._mmap = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                return memoryview(self._mmap)
        except (ImportError, OSError, ValueError):  # no mmap here (e.g. some Pyodide file systems)
            pass
        return memoryview(f.read()).cast("B")

    def close(self) -> None:
        try:
            self.buf.release()
        except (BufferError, ValueError):  # slices still alive: the GC closes the map later
            pass
        if self._mmap is not None:
            try:
                self._mmap.close()
            except BufferError:
                pass
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_for_write(target: Any) -> tuple[Any, bool]:
    """(binary file, whether we opened it) for a path or an open file."""
    if isinstance(target, (str, os.PathLike)):
        return open(os.fspath(target), "wb"), True  # noqa: SIM115
    if hasattr(target, "write"):
        return target, False
    raise TypeError(f"expected a path or a binary file, got {type(target).__name__}")


def write_chunks(target: Any, chunks: list) -> None:
    f, owned = open_for_write(target)
    try:
        for c in chunks:
            f.write(c)
    finally:
        if owned:
            f.close()
