# Python side of the compiler benchmark page (compiler.mjs loads it into Pyodide).
# Each case returns per-run seconds, timed as a user runs it, after warm-up calls
# that compiled everything. Inputs are deterministic, and jax-js gets the same bytes.

import jaxweb as jax
import jaxweb.numpy as jnp

from page_timing import det, timed

_dev = jax.devices("wasm")[0]
B = 1000
SIZES = [784, 256, 128, 10]
LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8
_state = {}


def _det(shape, seed, scale=1.0):
    return det(_dev, shape, seed, scale)


def _inputs():
    if not _state:
        params = []
        for i, (m, n) in enumerate(zip(SIZES[:-1], SIZES[1:])):
            params.append((_det((m, n), 2 * i, (2.0 / m) ** 0.5), _det((n,), 2 * i + 1, 0.01)))
        x = _det((B, 784), 10)
        with jax.default_device(_dev):
            labels = (jnp.arange(B) * 7) % 10
            y = (labels[:, None] == jnp.arange(10)[None, :]).astype(jnp.float32).block_until_ready()
        _state.update(params=params, x=x, y=y, a=_det((1 << 20,), 20), b=_det((1 << 20,), 21), small=_det((16,), 22),
                      hundred=_det((100,), 23))
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
_hypot = lambda a, b: jnp.sqrt(a * a + b * b)  # noqa: E731
_jhypot = jax.jit(_hypot)
_jadd = jax.jit(lambda x: x + 1.0)


def _train(fn):
    s = _inputs()
    with jax.default_device(_dev):
        zeros = jax.tree.map(jnp.zeros_like, s["params"])
        st = {"p": jax.tree.map(lambda a: a + 0, s["params"]), "m": zeros, "v": jax.tree.map(jnp.zeros_like, zeros)}

    def one():
        value, st["p"], st["m"], st["v"] = fn(st["p"], st["m"], st["v"], s["x"], s["y"])
        value.block_until_ready()
    return one


def bench(case, reps):
    s = _inputs()
    with jax.default_device(_dev):
        if case == "mnist_jit":
            return timed(_train(_jstep), reps)
        if case == "mnist_eager":
            return timed(_train(step), reps)
        if case == "hypot_jit":
            return timed(lambda: _jhypot(s["a"], s["b"]).block_until_ready(), reps)
        if case == "hypot_eager":
            return timed(lambda: _hypot(s["a"], s["b"]).block_until_ready(), reps)
        if case == "add_eager":  # per op: 1000 eager x = x + 1 on 100 floats, one readback
            def run():
                x = s["hundred"]
                for _ in range(1000):
                    x = x + 1
                float(x[0])
            return [t / 1000 for t in timed(run, reps)]
        if case == "add_jit":  # per call: a jitted x + 1 on 16 floats, 1000 calls, then one wait
            def run():
                x = s["small"]
                for _ in range(1000):
                    x = _jadd(x)
                x.block_until_ready()
            return [t / 1000 for t in timed(run, reps)]
    raise ValueError(case)


def kernels():
    """Kernel launches per call of each jitted case (cost_analysis)."""
    s = _inputs()
    with jax.default_device(_dev):
        z = jax.tree.map(jnp.zeros_like, s["params"])
        return {"mnist_jit": _jstep.lower(s["params"], z, z, s["x"], s["y"]).compile().cost_analysis()["kernels"],
                "hypot_jit": _jhypot.lower(s["a"], s["b"]).compile().cost_analysis()["kernels"],
                "add_jit": _jadd.lower(s["small"]).compile().cost_analysis()["kernels"]}


def input_bytes(name):
    """An input's bytes (jax-js gets exactly the same data): params.i.j, x, y, a, b, small."""
    s = _inputs()
    if name.startswith("params."):
        _, i, j = name.split(".")
        arr = s["params"][int(i)][int(j)]
    else:
        arr = s[name]
    return bytes(arr.contiguous_buffer().read())


def mnist_losses(steps):
    """The losses of `steps` jitted training steps from the initial parameters (cross-check)."""
    s = _inputs()
    with jax.default_device(_dev):
        z = jax.tree.map(jnp.zeros_like, s["params"])
        p, m, v = jax.tree.map(lambda a: a + 0, s["params"]), z, jax.tree.map(jnp.zeros_like, z)
        out = []
        for _ in range(steps):
            value, p, m, v = _jstep(p, m, v, s["x"], s["y"])
            out.append(float(value))
    return out
