"""`jax.dtypes`: dtype utilities under JAX's names.

`canonicalize_dtype` maps 64-bit types to 32-bit ones unless x64 is on; `result_type`
is JAX's promotion (with weak types); `float0` is the tangent dtype of integer inputs;
`extended` and `prng_key` are the abstract categories of non-numeric dtypes (key types).
"""
from jaxweb._src.dtypes import (TypePromotionError, bfloat16, canonicalize_dtype, extended, finfo,
                                float0, iinfo, issubdtype, prng_key, result_type)
from jaxweb._src.dtypes import dtype as _dtype
from jaxweb._src import core as _core

__all__ = ["TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo", "float0",
           "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type", "scalar_type_of"]

bfloat16 = bfloat16.type


def itemsize_bits(dtype) -> int:
    """The size of one element of `dtype` in bits (bool counts 8, as in JAX)."""
    return _dtype(dtype).itemsize * 8


_SCALAR_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def scalar_type_of(x) -> type:
    """The Python scalar type (bool, int, float, complex) matching the kind of x's dtype."""
    aval = _core.get_aval(x) if not isinstance(x, (int, float, complex, bool)) else None
    kind = aval.dtype.kind if aval is not None else _dtype(type(x)).kind
    try:
        return _SCALAR_TYPES[kind]
    except KeyError:
        raise TypeError(f"Invalid scalar value {x}") from None
