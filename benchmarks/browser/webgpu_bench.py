# Python side of the webgpu benchmark page (webgpu.mjs loads it into Pyodide).
# Each case returns per-run seconds as a user sees them (the result waited for), after
# warm-up calls that compiled everything. Inputs are deterministic; jax-js gets the same bytes.

import jaxweb as jax
import jaxweb.numpy as jnp

from page_timing import det, timed

_dev = jax.devices("webgpu")[0]
B = 1000
SIZES = [784, 256, 128, 10]
LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8
_state = {}


def _det(shape, seed, scale=1.0):
    return det(_dev, shape, seed, scale)


def _inputs(n=None):
    if "x" not in _state:
        params = []
        for i, (m, k) in enumerate(zip(SIZES[:-1], SIZES[1:])):
            params.append((_det((m, k), 2 * i, (2.0 / m) ** 0.5), _det((k,), 2 * i + 1, 0.01)))
        with jax.default_device(_dev):
            labels = (jnp.arange(B) * 7) % 10
            y = (labels[:, None] == jnp.arange(10)[None, :]).astype(jnp.float32).block_until_ready()
        _state.update(params=params, x=_det((B, 784), 10), y=y)
    if n is not None and ("a", n) not in _state:
        _state["a", n], _state["b", n] = _det((n, n), 30, 0.1), _det((n, n), 31, 0.1)
    return _state


def loss(p, x, y):
    h = x
    for w, b in p[:-1]:
        h = jnp.maximum(h @ w + b, 0)
    w, b = p[-1]
    return -(jax.nn.log_softmax(h @ w + b) * y).sum() / B


def step(p, m, v, x, y):
    value, g = jax.value_and_grad(loss)(p, x, y)
    m = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, m, g)
    v = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, v, g)
    p = jax.tree.map(lambda p, m, v: p - LR * m / (jnp.sqrt(v) + EPS), p, m, v)
    return value, p, m, v


_jstep = jax.jit(step, donate_argnums=(0, 1, 2))
_jmm = jax.jit(lambda a, b: a @ b)


def bench(case, n, reps):
    s = _inputs(n or None)
    with jax.default_device(_dev):
        if case == "matmul":
            return timed(lambda: _jmm(s["a", n], s["b", n]).block_until_ready(), reps)
        if case == "mnist_jit":
            zeros = jax.tree.map(jnp.zeros_like, s["params"])
            st = {"p": jax.tree.map(lambda a: a + 0, s["params"]), "m": zeros,
                  "v": jax.tree.map(jnp.zeros_like, zeros)}

            def one():
                value, st["p"], st["m"], st["v"] = _jstep(st["p"], st["m"], st["v"], s["x"], s["y"])
                value.block_until_ready()
            return timed(one, reps)
    raise ValueError(case)


def input_bytes(name, n=0):
    """An input's bytes: params.i.j, x, y, a, b (n x n)."""
    s = _inputs(n or None)
    if name.startswith("params."):
        _, i, j = name.split(".")
        arr = s["params"][int(i)][int(j)]
    else:
        arr = s[name, n] if name in ("a", "b") else s[name]
    return bytes(arr.contiguous_buffer().read())


def check_matmul(n):
    """max |jaxweb - reference| of one product (float64 sums on the host, no numpy here)."""
    s = _inputs(n)
    with jax.default_device(_dev):
        c = _jmm(s["a", n], s["b", n])
        row = c[n // 3].tolist()
        a = s["a", n][n // 3].tolist()
        bt = s["b", n].T.tolist()
    return max(abs(row[j] - sum(x * y for x, y in zip(a, bt[j]))) for j in range(0, n, max(1, n // 16)))


def mnist_losses(steps):
    s = _inputs()
    with jax.default_device(_dev):
        z = jax.tree.map(jnp.zeros_like, s["params"])
        p, m, v = jax.tree.map(lambda a: a + 0, s["params"]), z, jax.tree.map(jnp.zeros_like, z)
        out = []
        for _ in range(steps):
            value, p, m, v = _jstep(p, m, v, s["x"], s["y"])
            out.append(float(value))
    return out


def adapter():
    return dict(_dev.backend.rt.info, tiling=repr(_dev.backend.tiling))
