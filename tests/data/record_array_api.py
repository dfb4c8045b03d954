"""Record the Python array API standard (2024.12) as array-api-strict 2.6.1, its reference
implementation, gives it, into tests/data/array_api_2024_12.json for tests/test_array_api.py:
the names of the namespace, `linalg`, `fft`, the array object and the inspection object, with
the parameters each function takes positionally and by keyword; the type promotion table; and
the results of every real elementwise function on a grid of special values (signed zeros,
infinities, NaN, values around 0 and 1). Run in an environment with array-api-strict:
`python -m venv v && v/bin/pip install array_api_strict numpy && v/bin/python tests/data/record_array_api.py`
"""
import inspect
import itertools
import json
import math
import os

import array_api_strict as xp
import numpy as np

xp.set_array_api_strict_flags(api_version="2024.12")
P = inspect.Parameter
_INTERNAL = {"ArrayAPIStrictFlags", "Device", "get_array_api_strict_flags", "set_array_api_strict_flags",
             "reset_array_api_strict_flags", "__version__"}
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
          "complex64", "complex128"]
_NOT_ELEMENTWISE = {"asarray", "cumulative_prod", "cumulative_sum", "empty_like", "flip", "from_dlpack", "ones_like",
                    "sort", "stack", "zeros_like"}
SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, -3.0, 1e-3, 1e30]


def describe(obj):
    if inspect.isclass(obj) or not callable(obj):
        return {"kind": "value"}
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return {"kind": "function"}
    params = [p for p in sig.parameters.values() if p.name != "self"]
    return {"kind": "function",
            "positional": [p.name for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)],
            "keyword": [p.name for p in params if p.kind in (P.KEYWORD_ONLY, P.POSITIONAL_OR_KEYWORD)],
            "varargs": any(p.kind == P.VAR_POSITIONAL for p in params)}


def names():
    out = {}
    for n in xp.__all__:
        if n not in _INTERNAL and n not in ("linalg", "fft"):
            out[n] = describe(getattr(xp, n))
    for mod in ("linalg", "fft"):
        for n in getattr(xp, mod).__all__:
            out[f"{mod}.{n}"] = describe(getattr(getattr(xp, mod), n))
    arr = type(xp.asarray([1.0]))
    for n in sorted(vars(arr)):
        if n.startswith("_") and not (n.startswith("__") and n.endswith("__")):
            continue
        if n in ("__init__", "__new__", "__module__", "__doc__", "__slots__", "__dict__", "__weakref__", "__hash__",
                 "__annotations__", "__buffer__", "__reduce__", "__getstate__", "__setstate__", "__repr__", "__str__",
                 "__array__", "__firstlineno__", "__static_attributes__") or n.startswith("__i") and n[3:-2] in (
                 "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
                 "lshift", "rshift"):
            continue  # not the standard's, or in-place operators (a JAX array is immutable: x += y rebinds x)
        v = vars(arr)[n]
        out[f"Array.{n}"] = {"kind": "attribute"} if isinstance(v, property) else describe(v)
    info = xp.__array_namespace_info__()
    for n in dir(info):
        if not n.startswith("_"):
            out[f"info.{n}"] = describe(getattr(info, n))
    return out


def promotion():
    out = []
    for a, b in itertools.combinations_with_replacement(DTYPES, 2):
        try:
            r = xp.result_type(getattr(xp, a), getattr(xp, b))
        except TypeError:
            continue
        out.append([a, b, str(r).rsplit(".", 1)[-1]])
    return out


def enc(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v) or v == 0:
        return repr(v)
    return v


def special_cases():
    """Each real elementwise function of the standard on the special grid (float32; pairs for binary)."""
    out = {}
    x = xp.asarray(SPECIALS, dtype=xp.float32)
    pa = xp.asarray([a for a in SPECIALS for _ in SPECIALS], dtype=xp.float32)
    pb = xp.asarray([b for _ in SPECIALS for b in SPECIALS], dtype=xp.float32)
    for n in xp.__all__:
        f = getattr(xp, n)
        d = describe(f)
        if d.get("kind") != "function" or d.get("varargs") or n in _INTERNAL or n in _NOT_ELEMENTWISE:
            continue
        for args in ((x,), (pa, pb)):
            if len(d["positional"]) != len(args):
                continue
            try:
                with np.errstate(all="ignore"):
                    r = f(*args)
            except Exception:  # noqa: BLE001  (not an elementwise function of floats)
                continue
            kind = str(r.dtype).rsplit(".", 1)[-1] if hasattr(r, "dtype") and hasattr(r, "shape") else None
            if kind not in ("float32", "bool") or r.shape != args[0].shape:
                continue
            out[n] = [enc(v) if kind == "float32" else bool(v) for v in np.asarray(r)]
    return out


def main():
    data = {"api_version": xp.__array_api_version__, "array_api_strict": xp.__version__, "names": names(),
            "promotion": promotion(), "specials": [enc(v) for v in SPECIALS], "special_cases": special_cases()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "array_api_2024_12.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
    print(len(data["names"]), "names,", len(data["promotion"]), "promotions,", len(data["special_cases"]), "functions")


if __name__ == "__main__":
    main()
