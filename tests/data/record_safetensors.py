"""Write reference safetensors files with the `safetensors` package itself (run once):

    PYTHONPATH=<dir with safetensors 0.8 and ml_dtypes> python tests/data/record_safetensors.py

`reference_tensors()` is shared with the tests, which read these files with
jaxweb.safetensors and check that jaxweb writes byte-identical ones.
"""
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
NAMES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "U16": "uint16", "F16": "float16",
         "BF16": "bfloat16", "I32": "int32", "U32": "uint32", "F32": "float32", "F64": "float64",
         "I64": "int64", "U64": "uint64"}


def reference_values(code: str) -> list:
    """Values that exercise each dtype (signs, fractions exact in 8 mantissa bits, extremes)."""
    if code == "BOOL":
        return [True, False, True, True, False, True]
    if code.startswith("F") or code == "BF16":
        return [0.0, -1.5, 2.25, 65504.0 if code == "F16" else 3.0e38 if code in ("F32", "BF16") else 1e300,
                -0.0078125, 7.0]
    bits = int(code[1:])
    lo, hi = (0, 2 ** bits - 1) if code[0] == "U" else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    return [lo, hi, 0, 1, hi // 3, lo // 5]


def reference_tensors(np_module=np, bfloat16=None) -> dict:
    out = {}
    for i, (code, name) in enumerate(NAMES.items()):
        dt = bfloat16 if code == "BF16" else np_module.dtype(name)
        shape = [(6,), (2, 3), (3, 1, 2)][i % 3]
        out[f"t_{code.lower()}"] = np_module.array(reference_values(code), dtype=dt).reshape(shape)
    out["scalar"] = np_module.array(3.5, dtype=np_module.float32)
    out["empty"] = np_module.zeros((0, 4), dtype=np_module.float32)
    return out


if __name__ == "__main__":
    import ml_dtypes
    from safetensors.numpy import save_file
    tensors = reference_tensors(np, ml_dtypes.bfloat16)
    save_file(tensors, str(HERE / "reference_every_dtype.safetensors"))
    save_file({"w": tensors["t_f32"]}, str(HERE / "reference_metadata.safetensors"),
              metadata={"format": "np", "note": "written by safetensors 0.8"})
    print("wrote", sorted(p.name for p in HERE.glob("reference_*.safetensors")))
