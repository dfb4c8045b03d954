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
