"""The compile census and two eager training loops, jaxweb beside real JAX (issue 22).

    python benchmarks/bench_census.py [device] [values] [--jax-python PATH] [--steps N]

Part 1 runs each case 3 times with warm-up values, then `values` times with new ones
(x = jnp.ones(1000)), counting kernel compilations (jaxweb: the backend's compiles; JAX:
its "Compiling ..." log records) and timing each call to a value on the host. Part 2
runs two eager (unjitted) training loops from JAX 101 for `--steps` steps, timing the
whole loop with the first step's compiles: the pytrees MLP (1-128-128-1, `jax.grad`,
tree_map SGD) and a 2-parameter linear fit with SGD momentum. The same code runs on both
libraries; JAX runs in a subprocess of `--jax-python` (a venv with jax 0.10.2; JAX_PLATFORMS=cpu)
and the table prints both with jaxweb/JAX ratios.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import time

import numpy as np


def _library(kind: str):
    if kind == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
        return jax, jnp, lax
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import jaxweb
    import jaxweb.numpy as jnp
    from jaxweb import lax
    return jaxweb, jnp, lax


def cases(jax, jnp, lax) -> dict:
    """name -> fn(x, v, i): one call with a new value v (a float) and index i."""
    tanh_jit = jax.jit(lambda x, s: jnp.tanh(x * s) + s)
    ds_jit = jax.jit(lambda x, i: lax.dynamic_slice(x, (i,), (16,)))
    return {
        "eager x * s": lambda x, v, i: x * v,
        "jit(tanh(x * s) + s)(x, s)": lambda x, v, i: tanh_jit(x, v),
        "x * jnp.float32(v)": lambda x, v, i: x * jnp.float32(v),
        "x.at[i].set(v)": lambda x, v, i: x.at[i].set(v),
        "jit dynamic_slice(x, (i,), (16,))": lambda x, v, i: ds_jit(x, i),
        "x[i] * 2": lambda x, v, i: x[i] * 2,
        "x[i:i + 16] + 1": lambda x, v, i: x[i:i + 16] + 1,
        "jnp.full(1000, v) + x": lambda x, v, i: jnp.full(1000, v) + x,
        "jnp.array([v, 2 * v]) * x[:2]": lambda x, v, i: jnp.array([v, 2 * v]) * x[:2],
    }


class _Counter(logging.Handler):
    def __init__(self):
        super().__init__()
        self.n = 0

    def emit(self, record):
        if record.getMessage().startswith("Compiling "):
            self.n += 1


def compile_counter(kind: str, jax, device_name: str):
    """A function returning compiles so far."""
    if kind == "jax":
        jax.config.update("jax_log_compiles", True)
        h = _Counter()
        logging.getLogger("jax").addHandler(h)
        logging.getLogger("jax").propagate = False
        return lambda: h.n
    backend = jax.devices(device_name)[0].backend
    made = [0]
    orig = backend.compile

    def compile(kernel):
        made[0] += 1
        return orig(kernel)
    backend.compile = compile
    return lambda: made[0]


def census(kind: str, device_name: str, values: int) -> dict:
    jax, jnp, lax = _library(kind)
    compiles = compile_counter(kind, jax, device_name)
    out = {}
    x = jnp.ones(1000)
    for name, fn in cases(jax, jnp, lax).items():
        for k in range(3):
            fn(x, 0.5 + 0.25 * k, 3 + k).block_until_ready()
        c0, t0 = compiles(), time.perf_counter()
        for k in range(values):
            fn(x, 1.3 + 0.01 * k, 7 + (k % 900)).block_until_ready()
        out[name] = {"compiles": compiles() - c0, "ms": (time.perf_counter() - t0) * 1e3 / values}
    return out


def pytrees_mlp(jax, jnp, steps: int) -> float:
    """JAX 101 'Working with pytrees': MLP 1-128-128-1, jax.grad without jit, tree_map SGD."""
    rng = np.random.default_rng(0)
    params = [dict(weights=jnp.asarray(rng.normal(size=(n_in, n_out)) * np.sqrt(2 / n_in), jnp.float32),
                   biases=jnp.ones((n_out,)))
              for n_in, n_out in zip([1, 128, 128], [128, 128, 1])]
    xs = jnp.asarray(rng.normal(size=(128, 1)), jnp.float32)
    ys = xs ** 2

    def forward(params, x):
        *hidden, last = params
        for layer in hidden:
            x = jax.nn.relu(x @ layer["weights"] + layer["biases"])
        return x @ last["weights"] + last["biases"]

    def loss_fn(params, x, y):
        return jnp.mean((forward(params, x) - y) ** 2)

    def update(params, x, y):
        grads = jax.grad(loss_fn)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - 0.0001 * g, params, grads)

    t0 = time.perf_counter()
    for _ in range(steps):
        params = update(params, xs, ys)
    float(loss_fn(params, xs, ys))
    return time.perf_counter() - t0


def momentum_fit(jax, jnp, steps: int) -> float:
    """A 2-parameter linear fit (w, b) by SGD with momentum, eager: grad, two tree_maps."""
    rng = np.random.default_rng(1)
    xs = jnp.asarray(rng.normal(size=(100,)), jnp.float32)
    ys = 3 * xs - 1 + jnp.asarray(rng.normal(size=(100,)) * 0.1, jnp.float32)
    params = {"w": jnp.float32(0.0), "b": jnp.float32(0.0)}
    velocity = {"w": jnp.float32(0.0), "b": jnp.float32(0.0)}

    def loss(p, x, y):
        return jnp.mean((p["w"] * x + p["b"] - y) ** 2)
    t0 = time.perf_counter()
    for _ in range(steps):
        grads = jax.grad(loss)(params, xs, ys)
        velocity = jax.tree_util.tree_map(lambda v, g: 0.9 * v + g, velocity, grads)
        params = jax.tree_util.tree_map(lambda p, v: p - 0.01 * v, params, velocity)
    float(loss(params, xs, ys))
    return time.perf_counter() - t0


def run(kind: str, device_name: str, values: int, steps: int) -> dict:
    if kind == "jaxweb":
        import jaxweb
        jaxweb.config.update("jax_default_device", jaxweb.devices(device_name)[0])
    result = {"census": census(kind, device_name, values)}
    jax, jnp, _ = _library(kind)
    result["loops"] = {f"pytrees MLP, {steps} steps (s)": pytrees_mlp(jax, jnp, steps),
                       f"momentum fit, {steps} steps (s)": momentum_fit(jax, jnp, steps)}
    return result


def _ratio(a: float, b: float | None) -> str:
    return f"{a / b:7.2f}x" if b else "      -"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("device", nargs="?", default="wasm")
    ap.add_argument("values", nargs="?", type=int, default=40)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"))
    ap.add_argument("--as-jax", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.as_jax:
        print(json.dumps(run("jax", "cpu", args.values, args.steps)))
        return
    ref = None
    if args.jax_python:
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        proc = subprocess.run([args.jax_python, os.path.abspath(__file__), "--as-jax", "x", str(args.values),
                               "--steps", str(args.steps)], capture_output=True, text=True, env=env, check=True)
        ref = json.loads(proc.stdout.strip().splitlines()[-1])
    ours = run("jaxweb", args.device, args.values, args.steps)
    print(f"compile census on {args.device}: {args.values} new values after 3 warm calls "
          f"(JAX {'cpu' if ref else 'not run'}, same machine)")
    print(f"{'case':36s} {'compiles':>8s} {'JAX':>5s} {'ms/call':>8s} {'JAX ms':>8s} {'ratio':>8s}")
    for name, r in ours["census"].items():
        j = ref["census"][name] if ref else None
        print(f"{name:36s} {r['compiles']:8d} {j['compiles'] if j else '-':>5} {r['ms']:8.2f} "
              f"{j['ms'] if j else float('nan'):8.2f} {_ratio(r['ms'], j and j['ms'])}")
    print(f"\neager loops, unjitted, with first-step compiles")
    print(f"{'loop':36s} {'jaxweb':>8s} {'JAX':>8s} {'ratio':>8s}")
    for name, s in ours["loops"].items():
        j = ref["loops"][name] if ref else None
        print(f"{name:36s} {s:8.2f} {j if j else float('nan'):8.2f} {_ratio(s, j)}")


if __name__ == "__main__":
    main()
