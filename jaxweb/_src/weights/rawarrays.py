"""Arrays <-> little-endian bytes, and the one error type of the weight formats.

Arrays are built straight from a byte buffer (a memoryview of a memory-mapped file
costs one copy, into device memory). 64-bit data becomes 32-bit when x64 is off, as
`jnp.asarray` does with numpy arrays.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from .. import core, dtypes, hostdata
from ..array import Array, array_from_bytes  # noqa: F401  (re-exported for the formats)
from ..numpy.creation import asarray


def format_error(name: str, problem: str) -> ValueError:
    """The error for a bad file: names the file and what is wrong with it."""
    return ValueError(f"{name}: {problem}")


def nbytes_of(dtype: dtypes.DType, shape: Sequence[int]) -> int:
    return math.prod(shape) * dtype.itemsize


def array_bytes(x: Any) -> tuple[bytes | memoryview, dtypes.DType, tuple[int, ...]]:
    """(little-endian C-order bytes, dtype, shape) of an array-like (Arrays, numpy arrays,
    Python scalars and lists)."""
    np = hostdata.numpy_or_none()
    if np is not None and isinstance(x, (np.ndarray, np.generic)) and x.dtype.name in dtypes._BY_NAME:
        dt = dtypes.dtype(x.dtype.name)
        return hostdata.from_numpy(x, dt), dt, tuple(x.shape)
    if isinstance(x, core.Tracer):
        raise TypeError("saving needs concrete arrays, got a tracer (inside jit/grad/vmap?)")
    a = asarray(x)
    if a.dtype.kind == "c" or a.dtype is dtypes.float0:
        raise TypeError(f"cannot save arrays of dtype {a.dtype}")
    return a._host_bytes(), a.dtype, tuple(a.shape)
