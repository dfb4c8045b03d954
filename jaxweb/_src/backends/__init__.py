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


def _webgpu():
    """A WebGPU adapter (hardware first); JAXWEB_WEBGPU_ADAPTER picks one by name ("llvmpipe").
    Software adapters (lavapipe, SwiftShader) mark the backend `software`: never the default."""
    import os
    from .webgpu.backend import WebGPUBackend  # raises without wgpu-py / navigator.gpu / an adapter
    return WebGPUBackend(adapter=os.environ.get("JAXWEB_WEBGPU_ADAPTER") or None)


register_backend("webgpu", _webgpu, priority=30)
