"""A two-layer MLP's Adam step, run on a device with its parameters and both moments donated
or not (tests/test_webgpu_replay.py, tests/test_wasm_replay.py): three donated arguments of the
same shapes; and Adam's update alone (`run_update`), whose elementwise kernels write over their donated
inputs, reading them through their outputs' bindings on webgpu (or from copies, with the backend's
`tie_in_place` off)."""
import numpy as np

import jaxweb
import jaxweb.numpy as jnp


def _adam_step(p, m, v, x, t):
    def loss(p):
        return jnp.sum(jnp.tanh(x @ p["w0"] + p["b0"]) @ p["w1"] ** 2)
    g = jaxweb.grad(loss)(p)
    m = jaxweb.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jaxweb.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    c1, c2 = 1 - 0.9 ** t, 1 - 0.999 ** t
    return jaxweb.tree.map(lambda w, m, v: w - 1e-2 * (m / c1) / (jnp.sqrt(v / c2) + 1e-8), p, m, v), m, v


def run_adam(device, donate: bool, steps: int, hold: bool = False) -> tuple[list, list]:
    """(the final parameters and moments as numpy arrays, the backend's replays per call).
    `hold`: keep a second reference to a donated array each step (it must keep its value)."""
    r = np.random.default_rng(3)
    p0 = {"w0": r.standard_normal((32, 16)), "b0": np.zeros(16), "w1": r.standard_normal((16, 10))}
    stats = device.backend.stats
    with jaxweb.default_device(device):
        step = jaxweb.jit(_adam_step, donate_argnums=(0, 1, 2) if donate else ())
        p = {k: jnp.asarray(a.astype(np.float32)) for k, a in p0.items()}
        m = {k: jnp.zeros(a.shape) for k, a in p0.items()}
        v = {k: jnp.asarray(np.zeros(a.shape, np.float32)) for k, a in p0.items()}
        x = jnp.asarray(r.standard_normal((8, 32)).astype(np.float32))
        kept, replays = [], []
        for t in range(1, steps + 1):
            if hold:
                kept.append((p["w0"].reshape(-1), np.asarray(p["w0"])))
            n = stats["replays"]
            p, m, v = step(p, m, v, x, float(t))
            replays.append(stats["replays"] - n)
        for a, want in kept:
            np.testing.assert_array_equal(np.asarray(a).reshape(want.shape), want)
        return [np.asarray(a) for a in jaxweb.tree.leaves((p, m, v))], replays


def _adam_update(p, m, v, g, t):
    m = jaxweb.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jaxweb.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    c1, c2 = 1 - 0.9 ** t, 1 - 0.999 ** t
    return jaxweb.tree.map(lambda w, m, v: w - 1e-2 * (m / c1) / (jnp.sqrt(v / c2) + 1e-8), p, m, v), m, v


def run_update(device, donate: bool, steps: int) -> list:
    """The final parameters and moments (numpy) of `steps` Adam updates with given gradients, the
    parameters and moments donated or not: one elementwise kernel per parameter, which (donated)
    writes over its parameter and both moments."""
    r = np.random.default_rng(5)
    shapes = {"w0": (32, 16), "b0": (16,), "w1": (16, 10)}
    with jaxweb.default_device(device):
        update = jaxweb.jit(_adam_update, donate_argnums=(0, 1, 2) if donate else ())
        p = {k: jnp.asarray(r.standard_normal(s).astype(np.float32)) for k, s in shapes.items()}
        m = {k: jnp.zeros(s) for k, s in shapes.items()}
        v = {k: jnp.zeros(s) for k, s in shapes.items()}
        g = {k: jnp.asarray(r.standard_normal(s).astype(np.float32)) for k, s in shapes.items()}
        for t in range(1, steps + 1):
            p, m, v = update(p, m, v, g, float(t))
        return [np.asarray(a) for a in jaxweb.tree.leaves((p, m, v))]
