"""Host time per call of a jitted MLP/Adam step (784-128-128-10, batch 128) with its parameters
and both moments donated or not, on a device given by name (webgpu natively: wgpu-py; wasm), and
the backend's replays per call. A donated step replays like the undonated one (webgpu/replay.py,
compiler/memory.py's pairing of outputs with donated inputs).

    python benchmarks/bench_donated_step.py webgpu [steps]
"""
import sys
import time

import numpy as np

import jaxweb
import jaxweb.numpy as jnp


def _step(p, m, v, x, y, t):
    def loss(p):
        a = x
        for i in range(3):
            a = a @ p[f"w{i}"] + p[f"b{i}"]
            a = jaxweb.nn.relu(a) if i < 2 else jaxweb.nn.log_softmax(a)
        return -(a * jaxweb.nn.one_hot(y, 10)).sum() / y.shape[0]
    l, g = jaxweb.value_and_grad(loss)(p)
    m = jaxweb.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jaxweb.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    c1, c2 = 1 - 0.9 ** t, 1 - 0.999 ** t
    p = jaxweb.tree.map(lambda w, m, v: w - 1e-3 * (m / c1) / (jnp.sqrt(v / c2) + 1e-8), p, m, v)
    return p, m, v, l


def run(dev, donate: bool, steps: int) -> tuple[float, list, float]:
    """(median host ms per call after the first 10, replays per call, final loss)."""
    rng = np.random.default_rng(0)
    p0 = {}
    for i, (a, b) in enumerate([(784, 128), (128, 128), (128, 10)]):
        p0[f"w{i}"] = (rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
        p0[f"b{i}"] = np.zeros(b, np.float32)
    stats = getattr(dev.backend, "stats", {})
    with jaxweb.default_device(dev):
        f = jaxweb.jit(_step, donate_argnums=(0, 1, 2) if donate else ())
        p = {k: jnp.asarray(w) for k, w in p0.items()}
        m = {k: jnp.zeros_like(w) for k, w in p.items()}
        v = {k: jnp.zeros_like(w) for k, w in p.items()}
        x = jnp.asarray(rng.standard_normal((128, 784)).astype(np.float32))
        y = jnp.asarray(rng.integers(0, 10, 128))
        reps, times = [], []
        for t in range(1, steps + 1):
            r0 = stats.get("replays", 0)
            t0 = time.perf_counter()
            p, m, v, l = f(p, m, v, x, y, jnp.float32(t))
            times.append(time.perf_counter() - t0)
            l.block_until_ready()
            reps.append(stats.get("replays", 0) - r0)
        return 1e3 * float(np.median(times[10:])), reps, float(l)


def main() -> None:
    dev = jaxweb.devices(sys.argv[1] if len(sys.argv) > 1 else "webgpu")[0]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    for donate in (False, True):
        ms, reps, loss = run(dev, donate, steps)
        print(f"{dev.platform} donated={donate}: host {ms:.3f} ms/call (median of calls 11-{steps}), "
              f"replays {sum(reps)}/{steps}, first replay at call {reps.index(1) + 1 if 1 in reps else None}, "
              f"loss {loss:.6f}")


if __name__ == "__main__":
    main()
