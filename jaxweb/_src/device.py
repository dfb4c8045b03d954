"""Devices, buffers and the backend registry.

A `Device` pairs a platform name with a Backend instance. `Buffer` owns device
memory and frees it when the last Python reference dies (`__del__`): users
never dispose anything. Backends register a factory with a priority; the default
device is the highest-priority available one that is not a software fallback,
unless `jax_platforms` (or JAXWEB_PLATFORMS / JAX_PLATFORMS) names platforms. A
platform registered with a `may_be_default` check that says no (webgpu without a
GPU here) is not even started to choose the default.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from . import config as _config
from . import memory as _memory
from . import profiler as _profiler
from .dtypes import DType


class Device:
    """One device, as `jaxweb.devices()` lists them."""

    def __init__(self, platform: str, id: int, backend: Any):
        self.platform, self.id, self.backend = platform, id, backend
        #: memory of dead jitted-call outputs not handed back yet (handle -> bytes), where the backend
        #: can take a whole call's outputs back at once (`reusable`): see memory.py, "Returned sets"
        self.returned: dict | None = {} if hasattr(backend, "reusable") else None

    @property
    def device_kind(self) -> str:
        return getattr(self.backend, "device_kind", self.platform)

    def __repr__(self) -> str:
        name = {"cpu": "Cpu", "wasm": "Wasm", "webgpu": "WebGPU"}.get(self.platform, self.platform.title())
        return f"{name}Device(id={self.id})"

    def __str__(self) -> str:
        return f"{self.platform}:{self.id}"

    def memory_stats(self) -> dict[str, int]:
        """Live and peak bytes and the ceiling (bytes_in_use, peak_bytes_in_use,
        bytes_limit, num_allocs, largest_alloc_size), as JAX's `Device.memory_stats()`."""
        return _memory.stats(self)


class Buffer:
    """Device memory for `size` elements of `dtype`. Freed when unreferenced.

    Raises `ResourceExhaustedError` (RESOURCE_EXHAUSTED) when it does not fit,
    naming `dtype[size]` and `context` (the operation and its shape, say)."""

    __slots__ = ("device", "handle", "dtype", "size", "nbytes", "_owned", "_ret", "node_ref", "__weakref__")
    #: the lazy graph's node of this buffer is found through `node_ref` (a weak reference the
    #: graph sets: compiler.graph.buffer), not through the graph's cache of nodes
    keeps_node = True

    def __init__(self, device: Device, size: int, dtype: DType, context: str | None = None,
                 handle: Any = None):
        self.device, self.dtype, self.size = device, dtype, size
        self.nbytes = size * dtype.itemsize
        self._owned = False
        self._ret = self.node_ref = None
        self.handle = _memory.alloc(device, self.nbytes, dtype, size, context) if handle is None else handle
        self._owned = True

    def release(self) -> None:
        """Give up the memory without freeing it (another Buffer has taken it over: donation)."""
        self._owned = False

    def __del__(self) -> None:
        if self._owned:
            self._owned = False
            ret = self._ret
            if ret is not None:  # noted only: given back with the rest of its call's outputs (memory.py)
                ret[self.handle] = self.nbytes
                return
            try:
                _memory.free(self.device, self.handle, self.nbytes)
            except Exception:  # interpreter shutdown: the runtime may be gone already
                pass

    @staticmethod
    def adopt(device: Device, handle: Any, size: int, dtype: DType) -> "Buffer":
        """A Buffer owning memory a schedule allocated (through `memory.alloc`) for its output
        (made directly: a jitted call makes one per output). Where the device takes memory back
        in sets (`Device.returned`), its death only notes the memory there (memory.py)."""
        b = Buffer.__new__(Buffer)
        b.device, b.handle, b.dtype, b.size, b.nbytes = device, handle, dtype, size, size * dtype.itemsize
        b._owned, b._ret, b.node_ref = True, device.returned, None
        return b

    def write(self, data: bytes | memoryview) -> None:
        trace = _profiler.active()
        t = trace.now() if trace is not None else 0.0
        self.device.backend.write(self.handle, data)
        if trace is not None:
            self._traced(trace, "host to device", t)

    def read(self) -> bytes | memoryview:
        trace = _profiler.active()
        if trace is None:
            return self.device.backend.read(self.handle, self.nbytes)
        t = trace.now()
        out = self.device.backend.read(self.handle, self.nbytes)
        self._traced(trace, "device to host", t)
        return out

    def _traced(self, trace: Any, what: str, t: float) -> None:
        dur = trace.now() - t
        trace.kernel(self.device.backend.trace_row(), f"{what} ({self.nbytes} bytes)", t, dur, track="transfers",
                     args={"GB/s": round(self.nbytes / max(dur, 1e-3) / 1e3, 3)})

    def __repr__(self) -> str:
        return f"Buffer({self.dtype.name}[{self.size}] on {self.device})"


# ---------------------------------------------------------------- registry
_FACTORIES: dict[str, tuple[int, Callable[[], Any]]] = {}
_DEVICES: dict[str, list[Device] | None] = {}
_ERRORS: dict[str, str] = {}


_MAY_BE_DEFAULT: dict[str, Callable[[], bool]] = {}


def register_backend(platform: str, factory: Callable[[], Any], priority: int,
                     may_be_default: Callable[[], bool] | None = None) -> None:
    """Make a platform available; `factory` raises if it cannot start here. `may_be_default`
    is a cheap check (no device started) that is False where the platform can only be a
    software fallback, so that choosing the default device does not start it."""
    _FACTORIES[platform] = (priority, factory)
    if may_be_default is not None:
        _MAY_BE_DEFAULT[platform] = may_be_default
    _DEVICES.pop(platform, None)
    _forget_default()


def _devices_of(platform: str) -> list[Device] | None:
    if platform not in _DEVICES:
        try:
            backend = _FACTORIES[platform][1]()
            _DEVICES[platform] = [Device(platform, 0, backend)]
        except Exception as e:  # unavailable here (no numpy, no GPU adapter, ...)
            _DEVICES[platform] = None
            _ERRORS[platform] = f"{type(e).__name__}: {e}"
    return _DEVICES[platform]


def _requested_platforms() -> list[str]:
    spec = _config.read("jax_platforms") or ""
    return [p.strip() for p in spec.split(",") if p.strip()]


def backends() -> list[str]:
    """Available platforms, in default-preference order."""
    req = _requested_platforms()
    if req:
        unknown = [p for p in req if p not in _FACTORIES]
        if unknown:
            raise RuntimeError(f"Unknown backend {unknown[0]!r}; known: {sorted(_FACTORIES)}")
        return [p for p in req if _devices_of(p)]
    order = sorted(_FACTORIES, key=lambda p: -_FACTORIES[p][0])
    return [p for p in order if _devices_of(p)]


_DEFAULT: list[str] = []  # the default platform, once found (cleared when the choice can change)


def _forget_default(*_: Any) -> None:
    _DEFAULT.clear()


_config.on_update("jax_platforms", _forget_default)


def _yes() -> bool:
    return True


def default_backend() -> str:
    if _DEFAULT:
        return _DEFAULT[0]
    names = [] if _requested_platforms() else [
        p for p in sorted(_FACTORIES, key=lambda p: -_FACTORIES[p][0])
        if _MAY_BE_DEFAULT.get(p, _yes)() and _devices_of(p)]
    names = names or backends()  # explicit platforms, or nothing else: software fallbacks too
    hardware = [p for p in names if not getattr(_DEVICES[p][0].backend, "software", False)]
    if hardware or names:
        _DEFAULT.append((hardware or names)[0])
        return _DEFAULT[0]
    detail = "; ".join(f"{p}: {e}" for p, e in _ERRORS.items())
    raise RuntimeError(f"Unable to initialize any jaxweb backend ({detail or 'none registered'})")


def devices(backend: str | None = None) -> list[Device]:
    """`jaxweb.devices()`: the devices of the default (or named) platform."""
    platform = backend or default_backend()
    if platform not in _FACTORIES:
        raise RuntimeError(f"Unknown backend {platform!r}; known: {sorted(_FACTORIES)}")
    devs = _devices_of(platform)
    if not devs:
        raise RuntimeError(f"Backend {platform!r} failed to initialize: {_ERRORS.get(platform)}")
    return list(devs)


local_devices = devices


def device_count(backend: str | None = None) -> int:
    return len(devices(backend))


def device_of_backend(backend: Any) -> Device:
    """The started device whose backend this is."""
    for devs in _DEVICES.values():
        for d in devs or ():
            if d.backend is backend:
                return d
    raise LookupError("no device runs this backend")


def default_device() -> Device:
    """The device new arrays go to now (honours `with jaxweb.default_device(...)`)."""
    d = _config.read("jax_default_device")
    if d is None:
        return devices()[0]
    if isinstance(d, str):
        return devices(d)[0]
    return d


@contextlib.contextmanager
def use_device(device: Device | str | None) -> Iterator[None]:
    """`jaxweb.default_device(device)` as a context manager."""
    with _config.override("jax_default_device", device):
        yield
