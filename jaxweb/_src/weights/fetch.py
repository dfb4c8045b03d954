"""Downloading weights once: `await fetch_weights(url, progress=...)`.

In a page the bytes are cached in the Origin Private File System (through the JS shim's
`opfs` module), so a reload reads them from disk instead of the network. In CPython they
are cached in a directory (`$JAXWEB_WEIGHTS_CACHE`, default ~/.cache/jaxweb/weights).
A cache entry is written only once the whole download arrived (OPFS commits a writable
on close; here a temporary file is renamed), and a cached file that no longer parses is
dropped and downloaded again.
"""
from __future__ import annotations

import asyncio
import hashlib
import os
import tempfile
from typing import Any, Callable

from .. import host

Progress = Callable[[int, "int | None"], Any]


def cache_key(url: str) -> str:
    """The cache file name of a URL (a hash: URLs are not valid file names)."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:40] + ".bin"


def cache_dir() -> str:
    return os.environ.get("JAXWEB_WEIGHTS_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "jaxweb", "weights")


# ---------------------------------------------------------------- in a page (Pyodide)
async def _page_fetch(url: str, progress: Progress | None, cache: bool) -> tuple[bytes, bool]:
    from pyodide.ffi import create_proxy  # noqa: PLC0415  (only in Pyodide)
    opfs = getattr(host.shim(), "opfs", None)
    if opfs is None:
        raise host.HostError("this jaxweb loader registers no `opfs` shim module: load jaxweb with "
                             "js_shim/jaxweb.mjs from the same release")
    cb = create_proxy(lambda done, total: progress(int(done), None if total is None or total < 0 else int(total))) \
        if progress is not None else None
    try:
        res = await opfs.cachedFetch(url, cache_key(url) if cache else None, cb)
    finally:
        if cb is not None:
            cb.destroy()
    return res.bytes.to_bytes(), bool(res.cached)


async def _page_drop(url: str | None) -> None:
    opfs = host.shim().opfs
    await (opfs.remove(cache_key(url)) if url is not None else opfs.clear())


# ---------------------------------------------------------------- in CPython
def _download(url: str, progress: Progress | None) -> bytes:
    import urllib.request  # noqa: PLC0415
    with urllib.request.urlopen(url) as resp:  # noqa: S310  (the caller's URL)
        total = resp.headers.get("Content-Length")
        total = int(total) if total and total.isdigit() else None
        chunks, done = [], 0
        while True:
            chunk = resp.read(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
    return b"".join(chunks)


def _cpython_fetch(url: str, progress: Progress | None, cache: bool) -> tuple[bytes, bool]:
    path = os.path.join(cache_dir(), cache_key(url))
    if cache and os.path.exists(path):
        with open(path, "rb") as f:
            data = f.read()
        if progress is not None:
            progress(len(data), len(data))
        return data, True
    data = _download(url, progress)
    if cache:
        os.makedirs(cache_dir(), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir(), suffix=".part")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return data, False


def _cpython_drop(url: str | None) -> None:
    d = cache_dir()
    names = [cache_key(url)] if url is not None else (os.listdir(d) if os.path.isdir(d) else [])
    for n in names:
        if n.endswith((".bin", ".part")) and os.path.exists(os.path.join(d, n)):
            os.remove(os.path.join(d, n))


# ---------------------------------------------------------------- both
async def fetch_bytes(url: str, progress: Progress | None = None, cache: bool = True) -> tuple[bytes, bool]:
    """(the bytes at `url`, whether they came from the cache)."""
    if host.in_pyodide():
        return await _page_fetch(url, progress, cache)
    return await asyncio.to_thread(_cpython_fetch, url, progress, cache)


async def clear_cache(url: str | None = None) -> None:
    """Forget one cached URL, or every cached download."""
    if host.in_pyodide():
        await _page_drop(url)
    else:
        _cpython_drop(url)
