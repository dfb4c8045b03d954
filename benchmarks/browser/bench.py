# Python side of the browser benchmark: runs inside Pyodide (bench.mjs loads it).
# Times what a user would run: the op, then .block_until_ready(), after a first
# call that compiled the kernel(s). Returns per-run seconds.
import time

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

_dev = jax.devices("wasm")[0]
WARM_S = 0.25  # warm-up per round: at least this long (and `warm` calls), as for jax-js
_data = {}
_chain = jax.jit(lambda x: jnp.tanh(x * 1.5 + 0.5) * 2.0)


def _rand(shape, seed):
    n = 1
    for d in shape:
        n *= d
    with jax.default_device(_dev):
        return jnp.sin(jnp.arange(n, dtype=jnp.float32) * (0.7 + seed)).reshape(shape).block_until_ready()


def _fn(op, n):
    key = (op, n)
    if key not in _data:
        if op == "matmul":
            _data[key] = (_rand((n, n), 0), _rand((n, n), 1))
        elif op == "conv":
            _data[key] = (_rand((1, 64, 56, 56), 0), _rand((64, 64, 3, 3), 1))
        else:
            _data[key] = (_rand((n,), 0),)
    a = _data[key]
    return {
        "matmul": lambda: a[0] @ a[1],
        "conv": lambda: lax.conv_general_dilated(a[0], a[1], (1, 1), "SAME"),
        "chain": lambda: _chain(a[0]),
        "sum": lambda: jnp.sum(a[0]),
        "copy": lambda: -a[0],
    }[op]


def bench(op, n, reps, warm=2):
    fn = _fn(op, n)
    with jax.default_device(_dev):
        t0, done = time.perf_counter(), 0
        while done < warm or time.perf_counter() - t0 < WARM_S:  # engines tier up hot code late
            fn().block_until_ready()
            done += 1
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            fn().block_until_ready()
            ts.append(time.perf_counter() - t)
    return ts


def info():
    be = _dev.backend if hasattr(_dev, "backend") else None
    rt = getattr(be, "rt", None)
    return {"workers": getattr(rt, "workers", None), "features": sorted(getattr(be, "features", ()))}


def result_bytes(op, n):
    """The op's result as raw little-endian bytes (checked against jax-js in the page)."""
    from jaxweb._src.dispatch import contiguous_buffer
    with jax.default_device(_dev):
        return bytes(contiguous_buffer(_fn(op, n)().block_until_ready()).read())


def input_bytes(op, n, i):
    """Input i of a case as raw bytes: jax-js gets exactly the same data."""
    from jaxweb._src.dispatch import contiguous_buffer
    _fn(op, n)
    return bytes(contiguous_buffer(_data[(op, n)][i]).read())
