"""GEMM tilings side by side on one GPU: queued GFLOP/s, and the kernels' own GPU time.

    bash scripts/run_on_gpu.sh benchmarks/bench_webgpu_gemm_sweep.py [n ...]

Each candidate `Tiling` (and whether B is packed into strips first or read in place)
is installed on the webgpu backend, a fresh jitted `a @ b` is checked against values
known in closed form, timed queued (CALLS calls, one wait; median of ROUNDS), and
traced once with jaxweb.profiler, which gives each kernel's GPU time where the adapter
has timestamp-query. Ratios are against the first candidate, in the same process.
"""
import dataclasses
import glob
import gzip
import json
import statistics
import sys
import time

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src.backends.webgpu import matmul
from jaxweb._src.compiler.gemm import GemmCaps

CALLS, ROUNDS = 10, 3
gpu = jaxweb.devices("webgpu")[0]
be = gpu.backend
sizes = [int(a) for a in sys.argv[1:]] or [2048, 4096]
H = matmul.HARDWARE
T = matmul.Tiling
CANDIDATES = [  # (label, tiling, pack B when it is at least this many bytes)
    ("scalar 128x128x8 8x8, pack B", dataclasses.replace(H, vec4=False), 1 << 20),
    ("scalar 128x128x8 8x8, B in place", dataclasses.replace(H, vec4=False), 1 << 62),
    ("vec4 128x128x8 8x8, pack B", H, 1 << 20),
    ("vec4 128x128x8 8x8, B in place", H, 1 << 62),
    ("vec4 128x128x16 8x8, B in place", T(128, 128, 16, 8, 8), 1 << 62),
    ("vec4 64x128x8 4x8, B in place", T(64, 128, 8, 4, 8), 1 << 62),
    ("vec4 128x64x8 8x4, B in place", T(128, 64, 8, 8, 4), 1 << 62),
    ("vec4 64x64x16 4x4, B in place", T(64, 64, 16, 4, 4), 1 << 62),
]
if be.software:
    CANDIDATES = CANDIDATES[:4]
    sizes = [256]


def kernel_times(f, a, b, n):
    folder = f"/tmp/sweep_{n}_{time.perf_counter_ns()}"
    with jaxweb.profiler.trace(folder):
        f(a, b).block_until_ready()
    path, = glob.glob(f"{folder}/plugins/profile/*/*.trace.json.gz")
    events = json.load(gzip.open(path, "rt"))["traceEvents"]
    return [(e["name"], e["dur"]) for e in events if e.get("cat") == "kernel"]


base = {}
rows = []
saved = be.tiling, be.capabilities
with jaxweb.default_device(gpu):
    inputs = {}
    for n in sizes:
        i = jnp.arange(n, dtype=jnp.float32)
        inputs[n] = (((i[:, None] + i[None, :]) % 7 - 3).block_until_ready(),
                     ((i[:, None] * 3 + i[None, :]) % 5 - 2).block_until_ready())
    for label, t, pack in CANDIDATES:
        if t.threads > be.rt.info["limits"].get("maxComputeInvocationsPerWorkgroup", 256):
            continue
        be.tiling = t
        be.capabilities = dataclasses.replace(saved[1], gemm=GemmCaps(nr=t.BN, min_dim=16, pack_min_bytes=pack,
                                                                      conv=False))
        mm = jaxweb.jit(lambda x, y: x @ y)
        for n in sizes:
            a, b = inputs[n]
            c = mm(a, b)
            row0 = c[0, :4].tolist()
            want = [sum(((k % 7) - 3) * (((k * 3 + j) % 5) - 2) for k in range(n)) for j in range(4)]
            assert row0 == want, (label, n, row0, want)
            times = []
            for _ in range(ROUNDS):
                c.block_until_ready()
                t0 = time.perf_counter()
                for _ in range(CALLS):
                    c = mm(a, b)
                c.block_until_ready()
                times.append((time.perf_counter() - t0) / CALLS)
            gflops = 2 * n ** 3 / statistics.median(times) / 1e9
            ks = kernel_times(mm, a, b, n)
            gemm_us = sum(d for name, d in ks if "gemm" in name or "dot" in name)
            other = ", ".join(f"{name} {d / 1e3:.2f} ms" for name, d in ks if not ("gemm" in name or "dot" in name))
            kern = 2 * n ** 3 / (gemm_us * 1e-6) / 1e9 if gemm_us else float("nan")
            base.setdefault(n, gflops)
            rows.append((label, n, gflops, gflops / base[n], kern, other))
            print(rows[-1], flush=True)
be.tiling, be.capabilities = saved
print(f"{'tiling':36s} {'n':>5s} {'queued GFLOP/s':>15s} {'ratio':>6s} {'GEMM kernel GFLOP/s':>20s}  other kernels")
for label, n, g, r, k, other in rows:
    print(f"{label:36s} {n:5d} {g:15.1f} {r:6.2f} {k:20.1f}  {other}")
