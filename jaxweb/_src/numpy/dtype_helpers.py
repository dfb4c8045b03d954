"""dtype predicates numpy has and JAX re-exports: `can_cast` and the array-API `isdtype`.

numpy's casting rules are data here (recorded from numpy with ml_dtypes' bfloat16), so
they hold without numpy: for each source dtype, the targets a 'safe' or 'same_kind' cast
allows besides itself.
"""
from __future__ import annotations

__all__ = ["can_cast", "isdtype"]

from typing import Any

from .. import core, dtypes

_SAFE = {
    "bool": "int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128",
    "int8": "int16 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int16": "int32 int64 float32 float64 complex64 complex128",
    "int32": "int64 float64 complex128",
    "int64": "float64 complex128",
    "uint8": "int16 int32 int64 uint16 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128",
    "uint16": "int32 int64 uint32 uint64 float32 float64 complex64 complex128",
    "uint32": "int64 uint64 float64 complex128",
    "uint64": "float64 complex128",
    "float16": "float32 float64 complex64 complex128",
    "bfloat16": "float32 float64 complex64 complex128",
    "float32": "float64 complex64 complex128",
    "float64": "complex128",
    "complex64": "complex128",
    "complex128": "",
}
_SAME_KIND = {
    "bool": _SAFE["bool"],
    "int8": "int16 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int16": "int8 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int32": "int8 int16 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int64": "int8 int16 int32 float16 bfloat16 float32 float64 complex64 complex128",
    "uint8": "int8 int16 int32 int64 uint16 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128",
    "uint16": "int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128",
    "uint32": "int8 int16 int32 int64 uint8 uint16 uint64 float16 bfloat16 float32 float64 complex64 complex128",
    "uint64": "int8 int16 int32 int64 uint8 uint16 uint32 float16 bfloat16 float32 float64 complex64 complex128",
    "float16": "bfloat16 float32 float64 complex64 complex128",
    "bfloat16": "float16 float32 float64 complex64 complex128",
    "float32": "float16 bfloat16 float64 complex64 complex128",
    "float64": "float16 bfloat16 float32 complex64 complex128",
    "complex64": "complex128",
    "complex128": "complex64",
}
_RULES = {"safe": _SAFE, "same_kind": _SAME_KIND}
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")

#: isdtype's kind names -> dtype kinds (array API).
_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def _source_dtype(x: Any) -> dtypes.DType:
    if core.is_python_scalar(x):
        raise TypeError("can_cast() does not support Python ints, floats, and complex because the "
                        "result used to depend on the value.")
    return dtypes.dtype(x)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """`jnp.can_cast`: whether numpy's `casting` rule allows converting from_ (a dtype or
    an array) to `to`."""
    if casting not in _CASTINGS:
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'")
    a, b = _source_dtype(from_), dtypes.dtype(to)
    if a is b or casting == "unsafe":
        return True
    if casting in ("no", "equiv"):
        return False
    return b.name in _RULES[casting].get(a.name, "").split()


def isdtype(dtype: Any, kind: Any) -> bool:
    """`jnp.isdtype`: whether `dtype` is of `kind` — a kind name ('bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric'), a
    dtype, or a tuple of these."""
    d = dtypes.dtype(dtype)
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _KINDS:
            if d.kind in _KINDS[k] and d is not dtypes.float0:
                return True
            continue
        try:
            if not isinstance(k, (str, type, dtypes.DType, dtypes.ScalarType)) and \
                    not hasattr(k, "itemsize"):
                raise TypeError(k)
            other = dtypes.dtype(k)
        except TypeError:
            if isinstance(k, str):
                raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_KINDS)}, or a "
                                 "compatible input for jnp.dtype()") from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from None
        if other is d:
            return True
    return False
