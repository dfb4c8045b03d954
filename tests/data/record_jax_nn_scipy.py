"""Record JAX's outputs for tests/nn_scipy_cases.py (run once with a JAX install:
`/path/to/jax-python tests/data/record_jax_nn_scipy.py`); writes the JSON beside it.
`... record_jax_nn_scipy.py scipy_more_cases jax_scipy_more_reference.json` records
another case module of the same format (tests/scipy_more_cases.py)."""
import json
import math
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE, OUT = (sys.argv[1], sys.argv[2]) if len(sys.argv) > 2 else ("nn_scipy_cases", "jax_nn_scipy_reference.json")
CASES = __import__(MODULE).CASES
from case_args import build, lookup  # noqa: E402


def enc(v):
    v = float(v)
    return "nan" if math.isnan(v) else ("inf" if v == math.inf else ("-inf" if v == -math.inf else v))


def record(x):
    x = jnp.asarray(x)
    host = np.asarray(x)
    part = host.real if host.dtype.kind == "c" else host
    vals = (part if part.dtype == bool else part.astype(np.float64)).tolist()
    walk = lambda t: [walk(u) for u in t] if isinstance(t, list) else (t if isinstance(t, bool) else enc(t))
    out = {"dtype": str(x.dtype), "weak_type": bool(getattr(x, "weak_type", False)),
           "shape": list(x.shape), "values": walk(vals)}
    if host.dtype.kind == "c":  # complex results: the imaginary parts beside the real ones
        out["imag"] = walk(host.imag.astype(np.float64).tolist())
    return out


out = {}
for cid, path, args, kwargs, mode in CASES:
    fn = lookup(jax, path)
    a = [build(v, jnp.asarray) for v in args]
    kw = {k: (build(v, jnp.asarray) if isinstance(v, tuple) else v) for k, v in kwargs.items()}
    try:
        if mode == "value":
            res = fn(*a, **kw)
        else:
            argnum = {"grad": 0, "gradarg1": 1, "gradarg2": 2}[mode]
            axes = [0 if i == argnum else None for i in range(len(a))]
            res = jax.vmap(jax.grad(lambda *xs: fn(*xs, **kw), argnums=argnum), in_axes=axes)(*a)
        out[cid] = [record(r) for r in res] if isinstance(res, (tuple, list)) else record(res)
    except Exception as e:  # noqa: BLE001
        out[cid] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, OUT), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=0, sort_keys=True)
print(len(out), "cases recorded with jax", jax.__version__)
