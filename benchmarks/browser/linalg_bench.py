# Python side of the linear-algebra benchmark page (linalg.mjs loads it into Pyodide).
# Each case returns per-run seconds of a jitted call (compiled by warm-up calls first),
# timed as a user runs it; jax-js gets the same input bytes.
import time

import jaxweb as jax
import jaxweb.numpy as jnp

_dev = jax.devices("wasm")[0]
WARM_S = 0.25
_state = {}
_chol = jax.jit(jnp.linalg.cholesky)
_solve = jax.jit(jnp.linalg.solve)


def _inputs(n):
    """A symmetric positive definite n x n matrix (well conditioned) and a right-hand side."""
    if n not in _state:
        with jax.default_device(_dev):
            x = jnp.sin(jnp.arange(n * n, dtype=jnp.float32) * 0.7).reshape(n, n)
            a = (x @ x.T / n + jnp.eye(n, dtype=jnp.float32)).block_until_ready()
            b = jnp.cos(jnp.arange(n, dtype=jnp.float32) * 0.3).reshape(n, 1).block_until_ready()
        _state[n] = (a, b)
    return _state[n]


def _timed(fn, reps, warm=2):
    t0, done = time.perf_counter(), 0
    while done < warm or time.perf_counter() - t0 < WARM_S:
        fn()
        done += 1
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return ts


def bench(case, n, reps):
    a, b = _inputs(n)
    with jax.default_device(_dev):
        if case == "cholesky":
            return _timed(lambda: _chol(a).block_until_ready(), reps)
        if case == "solve":
            return _timed(lambda: _solve(a, b).block_until_ready(), reps)
    raise ValueError(case)


def result_bytes(case, n):
    a, b = _inputs(n)
    with jax.default_device(_dev):
        out = _chol(a) if case == "cholesky" else _solve(a, b)
        return bytes(out.contiguous_buffer().read())


def input_bytes(name, n):
    a, b = _inputs(n)
    return bytes((a if name == "a" else b).contiguous_buffer().read())


def kernels(case, n):
    a, b = _inputs(n)
    with jax.default_device(_dev):
        low = _chol.lower(a) if case == "cholesky" else _solve.lower(a, b)
        return low.compile().cost_analysis()["kernels"]
