"""A dense layer relu(x @ W + b) on the webgpu device, its epilogue (bias, relu) applied by
a separate kernel or by the GEMM kernel itself as it stores (GemmCaps.epilogue), side
by side in one process: best of 3 batches of 20 queued calls, two rounds alternating.

Run in Pyodide on the GPU host: `bash scripts/run_on_gpu.sh benchmarks/bench_webgpu_epilogue.py`
(or in CPython with wgpu-py, slowly, on a software adapter).
"""
import dataclasses
import sys
import time

import jaxweb
import jaxweb.numpy as jnp

gpu = jaxweb.devices("webgpu")[0]
be = gpu.backend
caps = be.capabilities


def run(n, fused):
    be.capabilities = dataclasses.replace(caps, gemm=dataclasses.replace(caps.gemm, epilogue=fused))
    with jaxweb.default_device(gpu):
        x = jnp.sin(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n))
        w = jnp.cos(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n)) * 0.01
        b = jnp.ones(n) * 0.1
        f = jaxweb.jit(lambda x, w, b: jnp.maximum(x @ w + b, 0.0))
        f(x, w, b).block_until_ready()
        reps = 20
        best = []
        for _ in range(3):
            t = time.perf_counter()
            for _ in range(reps):
                y = f(x, w, b)
            y.block_until_ready()
            best.append((time.perf_counter() - t) / reps)
        return min(best)


for n in [int(a) for a in sys.argv[1:]] or (1024, 2048, 4096):
    r = {}
    for rnd in range(2):
        for fused in (False, True):
            r.setdefault(fused, []).append(run(n, fused))
    sep, fu = min(r[False]), min(r[True])
    print(f"relu(x @ W + b) n={n}: separate epilogue {2 * n ** 3 / sep / 1e9:8.0f} GFLOP/s, "
          f"inside the GEMM {2 * n ** 3 / fu / 1e9:8.0f} GFLOP/s ({sep / fu:.2f}x)")
