# Python side of the linear-algebra benchmark page (linalg.mjs loads it into Pyodide).
# Each case returns per-run seconds of a jitted call (compiled by warm-up calls first),
# timed as a user runs it; jax-js gets the same input bytes.
import time

import jaxweb as jax
import jaxweb.lax.linalg  # noqa: F401  (jax.lax.linalg)
import jaxweb.numpy as jnp

from page_timing import timed

_dev = jax.devices("wasm")[0]
_state = {}
_chol = jax.jit(jnp.linalg.cholesky)
_solve = jax.jit(jnp.linalg.solve)
_CASES = {"cholesky": jax.jit(lambda a, b: _chol(a)), "solve": _solve,
          "lu": jax.jit(lambda a, b: jax.lax.linalg.lu(a)[0]),  # jaxweb only: the parts of solve
          "triangular_solve": jax.jit(lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=True))}


def _inputs(n):
    """A symmetric positive definite n x n matrix (well conditioned) and a right-hand side."""
    if n not in _state:
        with jax.default_device(_dev):
            x = jnp.sin(jnp.arange(n * n, dtype=jnp.float32) * 0.7).reshape(n, n)
            a = (x @ x.T / n + jnp.eye(n, dtype=jnp.float32)).block_until_ready()
            b = jnp.cos(jnp.arange(n, dtype=jnp.float32) * 0.3).reshape(n, 1).block_until_ready()
        _state[n] = (a, b)
    return _state[n]


def compile_seconds(case, n):
    """The first call's time: tracing, scheduling and code generation, then one run."""
    a, b = _inputs(n)
    t = time.perf_counter()
    with jax.default_device(_dev):
        _CASES[case](a, b).block_until_ready()
    return time.perf_counter() - t


def bench(case, n, reps):
    a, b = _inputs(n)
    with jax.default_device(_dev):
        return timed(lambda: _CASES[case](a, b).block_until_ready(), reps)


def result_bytes(case, n):
    a, b = _inputs(n)
    with jax.default_device(_dev):
        out = _CASES[case](a, b)
        return bytes(out.contiguous_buffer().read())


def input_bytes(name, n):
    a, b = _inputs(n)
    return bytes((a if name == "a" else b).contiguous_buffer().read())


def kernels(case, n):
    a, b = _inputs(n)
    with jax.default_device(_dev):
        return _CASES[case].lower(a, b).compile().cost_analysis()["kernels"]
