# Timing shared by the benchmark pages' Python halves (each page loads this file into
# Pyodide beside its own): at least `warm` calls and WARM_S seconds of warm-up (engines
# tier up hot code late; warm=0: none, for calls of minutes), then `reps` timed calls in seconds — what common.mjs's `timed`
# does for jax-js on the same page.
import time

WARM_S = 0.25


def timed(fn, reps, warm=2):
    t0, done = time.perf_counter(), 0
    while done < warm or (warm and time.perf_counter() - t0 < WARM_S):
        fn()
        done += 1
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return ts


def det(device, shape, seed, scale=1.0):
    """A deterministic float32 array of `shape` on `device` (both libraries get its bytes)."""
    import jaxweb as jax
    import jaxweb.numpy as jnp
    n = 1
    for d in shape:
        n *= d
    with jax.default_device(device):
        return (jnp.sin(jnp.arange(n, dtype=jnp.float32) * (0.7 + seed)) * scale).reshape(shape).block_until_ready()
