"""Host time per steady jitted call of the MNIST MLP step on webgpu, by part: issue 22's last
target (<= 0.3 ms per call in Pyodide) measured without a GPU.

    JAXWEB_DAWN_FLAGS=backend=null node js_shim/node_run.mjs --pyodide .cache/pyodide-314.0.7 \\
        --wheel .cache/wheels/jaxweb-0.1.0-py3-none-any.whl --webgpu .cache/npm/node_modules/webgpu \\
        benchmarks/bench_host_call.py [--batch 1000] [--calls 200] [--rounds 7] [--plan h200|rule|off|native]
    PYTHONPATH=$PWD python benchmarks/bench_host_call.py      (natively: wgpu-py, lavapipe)

Dawn's null backend (`backend=null`) is a WebGPU device that validates and records every command
and runs none, so what is timed is the host's side alone: Python in Pyodide and the JS call that
encodes and submits the step, with no GPU (or SwiftShader's CPU rasterizer, which throttles every
submit) behind it. The step launches what it launches on the H200: the backend is made to choose
kernels as that adapter does under its timed GEMM plan (gemm_launches.as_hardware), 21 dispatches.
The values it computes are not looked at (a null device leaves buffers as they were).

Prints the best and the median round (each `--calls` calls after a warm-up) of: the jitted call,
the JS call inside it, and the rest (Python); dispatches per call; and Python function calls per
call (sys.setprofile over one call, not timed). Timing a part costs time too: the parts come from
separate rounds with timers around the JS call only; the whole call from rounds with nothing wrapped.
"""
import argparse
import statistics
import sys
import time

import jaxweb as jax
from gemm_launches import as_hardware  # beside this file
from mlp_step import adam_step, bcs, mlp_state


def rounds(step, state, x, y, t, calls, count):
    """`count` rounds of `calls` steady calls: (ms per call of each round, the state after, t after)."""
    p, mu, nu = state
    per = []
    for _ in range(count):
        jax.block_until_ready(p)
        scalars = [bcs(t + i + 1) for i in range(calls)]  # made before timing: the call alone is timed
        t0 = time.perf_counter()
        for s in scalars:
            p, mu, nu, _ = step(p, mu, nu, x, y, *s)
        per.append((time.perf_counter() - t0) / calls * 1e3)
        t += calls
    jax.block_until_ready(p)
    return per, (p, mu, nu), t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--plan", default="h200", choices=("h200", "rule", "off", "native"))
    args = ap.parse_args()
    gpu = jax.devices("webgpu")[0]
    be = gpu.backend
    if args.plan != "native":
        as_hardware(be, args.plan)
    rt = be.rt
    js = "replay" if hasattr(rt, "replay") else "submit"  # Pyodide: one call into js_shim/gpu.mjs
    with jax.default_device(gpu):
        p, mu, nu, x, y = mlp_state(args.batch)
        step = jax.jit(adam_step)
        t = 0
        for _ in range(12):  # past the calls that record (a loop's two sets of buffers)
            t += 1
            p, mu, nu, _ = step(p, mu, nu, x, y, *bcs(t))
        jax.block_until_ready(p)
        before = dict(be.stats)
        whole, state, t = rounds(step, (p, mu, nu), x, y, t, args.calls, args.rounds)
        calls = args.calls * args.rounds
        dispatches = (be.stats["dispatches"] - before["dispatches"]) / calls
        compiled = be.stats["pipelines"] - before["pipelines"]
        spent = [0.0]
        real, own = getattr(rt, js), js in vars(rt)

        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return real(*a, **k)
            finally:
                spent[0] += time.perf_counter() - t0
        setattr(rt, js, timed)
        try:
            jscall = []
            for _ in range(args.rounds):
                spent[0] = 0.0
                _, state, t = rounds(step, state, x, y, t, args.calls, 1)
                jscall.append(spent[0] / args.calls * 1e3)
        finally:
            setattr(rt, js, real) if own else delattr(rt, js)
        counted = [0]

        def count(frame, event, arg):
            if event == "call":
                counted[0] += 1
        p, mu, nu = state
        s = bcs(t + 1)
        sys.setprofile(count)
        try:
            p, mu, nu, _ = step(p, mu, nu, x, y, *s)
        finally:
            sys.setprofile(None)
        jax.block_until_ready(p)
    print(f"adapter: {be.device_kind}; plan {args.plan}; MLP step B={args.batch}; "
          f"{args.rounds} rounds of {args.calls} calls; {compiled} pipelines made while timed")
    print(f"{'host per jitted call':36s} best {min(whole):7.3f}  median {statistics.median(whole):7.3f} ms")
    print(f"{'  of it the JS call (' + js + ')':36s} best {min(jscall):7.3f}  median {statistics.median(jscall):7.3f} ms")
    print(f"{'  the rest (Python)':36s} best {min(whole) - min(jscall):7.3f}  "
          f"median {statistics.median(whole) - statistics.median(jscall):7.3f} ms")
    print(f"{'dispatches per call':36s} {dispatches:.1f}")
    print(f"{'Python function calls per call':36s} {counted[0]}")


if __name__ == "__main__":
    main()
