"""Arrays from functions, bytes and text: fromfunction, frombuffer, fromstring (and
JAX's refusals for fromiter and fromfile, which could consume a one-shot source).

frombuffer and fromstring decode on the host with `struct` and plain parsing, so they
need no numpy; fromfunction calls the function once on index grids through nested
`vmap`, as JAX does, so the function sees scalars and may use any jnp operation.
"""
from __future__ import annotations

__all__ = ["fromfunction", "frombuffer", "fromstring", "fromiter", "fromfile"]

from typing import Any, Callable

from .. import core, dtypes, hostdata
from ..array import array_from_bytes
from . import creation as _creation
from ..api import vmap
from .creation import _shape_tuple


def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """`jnp.fromfunction`: `function(i0, i1, ...)` over the index grid of `shape`."""
    shape = _shape_tuple(shape)
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(_creation.arange(n, dtype=dtype) for n in shape), **kwargs)


def _host_dtype(dtype: Any) -> dtypes.DType:
    return dtypes.dtype(dtype)


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """`jnp.frombuffer`: the bytes of `buffer` (from `offset`) read as `count` items of
    `dtype` (native little-endian layout, as numpy reads them)."""
    d = _host_dtype(dtype)
    view = memoryview(buffer).cast("B")[offset:]
    if d.itemsize == 0:
        raise ValueError("itemsize cannot be zero in type")
    if count < 0:
        if len(view) % d.itemsize:
            raise ValueError("buffer size must be a multiple of element size")
        count = len(view) // d.itemsize
    elif count * d.itemsize > len(view):
        raise ValueError("buffer is smaller than requested size")
    return array_from_bytes(view[:count * d.itemsize], d, (count,))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """`jnp.fromstring`: numbers separated by `sep` in text (whitespace around them is
    ignored; an empty separator means binary data, which numpy no longer supports)."""
    d = _host_dtype(dtype)
    if sep == "":
        raise ValueError("The binary mode of fromstring is removed, use frombuffer instead")
    parts = string.split(sep) if sep.strip() else string.split()
    parts = [p.strip() for p in parts if p.strip()]
    conv = float if d.kind == "f" else int
    values = []
    for p in parts[:count if count >= 0 else None]:
        try:
            values.append(conv(p))
        except ValueError:
            if d.kind in "iub":
                values.append(int(float(p)))
            else:
                break
    if 0 <= count and len(values) < count:
        raise ValueError(f"string is smaller than requested size")
    return _creation.asarray(values, dtype=dtypes.canonicalize_dtype(d)) if values else \
        _creation.zeros((0,), dtypes.canonicalize_dtype(d))


def fromiter(*args: Any, **kwargs: Any) -> Any:
    """Not provided, as in JAX: it may consume an iterator and is not pure."""
    raise NotImplementedError(
        "jnp.fromiter() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other JAX transformations. Consider using jnp.asarray(np.fromiter(...)) "
        "instead, although care should be taken if np.fromiter is used within a jax "
        "transformations because of its potential side-effect of consuming the iterable object.")


def fromfile(*args: Any, **kwargs: Any) -> Any:
    """Not provided, as in JAX: reading a file is not pure."""
    raise NotImplementedError(
        "jnp.fromfile() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other JAX transformations. Consider using jnp.asarray(np.fromfile(...)) "
        "instead, although care should be taken if np.fromfile is used within a jax "
        "transformations because of its potential side-effect of consuming the file object.")


del core
