"""Array printing like JAX's (`Array([1., 2.], dtype=float32)`).

numpy's formatter is used when importable (JAX prints through it too); in
Pyodide without numpy a small formatter gives the same layout for common cases.
"""
from __future__ import annotations

import math
import struct
from typing import Any

from . import hostdata


def array_repr(x: Any) -> str:
    suffix = f"dtype={x.dtype.name}" + (", weak_type=True" if x.weak_type else "")
    prefix = "Array("
    if x.size == 0 and x.ndim > 0 or x.size > 0:
        body = _format(x, ", ", prefix)
    else:
        body = "[]"
    if x.size == 0:
        # numpy omits the shape of an empty 1-d array, except for dtypes it does not own
        shape = f"shape={x.shape}, " if x.ndim != 1 or x.dtype.name == "bfloat16" else ""
        return f"{prefix}[], {shape}{suffix})"
    # JAX's rule: a dtype that would overflow the last line is set off by the prefix's
    # width in spaces (on the same line)
    last = len(body) - body.rfind("\n") + 1
    sep = " " * len(prefix) if last + len(suffix) + 1 > _LINE_WIDTH else " "
    return f"{prefix}{body},{sep}{suffix})"


_LINE_WIDTH = 75  # numpy's default linewidth, which JAX prints with


def array_str(x: Any) -> str:
    if x.ndim == 0:
        return _scalar_str(x)
    return _format(x, " ", "")


def _scalar_str(x: Any) -> str:
    """`str` of a 0-d array is its scalar's: '3.0', '0.1', '1e+20' (bfloat16: '%g'),
    '(1.5-0.25j)' (complex: numpy's scalar text, each part at its own precision)."""
    v = x.item()
    if x.dtype.name == "bfloat16":
        return _bf16_text(v)
    if x.dtype.kind == "c":
        bits = x.dtype.itemsize * 4
        re, im = (_short(p, bits) for p in (v.real, v.imag))
        re, im = (t[:-2] if t.endswith(".0") else t for t in (re, im))
        if v.real == 0 and math.copysign(1.0, v.real) > 0:
            return f"{im}j"
        return f"({re}{'' if im[0] == '-' else '+'}{im}j)"
    if x.dtype.kind != "f":
        return str(v)
    return _short(v, x.dtype.itemsize * 8)


def _short(v: float, bits: int) -> str:
    """The shortest digits of v that round-trip at `bits` of precision, as repr() writes them."""
    if not math.isfinite(v):
        return str(v)
    for p in range(1, 18):
        digits = f"{v:.{p}g}"
        if bits >= 64 or _roundtrips(float(digits), v, bits):
            break
    return repr(float(digits))


def _bf16_text(v: float) -> str:
    """How ml_dtypes (and so JAX) prints a bfloat16: '%g', no padding ('2', '0.333984')."""
    if math.isnan(v):
        return "nan"
    return f"{v:g}"


def _format(x: Any, sep: str, prefix: str) -> str:
    if x.dtype.name == "bfloat16":  # numpy has no bfloat16 without ml_dtypes: format here
        return _plain_format(x._host_flat(), x.shape, x.dtype, sep, prefix)
    np = hostdata.numpy_or_none()
    if np is not None:
        arr = x.__array__()
        if x.ndim == 0:
            return np.array2string(arr, separator=sep)
        return np.array2string(arr, separator=sep, prefix=prefix, suffix="," if prefix else "")
    return _plain_format(x._host_flat(), x.shape, x.dtype, sep, prefix)


def _float_text(v: float, bits: int) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 1e16:
        return f"{int(v)}." if v != 0 or math.copysign(1, v) > 0 else "-0."
    for p in range(1, 18):  # shortest text that round-trips at this precision
        s = f"{v:.{p}g}"
        if bits >= 64 or _roundtrips(float(s), v, bits):
            return s
    return repr(v)


def _float_texts(flat: list, bits: int) -> list:
    """numpy's layout: shortest digits, integer parts right-aligned, fractions padded."""
    finite = [abs(v) for v in flat if math.isfinite(v) and v != 0]
    if finite and (max(finite) >= 1e8 or min(finite) < 1e-4 or max(finite) / min(finite) > 1e3):
        return [_exp_text(v, bits) for v in flat]
    texts = [_float_text(v, bits) for v in flat]
    parts = [t.split(".", 1) if "." in t else [t, None] for t in texts]
    frac_w = max((len(f) for _, f in parts if f is not None), default=0)
    return [i + "." + f.ljust(frac_w) if f is not None else i.ljust(len(i) + frac_w + 1) for i, f in parts]


def _complex_texts(flat: list, bits: int) -> list:
    """numpy's layout of complex values: real parts laid out as floats, imaginary parts
    signed, and the 'j' before the imaginary part's padding ('1.+2.j ', '0.-3.5j')."""
    re = _float_texts([v.real for v in flat], bits)
    im = [t if t.startswith("-") else "+" + t for t in _float_texts([v.imag for v in flat], bits)]
    rw, iw = max(map(len, re), default=0), max(map(len, im), default=0)
    out = []
    for r, i in zip(re, im):
        i = i.rjust(iw)
        core = i.rstrip()
        out.append(r.rjust(rw) + core + "j" + i[len(core):])
    return out


def _exp_text(v: float, bits: int) -> str:
    if not math.isfinite(v):
        return _float_text(v, bits)
    for p in range(0, 17):
        s = f"{v:.{p}e}"
        if bits >= 64 or _roundtrips(float(s), v, bits):
            break
    mant, exp = s.split("e")
    mant = mant if "." in mant else mant + "."
    return f"{mant}e{exp[0]}{exp[1:].zfill(2)}"


def _roundtrips(a: float, b: float, bits: int) -> bool:
    fmt = {32: "<f", 16: "<e"}.get(bits)
    if fmt is None:
        return struct.pack("<f", a)[:2] == struct.pack("<f", b)[:2]  # bfloat16: top bits
    try:
        return struct.pack(fmt, a) == struct.pack(fmt, b)
    except OverflowError:
        return False


def _plain_format(flat: list, shape: tuple, dtype: Any, sep: str, prefix: str) -> str:
    if dtype.kind == "b":
        texts = [" True" if v else "False" for v in flat] if any(not v for v in flat) else ["True"] * len(flat)
    elif dtype.name == "bfloat16":
        texts = [_bf16_text(v) for v in flat]
    elif dtype.kind == "f":
        texts = _float_texts(flat, dtype.itemsize * 8)
    elif dtype.kind == "c":
        texts = _complex_texts(flat, dtype.itemsize * 4)
    else:
        texts = [str(v) for v in flat]
    width = 0 if dtype.name == "bfloat16" else max((len(t) for t in texts), default=0)
    texts = [t.rjust(width) for t in texts]
    if not shape:
        return texts[0]
    it = iter(texts)

    def build(dims: tuple, depth: int) -> str:
        if len(dims) == 1:
            return "[" + sep.join(next(it) for _ in range(dims[0])) + "]"
        rows = [build(dims[1:], depth + 1) for _ in range(dims[0])]
        joiner = sep.rstrip() + "\n" * (len(dims) - 1) + " " * (len(prefix) + depth + 1)
        return "[" + joiner.join(rows) + "]"

    return build(tuple(shape), 0)
