"""Bit packing of boolean (or nonzero) data into uint8 bytes: `packbits`, `unpackbits`."""
from __future__ import annotations

__all__ = ["packbits", "unpackbits"]

from typing import Any

from .. import core, dtypes
from ..lax import elementwise as lax
from .util import check_arraylike, ensure_array
from . import creation as _creation
from . import reductions as _reductions
from . import shape as _shape
from . import ufuncs as _ufuncs

_ORDERS = ("little", "big")


def _weights(bitorder: str) -> list[int]:
    if bitorder not in _ORDERS:
        raise ValueError("'order' must be either 'little' or 'big'")
    w = [1 << k for k in range(8)]
    return w[::-1] if bitorder == "big" else w


def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """`jnp.packbits`: groups of 8 truth values along `axis` (zero-padded) as uint8 bytes."""
    check_arraylike("packbits", a)
    x = ensure_array(a)
    if core.get_aval(x).dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    w = _weights(bitorder)
    bits = lax.convert_element_type(_ufuncs.not_equal(x, 0), dtypes.uint8)
    if axis is None:
        bits, axis = _shape.ravel(bits), 0
    bits = _shape.swapaxes(bits, axis, -1)
    n = core.get_aval(bits).shape[-1]
    if n % 8:
        bits = _shape.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, 8 - n % 8)])
    bits = _shape.reshape(bits, bits.shape[:-1] + (bits.shape[-1] // 8, 8))
    packed = _reductions.sum(bits * _creation.asarray(w, dtypes.uint8), axis=-1, dtype=dtypes.uint8)
    return _shape.swapaxes(packed, axis, -1)


def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:
    """`jnp.unpackbits`: each uint8 byte as 8 bits (0/1) along `axis`, `count` kept."""
    check_arraylike("unpackbits", a)
    x = ensure_array(a)
    if core.get_aval(x).dtype != dtypes.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    w = _creation.asarray(_weights(bitorder), dtypes.uint8)
    if axis is None:
        x, axis = _shape.ravel(x), 0
    x = _shape.swapaxes(x, axis, -1)
    bits = lax.convert_element_type(_ufuncs.bitwise_and(x[..., None], w) > 0, dtypes.uint8)
    bits = _shape.reshape(bits, bits.shape[:-2] + (-1,))
    if count is not None:
        if count > bits.shape[-1]:
            bits = _shape.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, count - bits.shape[-1])])
        else:
            bits = bits[..., :count]
    return _shape.swapaxes(bits, axis, -1)
