"""Record JAX's initializer outputs for tests/initializer_cases.py (run with a JAX
install); writes jax_initializers_reference.json beside this file."""
import json
import os
import sys

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from initializer_cases import CASES  # noqa: E402

out = {}
key = jax.random.PRNGKey(42)
for cid, name, kwargs, shape, dtype in CASES:
    fn = getattr(jax.nn.initializers, name)
    init = fn if kwargs is None else fn(**kwargs)
    res = init(key, shape, dtype) if dtype else init(key, shape)
    out[cid] = {"dtype": str(res.dtype), "shape": list(res.shape),
                "values": np.asarray(res).astype(np.float64).ravel().tolist()}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_initializers_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=0, sort_keys=True)
print(len(out), "initializer cases recorded")
