"""`jnp.save`, `jnp.savez`, `jnp.load`: numpy's .npy/.npz files, without needing numpy.

As in JAX, `load` of a .npy gives a jaxweb Array (bfloat16 restored from numpy's `'<V2'`);
of an .npz, a lazy mapping (`NpzFile`) whose items are jaxweb Arrays.

They live here, beside the .npy/.npz formats they read and write (this floor, above jnp), and
reach `jaxweb.numpy` as a family registered from above: the package `jaxweb` hands the face a
loader for this module (`jaxweb.numpy._UPPER_FAMILIES`), run on the first use of a lazy name.
"""
from __future__ import annotations

__all__ = ["save", "savez", "load"]

import os
from typing import Any

from . import npyformat, npz
from .rawarrays import format_error
from .sources import Source, write_chunks

_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"


def save(file: Any, arr: Any, allow_pickle: bool = True, fix_imports: bool = True) -> None:
    """Save one array as .npy (numpy's bytes exactly); a path gets '.npy' appended if missing."""
    if isinstance(file, (str, os.PathLike)):
        file = os.fspath(file)
        if not file.endswith(".npy"):
            file += ".npy"
    write_chunks(file, npyformat.npy_bytes(arr))


def savez(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """Save several arrays into one uncompressed .npz (positional ones as arr_0, arr_1, ...)."""
    npz.savez(os.fspath(file) if isinstance(file, os.PathLike) else file, args, kwds)


def load(file: Any, mmap_mode: str | None = None, allow_pickle: bool = False, fix_imports: bool = True,
         encoding: str = "ASCII", *, max_header_size: int = npyformat.MAX_HEADER_SIZE) -> Any:
    """Load a .npy (an Array) or .npz (a lazy NpzFile of Arrays) from a path, a binary
    file or bytes. Paths are memory-mapped in CPython; `mmap_mode` is accepted for
    numpy's signature (the data always ends up in device memory)."""
    source = Source(file)
    head = bytes(source.buf[:6])
    if head[:4] in (_ZIP_MAGIC, _EMPTY_ZIP_MAGIC):
        return npz.NpzFile(source)
    try:
        if head == npyformat.MAGIC:
            return npyformat.read_npy(source.buf, source.name)
        raise format_error(source.name, "neither a .npy nor an .npz file (jaxweb does not load pickles)")
    finally:
        source.close()
