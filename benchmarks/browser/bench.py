# Python side of the browser benchmark: runs inside Pyodide (bench.mjs loads it).
# Times what a user would run: the op, then .block_until_ready(), after a first
# call that compiled the kernel(s). Returns per-run seconds.
import time

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

_dev = jax.devices("wasm")[0]
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


def bench(op, n, reps, warm=1):
    fn = _fn(op, n)
    with jax.default_device(_dev):
        for _ in range(warm):
            fn().block_until_ready()
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
