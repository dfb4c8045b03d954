"""`jaxweb.io`: pytrees of arrays in and out of files, and cached downloads of weights.

    save(path_or_file, tree)                     one safetensors file, structure kept
    load(path_or_file, like=None)                the tree back (shaped by `like` if given)
    await fetch_weights(url, progress=None, like=None, cache=True)
                                                 download once (OPFS in a page), then load
    await clear_cache(url=None)                  forget one or all cached downloads

`load` and `fetch_weights` read safetensors, .npz and .npy data (detected from the bytes).
Errors: a bad file raises ValueError naming the file and the problem; a template that does
not fit names the first path that differs. Nothing is half-loaded: all checks run first.
"""
from __future__ import annotations

from typing import Any, Callable

from jaxweb._src.weights import fetch as _fetch
from jaxweb._src.weights import npyformat as _npy
from jaxweb._src.weights import npz as _npz
from jaxweb._src.weights import pytree_io as _trees
from jaxweb._src.weights import safetensors_format as _st
from jaxweb._src.weights.rawarrays import format_error as _format_error
from jaxweb._src.weights.sources import Source as _Source

__all__ = ["clear_cache", "fetch_weights", "load", "load_bytes", "save"]


def save(file: Any, tree: Any) -> None:
    """Save a pytree of arrays (and Python scalars) as one safetensors file."""
    _trees.save_tree(file, tree)


class _NpzReader:
    """An .npz archive seen like a safetensors reader, every member checked up front."""

    def __init__(self, npz: Any):
        self._npz, self._raw, self.infos = npz, {}, {}
        for key in npz.files:
            buf, where = npz.raw(key)
            dt, _, shape, _, offset = _npy.parse_header(buf, where)
            if len(buf) - offset != dt.itemsize * _prod(shape):
                raise _format_error(where, f"truncated or padded: {dt.name}{list(shape)} needs "
                                           f"{dt.itemsize * _prod(shape)} data bytes, has {len(buf) - offset}")
            self._raw[key] = (buf, where)
            self.infos[key] = type("Info", (), {"shape": shape})

    def get_tensor(self, key: str) -> Any:
        return _npy.read_npy(*self._raw[key])


def _prod(shape: Any) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _load_source(source: _Source, like: Any) -> Any:
    head = bytes(source.buf[:6])
    if head[:2] == b"PK":
        with _npz.NpzFile(source) as npz:
            reader = _NpzReader(npz)
            return _trees.restore(reader, reader.infos, None, like, source.name)
    if head == _npy.MAGIC:
        try:
            arr = _npy.read_npy(source.buf, source.name)
        finally:
            source.close()
        if like is not None:
            return _trees.restore(type("R", (), {"get_tensor": lambda self, k: arr})(),
                                  {"_": type("Info", (), {"shape": arr.shape})}, None, like, source.name)
        return arr
    with _st.SafeOpen(source) as reader:
        return _trees.restore(reader, reader.infos(), reader.metadata(), like, source.name)


def load(file: Any, like: Any = None) -> Any:
    """Load a pytree saved by `save` (or any safetensors/.npz/.npy data) from a path, a
    binary file or bytes. With `like`, the result has the template's structure and
    dtypes, and every path and shape is checked first."""
    return _load_source(_Source(file), like)


def load_bytes(data: bytes, like: Any = None, name: str = "<bytes>") -> Any:
    """`load` of bytes in memory, with `name` in error messages (e.g. the URL)."""
    source = _Source(data)
    source.name = name
    return _load_source(source, like)


async def fetch_weights(url: str, progress: Callable[[int, "int | None"], Any] | None = None, *,
                        like: Any = None, cache: bool = True) -> Any:
    """Download weights (safetensors, .npz or .npy) and load them.

    `progress(received_bytes, total_bytes_or_None)` is called as data arrives. In a page
    the download is cached in the Origin Private File System, so the next load (also
    after a reload) reads no network; a cached copy that fails to parse is fetched again.
    """
    data, cached = await _fetch.fetch_bytes(url, progress, cache)
    try:
        return load_bytes(data, like, url)
    except ValueError:
        if not cached:
            raise
        await _fetch.clear_cache(url)  # a damaged cache entry: download it again, once
        data, _ = await _fetch.fetch_bytes(url, progress, cache)
        return load_bytes(data, like, url)


async def clear_cache(url: str | None = None) -> None:
    """Forget the cached download of `url`, or all of them."""
    await _fetch.clear_cache(url)
