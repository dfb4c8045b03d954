"""`jnp.float32(x)` & co.: the base floor's scalar types, made callable here.

`dtypes.ScalarType` is a dtype-like that the base floor needs without arrays; calling one
is `jnp.asarray(x, dtype)`, so that part lives with jnp (as JAX's scalar types live in
`jax/_src/numpy/scalar_types.py`). Importing this module gives every `dt.type` its call.
"""
from __future__ import annotations

from typing import Any

from .. import core, dtypes
from ..host_arrays import from_python_scalar
from .creation import asarray


class ScalarType(dtypes.ScalarType):
    """What `jnp.float32` is: a dtype-like callable that makes 0-d arrays."""

    def __call__(self, x: Any = 0) -> Any:
        if core.is_python_scalar(x):  # what asarray does for one, without its checks for other inputs
            return from_python_scalar(x, dtypes.canonicalize_dtype(self._dtype))
        return asarray(x, dtype=self._dtype)


for _d in dtypes.ALL + (dtypes.float0,):
    ScalarType(_d)  # sets _d.type
