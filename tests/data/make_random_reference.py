"""Record JAX's jax.random outputs for tests/data/random_cases.py into random_reference.json.

Run with the reference JAX (never a test dependency of jaxweb):

    /work/jaxref/bin/python tests/data/make_random_reference.py

Arrays are stored as dtype, shape and base64 of their little-endian bytes (exact);
for ERRORS the exception type and message are stored.
"""
from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import jax  # noqa: E402

from random_cases import CASES, ERRORS, run  # noqa: E402


def _flags(c: dict) -> None:
    jax.config.update("jax_enable_x64", c["x64"])
    jax.config.update("jax_threefry_partitionable", c["partitionable"])


def encode(x) -> dict:
    a = np.asarray(x)
    name = str(a.dtype)
    if a.dtype == bool:
        a = a.astype(np.uint8)
    elif name == "bfloat16":
        a = a.view(np.uint16)
    return {"dtype": name, "shape": list(a.shape), "data": base64.b64encode(a.astype(a.dtype.newbyteorder("<")).tobytes()).decode()}


def main() -> None:
    out = {"jax_version": jax.__version__, "backend": jax.default_backend(), "cases": {}, "errors": {}}
    for c in CASES:
        _flags(c)
        out["cases"][c["name"]] = encode(run(c, jax))
    for c in ERRORS:
        _flags(c)
        try:
            run(c, jax)
        except Exception as e:  # noqa: BLE001 - recording whatever JAX raises
            out["errors"][c["name"]] = {"type": type(e).__name__, "message": str(e).split("\n")[0][:400]}
        else:
            out["errors"][c["name"]] = {"type": None, "message": ""}
    path = HERE / "random_reference.json"
    path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes, {len(out['cases'])} cases, {len(out['errors'])} errors)")


if __name__ == "__main__":
    main()
