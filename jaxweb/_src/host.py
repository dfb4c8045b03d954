"""Where jaxweb runs (CPython, Pyodide in a page, Pyodide in Node) and the JS shim.

In Pyodide the shim's ES modules are the Python module `_jaxweb_shim` (`.wasm`, `.gpu`,
`.opfs`, `.host` the host's facts, `.hostjs` host.mjs): registered by the loader
(`js_shim/jaxweb.mjs`) when a page uses it, otherwise by jaxweb itself from the wheel on
first use (`shim_loader`), so that `micropip.install` is all any Pyodide needs. Everything
here imports lazily so that CPython never touches `js` or `pyodide`.

Readback from a GPU is a JS promise. Python waits for it synchronously through
JSPI (`pyodide.ffi.run_sync`), which only works when Python was entered through
`runPythonAsync` (or `callPromising`); otherwise `wait` raises a RuntimeError
that says so, and the `async_*` functions below are the way out.
"""
from __future__ import annotations

import sys
from typing import Any

SYNC_READBACK_ERROR = (
    "jaxweb: reading this value back needs to wait for the browser, which Python can only do "
    "synchronously when it was started with pyodide.runPythonAsync(...) (JSPI stack switching). "
    "This code runs under plain pyodide.runPython(...): call it through runPythonAsync instead, "
    "or use the async API: `await x.async_value()` (or `await x.async_block_until_ready()`).")


class HostError(RuntimeError):
    """The browser/Node host is missing something jaxweb needs."""


def in_pyodide() -> bool:
    """True inside Pyodide (browser or Node)."""
    return sys.platform == "emscripten"


def kind() -> str:
    """'cpython', 'browser' or 'node' (host.mjs's test: Node has `process`, no `window`)."""
    if not in_pyodide():
        return "cpython"
    import js  # noqa: PLC0415  (only exists in Pyodide)
    proc = getattr(js, "process", None)
    node = proc is not None and getattr(proc, "versions", None) is not None and not hasattr(js, "window")
    return "node" if node else "browser"


def shim() -> Any:
    """The JS shim (`_jaxweb_shim`): the loader's, or registered now from the wheel."""
    if not in_pyodide():
        raise HostError("the jaxweb JS shim exists only inside Pyodide")
    try:
        import _jaxweb_shim  # noqa: PLC0415  (registered by js_shim/jaxweb.mjs or shim_loader)
    except ImportError:
        pass
    else:
        return _jaxweb_shim
    from . import shim_loader  # noqa: PLC0415
    try:
        return shim_loader.register(wait if can_wait() else None)
    except Exception as e:
        raise HostError(f"jaxweb could not set up its JS shim: {type(e).__name__}: {e}") from e


def platform_available(name: str) -> bool:
    """Whether this host has device platform `name` ("webgpu"; host.mjs's PROBES), as
    probed when the shim was set up, or now if it was not and waiting is possible.
    False outside Pyodide (CPython backends find their devices themselves)."""
    if not in_pyodide():
        return False
    try:
        s = shim()
    except HostError:
        return False
    platforms = s.host.platforms
    known = getattr(platforms, name, None)
    if known is None and can_wait():
        known = bool(wait(s.hostjs.probe(name, s)).ok)
        setattr(platforms, name, known)
    return bool(known)


def webgpu_available() -> bool:
    """Whether a WebGPU adapter exists here (False outside Pyodide)."""
    return platform_available("webgpu")


def to_js_bytes(data: bytes | bytearray | memoryview) -> Any:
    """A Uint8Array copy of Python bytes, to hand to the shim."""
    from pyodide.ffi import to_js  # noqa: PLC0415
    return to_js(memoryview(data).cast("B"))


def js_bytes(u8: Any) -> bytes:
    """Python bytes of a JS Uint8Array the shim returned."""
    return u8.to_bytes()


_UNINIT_MIN = 1 << 16  # below this, bytearray(n) clears as fast as the C API call (2 us)
_UNINIT: list = []  # [PyByteArray_FromStringAndSize through ctypes, or None] once looked up


def uninitialized(size: int) -> bytearray:
    """A new bytearray of `size` bytes holding whatever the allocator left there, for a caller
    that overwrites every byte before anyone reads it (a readback the shim copies into).

    bytearray(n) clears its n bytes first: 7 ms of a 64 MB GPU readback's 17-20 ms on the H200
    host (issue 22), a pass over memory the copy then writes again. CPython's
    PyByteArray_FromStringAndSize(NULL, n) allocates without clearing; it is reached through
    ctypes (Pyodide has it). Where ctypes is missing, or for small sizes, a plain bytearray."""
    if size < _UNINIT_MIN:
        return bytearray(size)
    if not _UNINIT:
        try:
            import ctypes  # noqa: PLC0415  (loaded once, only for big buffers)
            fn = ctypes.pythonapi.PyByteArray_FromStringAndSize
            fn.restype, fn.argtypes = ctypes.py_object, (ctypes.c_void_p, ctypes.c_ssize_t)
        except (ImportError, AttributeError, OSError):
            fn = None
        _UNINIT.append(fn)
    fn = _UNINIT[0]
    return bytearray(size) if fn is None else fn(None, size)  # MemoryError raised as bytearray's


# ---------------------------------------------------------------- waiting
def can_wait() -> bool:
    """Whether `wait` works here (JSPI stack switching is possible now)."""
    if not in_pyodide():
        return False
    import pyodide.ffi as ffi  # noqa: PLC0415
    check = getattr(ffi, "can_run_sync", None)
    return bool(check()) if check is not None else hasattr(ffi, "run_sync")


def wait(awaitable: Any) -> Any:
    """Block until a JS promise (or Python awaitable) settles; its result.

    The one place jaxweb waits synchronously for the browser (GPU readback,
    adapter requests). Raises RuntimeError with advice under plain runPython.
    """
    if not in_pyodide():
        raise HostError("host.wait needs Pyodide; CPython backends read synchronously")
    from pyodide.ffi import run_sync  # noqa: PLC0415
    if not can_wait():
        raise RuntimeError(SYNC_READBACK_ERROR)
    try:
        return run_sync(awaitable)
    except RuntimeError as e:
        if "stack switch" in str(e).lower():
            raise RuntimeError(SYNC_READBACK_ERROR) from e
        raise


# ---------------------------------------------------------------- async API
async def async_read(buffer: Any) -> bytes | memoryview:
    """A device Buffer's bytes, awaiting the device instead of blocking on it."""
    backend = buffer.device.backend
    reader = getattr(backend, "read_async", None)
    if reader is not None:
        return await reader(buffer.handle, buffer.nbytes)
    return backend.read(buffer.handle, buffer.nbytes)


async def async_block_until_ready(x: Any) -> Any:
    """`x.block_until_ready()` for pytrees of Arrays, without blocking the page."""
    from .tree_util import tree_leaves  # noqa: PLC0415
    for leaf in tree_leaves(x):
        backend = getattr(getattr(leaf, "device", None), "backend", None)
        sync = getattr(backend, "synchronize_async", None)
        if sync is not None:
            await sync()
        elif backend is not None:
            backend.synchronize()
    return x


async def async_value(x: Any) -> Any:
    """`x.tolist()` (a Python scalar for 0-d arrays), awaiting the device's readback."""
    from . import hostdata  # noqa: PLC0415
    if not hasattr(x, "contiguous_buffer"):  # an Array (runtime floor, above this one: no import)
        raise TypeError(f"async_value expects a jaxweb Array, got {type(x).__name__}")
    if x.is_const():  # a constant: nothing on the device
        return x.tolist()
    data = await async_read(x.contiguous_buffer())
    return hostdata.nest(hostdata.unpack(data, x.dtype, x.size), x.shape)
