"""`jax.typing`: annotations for array-accepting code.

`ArrayLike` is anything jnp functions accept as an array (jaxweb Arrays, tracers,
Python scalars, numpy arrays and scalars); `DTypeLike` anything `jnp.dtype` accepts.
"""
from typing import Any, Union

from jaxweb._src.array import ArrayType as _Array
from jaxweb._src.dtypes import DType as _DType, ScalarType as _ScalarType

ArrayLike = Union[_Array, bool, int, float, complex, Any]
DTypeLike = Union[str, type, _DType, _ScalarType, Any]

__all__ = ["ArrayLike", "DTypeLike"]
