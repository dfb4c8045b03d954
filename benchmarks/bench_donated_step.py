"""Host time per call of the jitted MNIST MLP/Adam step (mlp_step.py: 784-256-128-10, batch 128) with its parameters
and both moments donated or not, on a device given by name (webgpu natively: wgpu-py; wasm), and
the backend's replays per call. A donated step replays like the undonated one (webgpu/replay.py,
compiler/memory.py's pairing of outputs with donated inputs).

    python benchmarks/bench_donated_step.py webgpu [steps]
    bash scripts/run_on_gpu.sh benchmarks/bench_donated_step.py webgpu [steps]   (Pyodide: no numpy)
"""
import statistics
import sys
import time

import jaxweb
import jaxweb.numpy as jnp
from mlp_step import B1, B2, adam_step, mlp_init


def run(dev, donate: bool, steps: int) -> tuple[float, list, float]:
    """(median host ms per call after the first 10, replays per call, final loss)."""
    stats = getattr(dev.backend, "stats", {})
    with jaxweb.default_device(dev):
        f = jaxweb.jit(adam_step, donate_argnums=(0, 1, 2) if donate else ())
        p = mlp_init(jaxweb.random.key(0))
        m = {k: jnp.zeros_like(w) for k, w in p.items()}
        v = {k: jnp.zeros_like(w) for k, w in p.items()}
        kx, ky = jaxweb.random.split(jaxweb.random.key(1))
        x = jaxweb.random.normal(kx, (128, 784), jnp.float32)
        y = jaxweb.random.randint(ky, (128,), 0, 10)
        reps, times = [], []
        for t in range(1, steps + 1):
            r0 = stats.get("replays", 0)
            t0 = time.perf_counter()
            p, m, v, l = f(p, m, v, x, y, 1 / (1 - B1 ** t), 1 / (1 - B2 ** t))
            times.append(time.perf_counter() - t0)
            l.block_until_ready()
            reps.append(stats.get("replays", 0) - r0)
        return 1e3 * statistics.median(times[10:]), reps, float(l)


def main() -> None:
    dev = jaxweb.devices(sys.argv[1] if len(sys.argv) > 1 else "webgpu")[0]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    for donate in (False, True):
        ms, reps, loss = run(dev, donate, steps)
        print(f"{dev.platform} donated={donate}: host {ms:.3f} ms/call (median of calls 11-{steps}), "
              f"replays {sum(reps)}/{steps}, first replay at call {reps.index(1) + 1 if 1 in reps else None}, "
              f"loss {loss:.6g}")


if __name__ == "__main__":
    main()
