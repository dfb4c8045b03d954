"""Bit packing of boolean (or nonzero) data into uint8 bytes: `packbits`, `unpackbits`."""
from __future__ import annotations

__all__ = ["packbits", "unpackbits"]

import importlib
from typing import Any

from .. import core, dtypes
from ..lax import elementwise as lax
from .util import check_arraylike, ensure_array

_ORDERS = ("little", "big")


def _jnp() -> Any:
    return importlib.import_module("jaxweb.numpy")


def _weights(bitorder: str) -> list[int]:
    if bitorder not in _ORDERS:
        raise ValueError("'order' must be either 'little' or 'big'")
    w = [1 << k for k in range(8)]
    return w[::-1] if bitorder == "big" else w


def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """`jnp.packbits`: groups of 8 truth values along `axis` (zero-padded) as uint8 bytes."""
    check_arraylike("packbits", a)
    jnp = _jnp()
    x = ensure_array(a)
    if core.get_aval(x).dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    w = _weights(bitorder)
    bits = lax.convert_element_type(jnp.not_equal(x, 0), dtypes.uint8)
    if axis is None:
        bits, axis = jnp.ravel(bits), 0
    bits = jnp.swapaxes(bits, axis, -1)
    n = core.get_aval(bits).shape[-1]
    if n % 8:
        bits = jnp.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, 8 - n % 8)])
    bits = jnp.reshape(bits, bits.shape[:-1] + (bits.shape[-1] // 8, 8))
    packed = jnp.sum(bits * jnp.asarray(w, dtypes.uint8), axis=-1, dtype=dtypes.uint8)
    return jnp.swapaxes(packed, axis, -1)


def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:
    """`jnp.unpackbits`: each uint8 byte as 8 bits (0/1) along `axis`, `count` kept."""
    check_arraylike("unpackbits", a)
    jnp = _jnp()
    x = ensure_array(a)
    if core.get_aval(x).dtype != dtypes.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    w = jnp.asarray(_weights(bitorder), dtypes.uint8)
    if axis is None:
        x, axis = jnp.ravel(x), 0
    x = jnp.swapaxes(x, axis, -1)
    bits = lax.convert_element_type(jnp.bitwise_and(x[..., None], w) > 0, dtypes.uint8)
    bits = jnp.reshape(bits, bits.shape[:-2] + (-1,))
    if count is not None:
        if count > bits.shape[-1]:
            bits = jnp.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, count - bits.shape[-1])])
        else:
            bits = bits[..., :count]
    return jnp.swapaxes(bits, axis, -1)
