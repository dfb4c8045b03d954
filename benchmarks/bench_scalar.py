"""Cost of a 0-d array made from a Python scalar, `jnp.float32(v)`: a training loop makes a few
every step (an optimizer's bias corrections), so it is host time per step beside the jitted call.

    PYTHONPATH=$PWD python benchmarks/bench_scalar.py [--n 20000] [--rounds 7]
    node js_shim/node_run.mjs --pyodide .cache/pyodide-314.0.7 \\
        --wheel .cache/wheels/jaxweb-0.1.0-py3-none-any.whl benchmarks/bench_scalar.py   (Pyodide)

Prints, per kind of scalar, the best and the median round of `--n` scalars made and dropped
(us each), and the Python function calls one costs (sys.setprofile, not timed). Each value is
new (an optimizer's step count changes every step), so no cache of equal constants helps.
"""
import argparse
import statistics
import sys
import time

import jaxweb.numpy as jnp

KINDS = {
    "jnp.float32(float)": lambda v: jnp.float32(v),
    "jnp.int32(int)": lambda v: jnp.int32(int(v * 1e6)),
    "jnp.asarray(float)": lambda v: jnp.asarray(v),
    "jnp.array(float, float32)": lambda v: jnp.array(v, jnp.float32),
}


def per_scalar(make, n: int) -> float:
    """us per scalar made (and dropped: a step's scalars die after it) over n new values."""
    vals = [1.0 / (i + 3) for i in range(n)]
    t0 = time.perf_counter()
    for v in vals:
        make(v)
    return (time.perf_counter() - t0) / n * 1e6


def calls_of(make) -> int:
    counted = [0]

    def count(frame, event, arg):
        if event == "call":
            counted[0] += 1
    sys.setprofile(count)
    try:
        make(0.123)
    finally:
        sys.setprofile(None)
    return counted[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    for name, make in KINDS.items():
        per_scalar(make, 200)  # warm up
        times = [per_scalar(make, args.n) for _ in range(args.rounds)]
        print(f"{name:28s} best {min(times):7.3f}  median {statistics.median(times):7.3f} us/scalar"
              f"   {calls_of(make) - 1:3d} Python calls")


if __name__ == "__main__":
    main()
