"""Record JAX's results for tests/complex_cases.py (run once with a JAX install:
`/path/to/jax-python tests/data/record_jax_complex.py`); writes the JSON beside it."""
import json
import math
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from complex_cases import CASES, PRELUDE  # noqa: E402


def enc(v):
    v = float(v)
    return v if math.isfinite(v) else str(v)


def leaf(x):
    a = np.asarray(x)
    flat = a.reshape(-1)
    if a.dtype.kind == "c":
        values = [[enc(v.real), enc(v.imag)] for v in flat]
    elif a.dtype.kind == "b":
        values = [bool(v) for v in flat]
    else:
        values = [enc(v) for v in flat]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": values,
            "weak_type": bool(getattr(x, "weak_type", False))}


def main():
    env = {"jax": jax, "jnp": jnp, "lax": lax}
    exec(PRELUDE, env)
    out = {}
    for name, expr in CASES.items():
        try:
            result = eval(expr, env)
        except Exception as e:  # noqa: BLE001  (the error is the reference)
            out[name] = {"error": type(e).__name__, "message": str(e).splitlines()[0]}
            continue
        out[name] = {"leaves": [leaf(v) for v in jax.tree_util.tree_leaves(result)]}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_complex_reference.json")
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
