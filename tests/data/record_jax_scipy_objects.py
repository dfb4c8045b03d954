"""Record JAX's outputs for tests/scipy_object_cases.py (run once with a JAX install:
`/path/to/jax-python tests/data/record_jax_scipy_objects.py`); writes the JSON beside it."""
import json
import os
import sys

import jax
import jax.numpy as jnp
import jax.scipy.cluster.vq  # noqa: F401
import jax.scipy.interpolate  # noqa: F401
import jax.scipy.optimize  # noqa: F401
import jax.scipy.sparse.linalg  # noqa: F401
import jax.scipy.spatial.transform  # noqa: F401
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scipy_object_cases import outputs  # noqa: E402

out = {}
for name, value in outputs(jax, jnp, jax.scipy).items():
    host = np.asarray(value)
    out[name] = {"dtype": str(host.dtype), "shape": list(host.shape),
                 "values": [None if np.isnan(v) else v for v in host.astype(np.float64).ravel().tolist()]}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "jax_scipy_objects_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "outputs": out}, f, indent=0, sort_keys=True)
print(len(out), "outputs recorded with jax", jax.__version__)
