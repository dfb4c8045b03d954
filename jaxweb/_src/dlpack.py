"""`jax.dlpack` / `jnp.from_dlpack`: arrays from other libraries' DLPack tensors.

jaxweb's memory is a WebAssembly heap or GPU buffers that a DLPack consumer cannot
address, so the tensor is read through numpy's DLPack support (a zero-copy host view) and
copied into an Array on the default device (or `device`). `copy=False` cannot be honoured
and raises, as JAX does when a copy would be needed.
"""
from __future__ import annotations

__all__ = ["from_dlpack", "is_supported_dtype"]

from typing import Any

from . import dtypes, hostdata
from .array import Array
from .dispatch import device_put
from .lax.elementwise import asarray

_SUPPORTED = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                        "bfloat16", "float32", "float64", "complex64", "complex128", "bool"})


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of `dtype` can be exchanged through DLPack (JAX's list)."""
    return dtypes.dtype(dtype).name in _SUPPORTED


def from_dlpack(external_array: Any, device: Any = None, copy: Any = None) -> Array:
    """`jax.dlpack.from_dlpack`: an Array with the contents of an object that has
    `__dlpack__` and `__dlpack_device__` (a numpy, torch, cupy-on-host ... tensor)."""
    if not isinstance(external_array, Array) and not hasattr(external_array, "__dlpack__"):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ methods.")
    if copy is False:
        raise ValueError("jaxweb: from_dlpack must copy (device memory here is not addressable through DLPack); "
                         "pass copy=None or copy=True")
    if isinstance(external_array, Array):
        out = external_array
    else:
        np = hostdata.numpy_or_none()
        if np is None:
            raise RuntimeError("jaxweb: from_dlpack reads the tensor through numpy, which is not installed")
        host = np.from_dlpack(external_array)
        if not is_supported_dtype(host.dtype.name):
            raise TypeError(f"Array of dtype {host.dtype} is not supported by DLPack")
        out = asarray(np.ascontiguousarray(host))
    return out if device is None else device_put(out, device)
