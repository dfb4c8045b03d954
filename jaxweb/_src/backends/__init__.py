"""Backends register themselves here with a default-preference priority."""
from __future__ import annotations

from ..device import register_backend


def _reference():
    from .reference import ReferenceBackend  # needs numpy
    return ReferenceBackend()


register_backend("cpu", _reference, priority=10)


def _wasm():
    from .wasm.backend import WasmBackend  # raises if no WebAssembly runtime is available
    return WasmBackend()


register_backend("wasm", _wasm, priority=20)


def _webgl():
    """WebGL2 through js_shim/webgl.mjs (Pyodide in a page only); SwiftShader marks it `software`."""
    from .webgl.backend import WebGLBackend  # raises outside Pyodide / without WebGL2
    return WebGLBackend()


def _webgl_may_be_hardware() -> bool:
    """In a page: whether the loader's probe found a hardware WebGL2 context (host.mjs)."""
    import sys
    if sys.platform != "emscripten":
        return False
    from .. import host
    return host.platform_available("webgl")


register_backend("webgl", _webgl, priority=25, may_be_default=_webgl_may_be_hardware)


def _webgpu():
    """A WebGPU adapter (hardware first); JAXWEB_WEBGPU_ADAPTER picks one by name ("llvmpipe").
    Software adapters (lavapipe, SwiftShader) mark the backend `software`: never the default."""
    import os
    from .webgpu.backend import WebGPUBackend  # raises without wgpu-py / navigator.gpu / an adapter
    return WebGPUBackend(adapter=os.environ.get("JAXWEB_WEBGPU_ADAPTER") or None)


def _webgpu_may_be_hardware() -> bool:
    """Whether a hardware GPU may be here, without starting WebGPU (~1 s on lavapipe):
    in a page, what the loader's adapter probe found; in CPython, a GPU device node
    (Linux) or a platform whose wgpu backends are hardware ones (macOS, Windows)."""
    import os
    import sys
    if sys.platform == "emscripten":
        from .. import host
        return host.webgpu_available()
    if sys.platform in ("darwin", "win32"):
        return True
    return os.path.exists("/dev/dri") or os.path.exists("/dev/nvidia0")


register_backend("webgpu", _webgpu, priority=30, may_be_default=_webgpu_may_be_hardware)
