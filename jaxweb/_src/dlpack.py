"""`jax.dlpack`: from_dlpack (the one `jnp.from_dlpack` is, in numpy/array_api.py: a copy
through numpy's DLPack support) and is_supported_dtype."""
from __future__ import annotations

__all__ = ["from_dlpack", "is_supported_dtype"]

from typing import Any

from . import dtypes
from .numpy.array_api import from_dlpack  # noqa: F401

_SUPPORTED = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                        "bfloat16", "float32", "float64", "complex64", "complex128", "bool"})


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of `dtype` can be exchanged through DLPack (JAX's list)."""
    return dtypes.dtype(dtype).name in _SUPPORTED
