"""Record real JAX's results for the edge-semantics fuzzer (tests/edge_cases.py) into
tests/data/jax_edge_reference.json.gz. Run with a JAX install, on its CPU backend:
`JAX_PLATFORMS=cpu /path/to/jax-python tests/data/record_jax_edge.py`.

Each result is stored as its dtype, shape and raw little-endian bytes in hex (bit-exact, so
signed zeros and NaN survive), or as the error type JAX raised."""
import gzip
import json
import os
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import edge_cases  # noqa: E402


def operand(host, dt):
    x = jnp.asarray(host)
    return x.astype(jnp.bfloat16) if dt == "bfloat16" else x


def encode(x):
    a = np.asarray(x)
    dt = str(x.dtype)
    raw = a.view(np.uint16) if dt == "bfloat16" else a
    return {"dtype": dt, "shape": list(a.shape), "hex": np.ascontiguousarray(raw).tobytes().hex()}


def run(case, jit=None):
    """JAX's result for a case; a jitted case also records its eager result ('eager'): XLA's CPU
    backend keeps the bfloat16 intermediates of a fusion in float32 (excess precision), so a jitted
    program can round less often than the same program run op by op."""
    args = [operand(h, dt) for h, dt in edge_cases.hosts(case)]
    names = "abc"[:len(args)]
    f = eval(f"lambda {', '.join(names)}: {case['expr']}", edge_cases.namespace(case, jnp, jax))
    jit = case["jit"] if jit is None else jit
    if jit:
        out, eager = _call(jax.jit(f), args), run(case, jit=False)
        return out if eager == out else {**out, "eager": eager}  # kept only where they differ
    return _call(f, args)


def _call(f, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"leaves": [encode(v) for v in jax.tree_util.tree_leaves(f(*args))]}
    except Exception as e:  # noqa: BLE001  (JAX's error type is the reference)
        return {"error": type(e).__name__}


def main():
    out = {c["id"]: run(c) for c in edge_cases.cases()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_edge_reference.json.gz")
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(json.dumps({"jax_version": jax.__version__, "backend": jax.default_backend(),
                            "cases": out}, sort_keys=True, separators=(",", ":")).encode())
    print(len(out), "cases,", sum("error" in r for r in out.values()), "errors ->", path)


if __name__ == "__main__":
    main()
