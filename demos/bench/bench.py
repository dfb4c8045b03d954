"""The /bench/ page's measurements, run in the page's Python worker (also in CPython).

Each case is a jitted function timed as a user runs it: compiled by a warm-up call,
then called until at least `min_s` seconds have passed; the median of those calls
counts. Figures: GFLOP/s for matmul and conv2d, GB/s (bytes read + written) for the
elementwise chain and the reduction. The page calls `run(case, device)` one case at a
time, so the table fills in as it goes and the page stays responsive.
"""
from __future__ import annotations

import time

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax


def _data(shape, seed):
    n = 1
    for d in shape:
        n *= d
    return (jnp.sin(jnp.arange(n, dtype=jnp.float32) * (0.37 + seed)) * 0.5).reshape(shape)


def _matmul(n):
    a, b = _data((n, n), 1), _data((n, n), 2)
    return jax.jit(lambda a, b: a @ b), (a, b), 2.0 * n ** 3, "GFLOP/s"


def _conv(size, ch):
    x, w = _data((1, size, size, ch), 3), _data((3, 3, ch, ch), 4)
    f = jax.jit(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                      dimension_numbers=("NHWC", "HWIO", "NHWC")))
    return f, (x, w), 2.0 * size * size * ch * ch * 9, "GFLOP/s"


def _elementwise(n):
    x = _data((n,), 5)
    return jax.jit(lambda x: jnp.tanh(x * 1.5 + 0.5) * 2.0), (x,), 8.0 * n, "GB/s"


def _reduction(n):
    x = _data((n,), 6)
    return jax.jit(lambda x: jnp.sum(x)), (x,), 4.0 * n, "GB/s"


#: name -> (label, builder); the page shows them in this order.
CASES = {
    "matmul256": ("matmul 256×256 f32", lambda: _matmul(256)),
    "matmul512": ("matmul 512×512 f32", lambda: _matmul(512)),
    "matmul1024": ("matmul 1024×1024 f32", lambda: _matmul(1024)),
    "conv2d": ("conv2d 1×56×56×32, 3×3×32 filters", lambda: _conv(56, 32)),
    "elementwise": ("tanh(x·1.5+0.5)·2, 2²² f32", lambda: _elementwise(1 << 22)),
    "reduction": ("sum, 2²² f32", lambda: _reduction(1 << 22)),
}
QUICK = ("matmul256", "elementwise", "reduction")


def cases(quick: bool = False) -> list[list[str]]:
    """[[name, label], ...] in display order."""
    return [[k, CASES[k][0]] for k in (QUICK if quick else CASES)]


def run(case: str, min_s: float = 0.5, max_calls: int = 50) -> dict:
    """One case on the current default device: {label, unit, value, ms, calls}."""
    label, build = CASES[case]
    fn, args, work, unit = build()
    jax.block_until_ready(args)
    jax.block_until_ready(fn(*args))  # compile + first run
    times = []
    t_end = time.perf_counter() + min_s
    while len(times) < 3 or (time.perf_counter() < t_end and len(times) < max_calls):
        t = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - t)
    times.sort()
    med = times[len(times) // 2]
    return {"label": label, "unit": unit, "value": work / med / 1e9, "ms": med * 1e3, "calls": len(times)}
