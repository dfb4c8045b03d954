"""Pick the GEMM tiling for this adapter by timing the candidates on it, once per page load.

The best tile shape depends on the GPU (its SM count, registers, clocks) and even on
the machine of the day: on H200 hosts 128x128 tiles (8x8 per invocation) beat 64x64
tiles (4x4) by 22-29 % at n = 4096-8192 on one run and lost by 5 % on another, while
64x64 won at n = 1024 every time (`benchmarks/bench_webgpu_gemm_sweep.py`). So the
backend does not guess: before its first schedule it runs each candidate's kernel on an
n x n x n product (n = SIZE), interleaved, and keeps the fastest (GPU timestamps where
the adapter has them, else wall-clock to the end of each submit). This costs a few
pipeline compilations and about 20 GEMMs of that size; software adapters skip it (they
run `matmul._build_direct`).

The tiling fixes the strip width `nr` the scheduler stages B with, which is why it is
chosen before any schedule rather than per kernel.

Products whose C has few tiles (an MLP's 1000 x 256 layers and 256 x 128 weight gradients:
2 to 16 tiles of 128 x 128 on a GPU of 132 SMs) leave most of the GPU idle. For them the
plan (`plan`, the scheduler's `GemmCaps.plan`) takes `SMALL` tiles and splits K so that
about `want` workgroups run; `want` is this adapter's too, timed once (`tune_splits`): the
split count that ran a 256 x 256 x 2048 product fastest, times its 16 small tiles.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from ...compiler.gemm import GemmSpec, split_k
from . import matmul

SMALL = matmul.Tiling(64, 64, 8, 4, 4)  # tiles of products with few (and the tuner's second candidate)
CANDIDATES = (matmul.HARDWARE, SMALL)
SIZE = 2048
ROUNDS = 3
SPLITS = (1, 2, 4, 8, 16)  # the split counts timed for the few-tiles class ...
SPLIT_M, SPLIT_K = 256, 2048  # ... on an M x M x K product (16 small tiles)
WANT = 256  # workgroups a product should launch, where the split timing fails
MIN_KC = 64  # the shortest K range a split is given
MAX_SPLITS = 16


def plan(big: matmul.Tiling, want: int) -> Callable[[int, int, int, int], tuple[int, int]]:
    """GemmCaps.plan for tilings `big` and SMALL: (nr, splits) of a (B, M, N, K) product —
    big tiles where they make `want` workgroups; else small ones, K split to make up."""
    def choose(b: int, m: int, n: int, k: int) -> tuple[int, int]:
        if b * -(-m // big.BM) * -(-n // big.BN) >= want:
            return big.BN, 1
        tiles = b * -(-m // SMALL.BM) * -(-n // SMALL.BN)
        splits = max(1, min(-(-want // tiles), k // MIN_KC, MAX_SPLITS))
        return SMALL.BN, splits
    return choose


def tiling_for(spec: GemmSpec, big: matmul.Tiling) -> matmul.Tiling:
    """The tiling a planned spec runs with (its strip width names it)."""
    return big if spec.nr == big.BN else SMALL


def _fits(t: matmul.Tiling, limits: dict) -> bool:
    shared = 4 * t.BK * (t.BM + t.BN)
    return (t.threads <= int(limits.get("maxComputeInvocationsPerWorkgroup", 256))
            and shared <= int(limits.get("maxComputeWorkgroupStorageSize", 16384)))


def _seconds(rt: Any, cmds: list) -> float:
    if getattr(rt, "can_time", False):
        stamps = rt.submit_timed(cmds)
        if stamps:
            return sum(stamps[2 * k + 1] - stamps[2 * k] for k in range(len(stamps) // 2)) * 1e-9
    t = time.perf_counter()
    rt.submit(cmds)
    rt.finish()
    return time.perf_counter() - t


def tune(rt: Any, candidates: tuple = CANDIDATES, n: int | None = None) -> tuple[matmul.Tiling, dict]:
    """(the fastest tiling, {tiling: best seconds}) for an n^3 float32 product on `rt`."""
    n = n or SIZE
    fitting = [t for t in candidates if _fits(t, rt.info["limits"])]
    if len(fitting) < 2:
        return (fitting or [matmul.SOFTWARE])[0], {}
    specs = [(t, GemmSpec(M=n, N=n, K=n, a_off=0, a_si=n, a_sk=1, b_off=0, b_sk=n, packed=False, nr=t.BN))
             for t in fitting]
    times = dict(zip(fitting, _time(rt, specs, [4 * n * n] * 3)))  # C, A, B: their values do not matter
    return min(times, key=times.get), times


def _time(rt: Any, specs: list, sizes: list) -> list[float]:
    """The best seconds of each (tiling, spec)'s GEMM kernel over ROUNDS interleaved runs (after
    a warm-up: first dispatches pay for driver work), on buffers of `sizes` bytes (C, A, B)."""
    bufs = [rt.create_buffer(n) for n in sizes]
    try:
        runs = []
        for t, spec in specs:
            shader = matmul.build(spec, t)
            pipe = rt.pipeline(shader.code)
            runs.append([("dispatch", pipe, rt.bind_group(pipe, bufs), *shader.grid)])
        for cmds in runs:
            _seconds(rt, cmds)
        best = [float("inf")] * len(runs)
        for _ in range(ROUNDS):
            for i, cmds in enumerate(runs):
                best[i] = min(best[i], _seconds(rt, cmds))
    finally:
        for b in bufs:
            rt.destroy_buffer(b)
    return best


def tune_splits(rt: Any, m: int | None = None, k: int | None = None) -> tuple[int, dict]:
    """(want, {splits: best seconds}): the workgroups an m x m x k product ran fastest with,
    split over K into SPLITS counts on SMALL tiles (the partial sums' addition not timed)."""
    if not _fits(SMALL, rt.info["limits"]):
        return WANT, {}
    m, k = m or SPLIT_M, k or SPLIT_K
    tiles = -(-m // SMALL.BM) * -(-m // SMALL.BN)
    counts = [c for c in SPLITS if c == 1 or split_k(k, c, 32).get("splits") == c]
    specs = [(SMALL, GemmSpec(M=m, N=m, K=k, a_off=0, a_si=k, a_sk=1, b_off=0, b_sk=m, packed=False,
                              nr=SMALL.BN, **split_k(k, c, 32))) for c in counts]
    times = dict(zip(counts, _time(rt, specs, [4 * m * m * max(counts), 4 * m * k, 4 * k * m])))
    return tiles * min(times, key=times.get), times
