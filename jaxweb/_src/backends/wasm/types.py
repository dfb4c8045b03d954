"""How each jaxweb dtype lives in Wasm: value type, load/store ops, normalization.

Narrow integers (8/16-bit) and bool compute in i32 and are kept normalized
(sign- or zero-extended) after every op, so comparisons and division need no
fix-ups; float16/bfloat16 compute in f32 and are rounded after every op.
"""
from __future__ import annotations

from ...dtypes import DType

VALTYPE = {
    "bool": "i32", "int8": "i32", "uint8": "i32", "int16": "i32", "uint16": "i32",
    "int32": "i32", "uint32": "i32", "int64": "i64", "uint64": "i64",
    "float16": "f32", "bfloat16": "f32", "float32": "f32", "float64": "f64",
}

LOAD = {  # dtype -> memory op reading it (16-bit floats read their bits)
    "bool": "i32.load8_u", "int8": "i32.load8_s", "uint8": "i32.load8_u",
    "int16": "i32.load16_s", "uint16": "i32.load16_u", "int32": "i32.load", "uint32": "i32.load",
    "int64": "i64.load", "uint64": "i64.load", "float16": "i32.load16_u",
    "bfloat16": "i32.load16_u", "float32": "f32.load", "float64": "f64.load",
}

STORE = {
    "bool": "i32.store8", "int8": "i32.store8", "uint8": "i32.store8", "int16": "i32.store16",
    "uint16": "i32.store16", "int32": "i32.store", "uint32": "i32.store", "int64": "i64.store",
    "uint64": "i64.store", "float16": "i32.store16", "bfloat16": "i32.store16",
    "float32": "f32.store", "float64": "f64.store",
}

NORMALIZE = {  # ops that bring an i32 back into a narrow type's range
    "int8": ("i32.extend8_s",), "int16": ("i32.extend16_s",),
    "uint8": (("i32.const", 0xFF), "i32.and"), "uint16": (("i32.const", 0xFFFF), "i32.and"),
    "bool": (("i32.const", 1), "i32.and"),
}

HALF = ("float16", "bfloat16")


def vt(dt: DType) -> str:
    try:
        return VALTYPE[dt.name]
    except KeyError:
        raise NotImplementedError(f"wasm backend: dtype {dt.name} is not supported") from None


def signed(dt: DType) -> bool:
    return dt.kind == "i"


def bits(dt: DType) -> int:
    return 1 if dt.kind == "b" else dt.itemsize * 8


