"""Where jaxweb runs (CPython, Pyodide in a page, Pyodide in Node) and the JS shim.

In Pyodide the loader (`js_shim/jaxweb.mjs`) registers the shim's ES modules as
the Python module `_jaxweb_shim` (`.wasm`, `.gpu`, `.host`). Everything here
imports lazily so that CPython never touches `js` or `pyodide`.

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
    "or use the async API: `from jaxweb._src import host; await host.async_value(x)` "
    "(or `await host.async_block_until_ready(x)`).")


class HostError(RuntimeError):
    """The browser/Node host is missing something jaxweb needs."""


def in_pyodide() -> bool:
    """True inside Pyodide (browser or Node)."""
    return sys.platform == "emscripten"


def kind() -> str:
    """'cpython', 'browser' or 'node'."""
    if not in_pyodide():
        return "cpython"
    try:
        return str(shim().host.kind)
    except HostError:
        import js  # noqa: PLC0415  (only exists in Pyodide)
        proc = getattr(js, "process", None)
        return "node" if proc is not None and getattr(proc, "versions", None) is not None else "browser"


def shim() -> Any:
    """The JS shim registered by the loader (`_jaxweb_shim`), or HostError."""
    if not in_pyodide():
        raise HostError("the jaxweb JS shim exists only inside Pyodide")
    try:
        import _jaxweb_shim  # noqa: PLC0415  (registered by js_shim/jaxweb.mjs)
    except ImportError as e:
        raise HostError("jaxweb's JS shim is not loaded: load jaxweb in the page with "
                        "js_shim/jaxweb.mjs (loadJaxweb), which registers `_jaxweb_shim`") from e
    return _jaxweb_shim


def webgpu_available() -> bool:
    """What the loader found: a WebGPU adapter exists (False outside Pyodide)."""
    try:
        return bool(shim().host.webgpu)
    except HostError:
        return False


def to_js_bytes(data: bytes | bytearray | memoryview) -> Any:
    """A Uint8Array copy of Python bytes, to hand to the shim."""
    from pyodide.ffi import to_js  # noqa: PLC0415
    return to_js(memoryview(data).cast("B"))


def js_bytes(u8: Any) -> bytes:
    """Python bytes of a JS Uint8Array the shim returned."""
    return u8.to_bytes()


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
    from .array import Array  # noqa: PLC0415
    if not isinstance(x, Array):
        raise TypeError(f"async_value expects a jaxweb Array, got {type(x).__name__}")
    if x.is_const():  # a constant: nothing on the device
        return x.tolist()
    data = await async_read(x.contiguous_buffer())
    return hostdata.nest(hostdata.unpack(data, x.dtype, x.size), x.shape)


# ---------------------------------------------------------------- runtimes
def select_pyodide_runtimes() -> None:
    """Make the wasm backend use PyodideRuntime when it starts in Pyodide.

    Called by the loader right after `import jaxweb` (devices start lazily, so
    this precedes any). A bridge until `wasm/runtime.py:default_runtime()` tries
    `runtime_pyodide.PyodideRuntime` first on `sys.platform == "emscripten"`;
    after that it changes nothing.
    """
    if not in_pyodide():
        return
    from .backends.wasm import backend, runtime  # noqa: PLC0415
    if getattr(backend.default_runtime, "_jaxweb_host_bridge", False):
        return
    fallback = backend.default_runtime

    def default_runtime():
        try:
            from .backends.wasm.runtime_pyodide import PyodideRuntime  # noqa: PLC0415
            return PyodideRuntime()
        except HostError:  # Pyodide without the shim: whatever runtime.py offers
            return fallback()

    default_runtime._jaxweb_host_bridge = True
    backend.default_runtime = default_runtime
    runtime.default_runtime = default_runtime
