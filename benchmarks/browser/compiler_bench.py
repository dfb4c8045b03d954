# Python side of the compiler benchmark page (compiler.mjs loads it into Pyodide).
# Each case returns per-run seconds, timed as a user runs it, after warm-up calls
# that compiled everything. Inputs are deterministic, and jax-js gets the same bytes.

import jaxweb as jax
import jaxweb.numpy as jnp

import mlp_bench as mlp
from page_timing import det, timed

_dev = jax.devices("wasm")[0]
_state = {}


def _det(shape, seed, scale=1.0):
    return det(_dev, shape, seed, scale)


def _inputs():
    if not _state:
        _state.update(mlp.inputs(_dev), a=_det((1 << 20,), 20), b=_det((1 << 20,), 21), small=_det((16,), 22),
                      hundred=_det((100,), 23))
    return _state


_hypot = lambda a, b: jnp.sqrt(a * a + b * b)  # noqa: E731
_jhypot = jax.jit(_hypot)
_jadd = jax.jit(lambda x: x + 1.0)


def bench(case, reps):
    s = _inputs()
    with jax.default_device(_dev):
        if case == "mnist_jit":
            return timed(mlp.trainer(mlp.jstep, _dev, s), reps)
        if case == "mnist_eager":
            return timed(mlp.trainer(mlp.step, _dev, s), reps)
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
        return {"mnist_jit": mlp.jstep.lower(s["params"], z, z, s["x"], s["y"]).compile().cost_analysis()["kernels"],
                "hypot_jit": _jhypot.lower(s["a"], s["b"]).compile().cost_analysis()["kernels"],
                "add_jit": _jadd.lower(s["small"]).compile().cost_analysis()["kernels"]}


def input_bytes(name):
    """An input's bytes (jax-js gets exactly the same data): params.i.j, x, y, a, b, small."""
    return bytes(mlp.input_array(_inputs(), name).contiguous_buffer().read())


def mnist_losses(steps):
    """The losses of `steps` jitted training steps from the initial parameters (cross-check)."""
    return mlp.losses(_dev, _inputs(), steps)
