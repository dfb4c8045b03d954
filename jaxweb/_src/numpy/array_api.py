"""The Python array API standard's metadata on `jaxweb.numpy` (version 2024.12, as JAX 0.10).

`__array_api_version__`, `__array_namespace_info__()` (what an array-API consumer inspects
before anything else: its devices, dtypes and capabilities), `Array.__array_namespace__`, and
DLPack exchange (`from_dlpack`, `Array.__dlpack__`). jaxweb's arrays live on a browser device
(wasm memory, a GPU buffer) that DLPack has no type for, so an export is a host copy on the
CPU device type, made through numpy (which must be installed: it is optional in Pyodide).
"""
from __future__ import annotations

import enum
from types import ModuleType
from typing import Any

from .. import config, device as _device, dtypes, hostdata
from ..array import Array
from .creation import asarray

__all__ = ["__array_api_version__", "__array_namespace_info__", "from_dlpack"]

__array_api_version__ = "2024.12"

#: the standard's dtype kinds and the names of the dtypes of each (float16/bfloat16 are not in it)
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
    "numeric": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
                "complex64", "complex128"),
}
_X64_ONLY = ("int64", "uint64", "float64", "complex128")


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (the ones `__dlpack_device__` can name)."""
    kDLCPU = 1


def _namespace_method(namespace: ModuleType):
    def __array_namespace__(self: Any, /, *, api_version: str | None = None) -> ModuleType:
        """`Array.__array_namespace__`: `jaxweb.numpy`; only the 2024.12 version is available."""
        if api_version is not None and api_version != __array_api_version__:
            raise ValueError(f"{api_version=!r} is not available; available versions are: "
                             f"{[__array_api_version__]}")
        return namespace
    return __array_namespace__


class ArrayNamespaceInfo:
    """`jnp.__array_namespace_info__()`: the namespace's devices, dtypes and capabilities."""

    _capabilities = {
        "boolean indexing": False,  # not within transformations: the result's shape depends on values
        "data-dependent shapes": False,  # likewise (nonzero, unique without size=)
        "max dimensions": 64,
    }

    def capabilities(self) -> dict:
        return dict(self._capabilities)

    def default_device(self) -> None:
        """None, as in JAX: an array made without a device is uncommitted (the current default)."""
        return None

    def devices(self) -> list:
        """None (uncommitted) and the device of every platform that starts here."""
        out: list = [None]
        for platform in _device.backends():
            out.extend(_device.devices(platform))
        return out

    def default_dtypes(self, *, device: Any = None) -> dict:
        del device  # every device has the same defaults
        return {"real floating": dtypes.default_float(), "complex floating": dtypes.default_complex(),
                "integral": dtypes.default_int(), "indexing": dtypes.default_int()}

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None) -> dict:
        """The standard's dtypes of `kind` (a kind name or a tuple of them; default: all numeric
        and bool); the 64-bit ones only with `jax_enable_x64`, as in JAX."""
        del device
        kinds = ("numeric", "bool") if kind is None else (kind if isinstance(kind, tuple) else (kind,))
        x64 = bool(config.read("jax_enable_x64"))
        out = {}
        for k in kinds:
            if k not in _KINDS:
                raise ValueError(f"Unrecognized kind={k!r}; expected one of {list(_KINDS)}")
            out.update((n, dtypes.dtype(n)) for n in _KINDS[k] if x64 or n not in _X64_ONLY)
        return out


def __array_namespace_info__() -> ArrayNamespaceInfo:  # noqa: N807  (the standard's name)
    return ArrayNamespaceInfo()


def _numpy(what: str) -> Any:
    np = hostdata.numpy_or_none()
    if np is None:
        raise BufferError(f"{what} goes through numpy, which is not installed")
    return np


def _dlpack(self: Any, /, *, stream: Any = None, max_version: tuple[int, int] | None = None,
            dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
    """`Array.__dlpack__`: a DLPack capsule of a host copy of the array (on the CPU device type)."""
    if dl_device is not None and tuple(dl_device) != (DLDeviceType.kDLCPU, 0):
        raise BufferError(f"jaxweb exports DLPack tensors to the CPU only, not to {dl_device}")
    if copy is False:
        raise BufferError("jaxweb's arrays live in device memory: a DLPack export is always a copy")
    host = _numpy("__dlpack__").array(self, copy=True)
    kwargs = {} if max_version is None else {"max_version": max_version}
    return host.__dlpack__(stream=stream, **kwargs)


def _dlpack_device(self: Any) -> tuple[DLDeviceType, int]:
    """`Array.__dlpack_device__`: exports are host copies, so (kDLCPU, 0)."""
    return DLDeviceType.kDLCPU, 0


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
    """`jnp.from_dlpack`: an Array of an object that exports DLPack (a numpy array, a torch
    tensor, ...). The data is always copied to the device (`copy=False` is an error)."""
    if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ methods.")
    if copy is False:
        raise BufferError("from_dlpack cannot share memory with a jaxweb device: copy=False is not possible")
    if isinstance(x, Array):
        out = x
    else:
        out = asarray(_numpy("from_dlpack").from_dlpack(x))
    return out if device is None else out.to_device(device)


def _setitem(self: Any, idx: Any, value: Any) -> None:
    raise TypeError("JAX arrays are immutable and do not support in-place item assignment. Instead of "
                    "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
                    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def install(cls: type, namespace: ModuleType) -> None:
    """The standard's array methods on Array (and on tracers, for `__array_namespace__`), whose
    namespace is `jaxweb.numpy` (passed in: that package imports this module)."""
    cls.__array_namespace__ = _namespace_method(namespace)
    cls.__setitem__ = _setitem
    if cls is Array:
        cls.__dlpack__ = _dlpack
        cls.__dlpack_device__ = _dlpack_device
