"""GEMM tilings side by side on one GPU: queued GFLOP/s, and the kernels' own GPU time.

    bash scripts/run_on_gpu.sh benchmarks/bench_webgpu_gemm_sweep.py [n ...]

Each candidate `Tiling` (and whether B is packed into strips first or read in place)
is installed on the webgpu backend while a fresh jitted `a @ b` compiles; each is checked
against values known in closed form, then all are timed queued, round-robin (CALLS
calls, one wait; median of ROUNDS), and traced with jaxweb.profiler, which gives each
kernel's GPU time where the adapter has timestamp-query (median of 3). Ratios are
against the first candidate, in the same process.
"""
import dataclasses
import statistics
import sys
import time

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src.backends.webgpu import matmul
from jaxweb._src.compiler.gemm import GemmCaps
from kernel_trace import kernel_events  # beside this file

CALLS, ROUNDS = 20, 5
gpu = jaxweb.devices("webgpu")[0]
be = gpu.backend
sizes = [int(a) for a in sys.argv[1:]] or [2048, 4096]
print(f"the tuner picked {be.tiling} from {be.tuned}")
H = matmul.HARDWARE
T = matmul.Tiling
CANDIDATES = [  # (label, tiling, pack B when it is at least this many bytes)
    ("128x128x8 8x8, B in place", H, 1 << 62),
    ("128x128x8 8x8, pack B", H, 1 << 20),
    ("64x64x8 4x4, B in place", T(64, 64, 8, 4, 4), 1 << 62),
    ("128x128x16 8x8, B in place", T(128, 128, 16, 8, 8), 1 << 62),
    ("64x128x8 4x8, B in place", T(64, 128, 8, 4, 8), 1 << 62),
    ("128x64x8 8x4, B in place", T(128, 64, 8, 8, 4), 1 << 62),
    ("64x64x16 4x4, B in place", T(64, 64, 16, 4, 4), 1 << 62),
]
if be.software:
    CANDIDATES = CANDIDATES[:3]
    sizes = [256]


rows = []
saved = be.tiling, be.capabilities
limit = be.rt.info["limits"].get("maxComputeInvocationsPerWorkgroup", 256)
CANDIDATES = [c for c in CANDIDATES if c[1].threads <= limit]
with jaxweb.default_device(gpu):
    for n in sizes:
        i = jnp.arange(n, dtype=jnp.float32)
        a = ((i[:, None] + i[None, :]) % 7 - 3).block_until_ready()
        b = ((i[:, None] * 3 + i[None, :]) % 5 - 2).block_until_ready()
        want = [sum(((k % 7) - 3) * (((k * 3 + j) % 5) - 2) for k in range(n)) for j in range(4)]
        fns = []
        for label, t, pack in CANDIDATES:  # compiled under each tiling; timed interleaved below
            be.tiling = t
            be.capabilities = dataclasses.replace(saved[1], gemm=GemmCaps(nr=t.BN, min_dim=16,
                                                                          pack_min_bytes=pack, conv=False))
            mm = jaxweb.jit(lambda x, y: x @ y)
            row0 = mm(a, b)[0, :4].tolist()
            assert row0 == want, (label, n, row0, want)
            fns.append(mm)
        be.tiling, be.capabilities = saved
        times = [[] for _ in fns]
        for _ in range(ROUNDS):  # round-robin, so that clock drift hits every candidate alike
            for mm, ts in zip(fns, times):
                c = mm(a, b)
                c.block_until_ready()
                t0 = time.perf_counter()
                for _ in range(CALLS):
                    c = mm(a, b)
                c.block_until_ready()
                ts.append((time.perf_counter() - t0) / CALLS)
        base = None
        for (label, _, _), mm, ts in zip(CANDIDATES, fns, times):
            gflops = 2 * n ** 3 / statistics.median(ts) / 1e9
            base = base or gflops
            ks = [kernel_events(lambda: mm(a, b)) for _ in range(3)]
            gemm_us = statistics.median(sum(d for name, d in k if "gemm" in name or "dot" in name) for k in ks)
            other = ", ".join(f"{name} {d / 1e3:.2f} ms" for name, d in ks[-1] if not ("gemm" in name or "dot" in name))
            kern = 2 * n ** 3 / (gemm_us * 1e-6) / 1e9 if gemm_us else float("nan")
            rows.append((label, n, gflops, gflops / base, kern, other))
            print(rows[-1], flush=True)
print(f"{'tiling':36s} {'n':>5s} {'queued GFLOP/s':>15s} {'ratio':>6s} {'GEMM kernel GFLOP/s':>20s}  other kernels")
for label, n, g, r, k, other in rows:
    print(f"{label:36s} {n:5d} {g:15.1f} {r:6.2f} {k:20.1f}  {other}")
