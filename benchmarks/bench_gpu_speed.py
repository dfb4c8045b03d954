"""Issue 22's figures on a real GPU in one run: Python in Pyodide under Node 24, Dawn's WebGPU.

    bash scripts/run_on_gpu.sh benchmarks/bench_gpu_speed.py [--quick]

(On a CPU machine the same command runs on SwiftShader; --quick shrinks every case so that it
ends in minutes there.) Runs inside Pyodide, so no numpy. Prints, then a table last:

- the MNIST MLP step of ../shared/bench/gpu_mlp_step.py (784-256-128-10, batch 1000, Adam written
  out with its two bias corrections made per step as jnp.float32 scalars, whole step jitted;
  jax-js 0.1.25 runs the same in ../shared/bench/jaxjs_gpu_mlp.mjs): ms/step queued (N steps, one
  wait) and synced (a wait after each), the host time per step (in the jitted call and the two
  scalars: what Python does before the GPU can start), and the GPU time per step (the sum of
  its kernels' GPU timestamps, one traced step; and each kernel of that step timed alone). Queued
  time = max(host, GPU) when they overlap: the larger of the two is the floor. The step runs under
  each GEMM plan (webgpu/tuner.py): timed per product (the default), off (128 x 128 tiles, no K
  splits: JAXWEB_GEMM_PLAN=0) and the untimed rule of thumb (=1), each with its kernels listed in
  order (us in the step, us alone), the timed plan's measurements per product, and the ratios to
  plan off;
- the /mnist/ page's trainer (demos/mnist/trainer.py: optax Adam, uint8 batches sliced per step,
  synthetic images) with its MLP and its CNN at the page's batch (128) and at 1000: ms/step;
- a transformer block forward (batch 8, 128 tokens, width 384, 6 heads, MLP 4x, pre-LayerNorm),
  jitted: ms/call queued and GPU time;
- readback of 1, 16, 64 and 256 MB (an array's bytes into Python): GB/s.
"""
import glob
import gzip
import json
import math
import os
import sys
import tempfile
import time

import jaxweb as jax
import jaxweb.numpy as jnp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "demos", "mnist"))
import trainer as mnist_trainer  # noqa: E402

QUICK = "--quick" in sys.argv
ALONE = 10  # dispatches of one kernel per submit when timing it alone
gpu = jax.devices("webgpu")[0]
be = gpu.backend
rows: list[tuple[str, float, str]] = []


def row(name: str, value: float, unit: str) -> None:
    rows.append((name, value, unit))
    print(f"{name}: {value:.3f} {unit}", flush=True)


def gpu_ms(fn, alone: bool = False) -> tuple[float, list]:
    """(ms of GPU time, [(kernel, us in the run, us alone)]) of what `fn()` runs: its kernels' GPU
    timestamps under the profiler (wall-clock of each submit to its end where the adapter has no
    timestamps), in the order they ran. With `alone`, each dispatch is also timed on its own
    afterwards (ALONE of it back to back in one submit, first begin to last end, best of 2): a
    check on the timestamps of kernels run in sequence (the values it leaves do not matter here)."""
    folder = tempfile.mkdtemp()
    seen = []
    traced = be._submit_traced
    be._submit_traced = lambda trace, cmds, labels: (seen.append((cmds, labels)), traced(trace, cmds, labels))[1]
    try:
        with jax.profiler.trace(folder):
            jax.block_until_ready(fn())
    finally:
        be._submit_traced = traced
    path, = glob.glob(f"{folder}/plugins/profile/*/*.trace.json.gz")
    events = json.load(gzip.open(path, "rt"))["traceEvents"]
    kern = [(e["name"], e["dur"]) for e in events if e.get("cat") == "kernel" and not e.get("name", "").startswith("submit")]
    if not kern:
        kern = [(e["name"], e["dur"]) for e in events if e.get("cat") == "kernel"]
    solo = []
    if alone:
        from jaxweb._src.backends.webgpu import tuner  # noqa: PLC0415
        for cmds, _ in seen:
            for c in cmds:
                if c[0] == "dispatch":
                    solo.append(min(tuner._seconds(be.rt, [c] * ALONE) for _ in range(2)) / ALONE * 1e6)
    if len(solo) != len(kern):
        solo = [float("nan")] * len(kern)
    return sum(d for _, d in kern) / 1e3, [(n, d, a) for (n, d), a in zip(kern, solo)]


def print_kernels(label: str, kernels: list) -> None:
    print(f"  kernels of one step, {label}, in order: us in the step | us alone")
    for i, (name, dur, solo) in enumerate(kernels):
        print(f"  {i + 1:3d} {name:62s} {dur:9.1f} {solo:9.1f}")
    print(f"      {'sum':62s} {sum(k[1] for k in kernels):9.1f} {sum(k[2] for k in kernels):9.1f}")


# ---------------------------------------------------------------- the MLP step (shared/bench)
B, N = (100, 10) if QUICK else (1000, 50)
B1, B2, EPS, LR = 0.9, 0.999, 1e-8, 0.005


def mlp_init(key):
    sizes = [784, 256, 128, 10]
    ks = jax.random.split(key, 6)
    p = {}
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        s = 1 / m ** 0.5
        p[f"w{i+1}"] = jax.random.uniform(ks[2 * i], (m, n), minval=-s, maxval=s)
        p[f"b{i+1}"] = jax.random.uniform(ks[2 * i + 1], (n,), minval=-s, maxval=s)
    return p


def predict(p, x):
    a = jax.nn.relu(x @ p["w1"] + p["b1"])
    a = jax.nn.relu(a @ p["w2"] + p["b2"])
    return jax.nn.log_softmax(a @ p["w3"] + p["b3"])


def mlp_loss(p, x, y):
    return -(predict(p, x) * jax.nn.one_hot(y, 10)).sum() / y.shape[0]


def make_step():
    """A new jitted step (a new trace and schedule, under the backend's capabilities now)."""
    def step(p, mu, nu, x, y, bc1, bc2):
        l, g = jax.value_and_grad(mlp_loss)(p, x, y)
        mu = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, mu, g)
        nu = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, nu, g)
        p = jax.tree.map(lambda w, m, v: w - LR * (m * bc1) / (jnp.sqrt(v * bc2) + EPS), p, mu, nu)
        return p, mu, nu, l
    return jax.jit(step)


def bcs(t):
    return jnp.float32(1 / (1 - B1 ** t)), jnp.float32(1 / (1 - B2 ** t))


def mlp_figures(label: str) -> dict:
    step = make_step()
    p = mlp_init(jax.random.key(0))
    mu = jax.tree.map(jnp.zeros_like, p)
    nu = jax.tree.map(jnp.zeros_like, p)
    x = jax.random.uniform(jax.random.key(1), (B, 784))
    y = jax.random.randint(jax.random.key(2), (B,), 0, 10)
    t = 0
    for _ in range(5):
        t += 1
        p, mu, nu, l = step(p, mu, nu, x, y, *bcs(t))
    loss0 = float(l)
    jax.block_until_ready(p)
    host = 0.0
    t0 = time.perf_counter()
    for _ in range(N):
        t += 1
        h = time.perf_counter()
        p, mu, nu, l = step(p, mu, nu, x, y, *bcs(t))
        host += time.perf_counter() - h
    jax.block_until_ready(p)
    queued = (time.perf_counter() - t0) / N * 1e3
    t0 = time.perf_counter()
    for _ in range(N):
        t += 1
        p, mu, nu, l = step(p, mu, nu, x, y, *bcs(t))
        jax.block_until_ready(p)
    synced = (time.perf_counter() - t0) / N * 1e3
    t += 1
    state = (p, mu, nu)
    g, kernels = gpu_ms(lambda: step(*state, x, y, *bcs(t)), alone=True)
    print(f"MLP step {label}: loss {loss0:.4f} -> {float(l):.4f}, {len(kernels)} kernels per step")
    print_kernels(label, kernels)
    out = {"queued": queued, "synced": synced, "host": host / N * 1e3, "gpu": g,
           "alone": sum(k[2] for k in kernels) / 1e3}
    for k, unit in (("queued", "ms/step"), ("synced", "ms/step"), ("host", "ms/step (host)"), ("gpu", "ms/step (GPU)"),
                    ("alone", "ms/step (GPU, kernels alone)")):
        row(f"MLP step B={B} {label}: {k}", out[k], unit)
    return out


def planner_table() -> None:
    """What the timed plan measured for each product it met, and what it chose."""
    planner = be.planner
    if planner is None or not planner.timings:
        return
    print("  GEMM plan timings (us per product; big = 128x128 tiles, s1.. = 64x64 tiles, K in s splits "
          "+ their sum's pass):")
    for key, times in planner.timings.items():
        b, m, n, k, a_si, a_sk = key[:6]
        layout = "A col-major" if a_si == 1 else "A row-major"
        cells = "  ".join(f"{'big' if nr != 64 else f's{sp}'} {t * 1e6:.1f}" for (nr, sp), t in times.items())
        print(f"    B{b} {m}x{n}x{k} {layout}: {cells}  -> {planner.chosen[key]}")


# ---------------------------------------------------------------- the /mnist/ trainer
def idx_bytes(magic: int, shape: tuple, seed: int) -> bytes:
    """An MNIST IDX file of pseudo-random uint8 values (the step's time does not depend on them)."""
    n = math.prod(shape)
    head = magic.to_bytes(4, "big") + b"".join(d.to_bytes(4, "big") for d in shape)
    block = bytes((i * 2654435761 + seed) >> 13 & 255 for i in range(1 << 16))
    body = (block * (n // len(block) + 1))[:n]
    if magic == 2049:
        body = bytes(v % 10 for v in body[:n])
    return head + body


def trainer_figures() -> None:
    n_train = 6000 if QUICK else 60000
    data = {"train_x": idx_bytes(2051, (n_train, 28, 28), 1), "train_y": idx_bytes(2049, (n_train,), 2),
            "test_x": idx_bytes(2051, (1000, 28, 28), 3), "test_y": idx_bytes(2049, (1000,), 4)}
    for model in ("mlp", "cnn"):
        source = open(os.path.join(HERE, "..", "demos", "mnist", "models", f"{model}.py")).read()
        for batch in ((128,) if QUICK else (128, 1000)):
            tr = mnist_trainer.Trainer(data, source, batch=batch)
            tr.train(1 if QUICK else 3)  # compiles
            steps = 2 if QUICK else 50
            r = tr.train(steps)  # one chunk as the page runs it: losses read back at its end
            row(f"/mnist/ trainer {model} batch {batch}", r["ms_per_step"], "ms/step")


# ---------------------------------------------------------------- a transformer block
def block_init(key, d: int, f: int):
    ks = jax.random.split(key, 4)
    s = 1 / d ** 0.5
    return {"qkv": jax.random.normal(ks[0], (d, 3 * d)) * s, "o": jax.random.normal(ks[1], (d, d)) * s,
            "up": jax.random.normal(ks[2], (d, f)) * s, "down": jax.random.normal(ks[3], (f, d)) / f ** 0.5,
            "b_up": jnp.zeros(f), "ln1": jnp.ones(d), "ln2": jnp.ones(d)}


def layer_norm(x, g):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(v + 1e-5) * g


def block(p, x, heads: int):
    b, t, d = x.shape
    h = layer_norm(x, p["ln1"])
    q, k, v = jnp.split(h @ p["qkv"], 3, axis=-1)
    q, k, v = (z.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3) for z in (q, k, v))
    a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / (d // heads) ** 0.5, axis=-1) @ v
    x = x + a.transpose(0, 2, 1, 3).reshape(b, t, d) @ p["o"]
    h = layer_norm(x, p["ln2"])
    return x + jax.nn.gelu(h @ p["up"] + p["b_up"]) @ p["down"]


def transformer_figures() -> None:
    b, t, d, heads = (2, 32, 96, 3) if QUICK else (8, 128, 384, 6)
    p = block_init(jax.random.key(5), d, 4 * d)
    x = jax.random.normal(jax.random.key(6), (b, t, d))
    f = jax.jit(lambda p, x: block(p, x, heads))
    y = f(p, x)
    assert all(math.isfinite(v) for v in y[0, 0, :4].tolist())
    calls = 5 if QUICK else 50
    t0 = time.perf_counter()
    for _ in range(calls):
        y = f(p, x)
    jax.block_until_ready(y)
    queued = (time.perf_counter() - t0) / calls * 1e3
    g, kernels = gpu_ms(lambda: f(p, x))
    name = f"transformer block fwd b{b} t{t} d{d} h{heads}"
    row(f"{name}: queued", queued, "ms/call")
    row(f"{name}: GPU ({len(kernels)} kernels)", g, "ms/call (GPU)")


# ---------------------------------------------------------------- readback
def readback_figures() -> None:
    for mb in ((1, 16) if QUICK else (1, 16, 64, 256)):
        n = (mb << 20) // 4
        z = (jnp.arange(n, dtype=jnp.float32) + 1).block_until_ready()
        buf = z.contiguous_buffer()
        buf.read()  # the staging buffer of this size made (and cleared by Dawn) once
        reps = 3
        t0 = time.perf_counter()
        for _ in range(reps):
            data = buf.read()
        dt = (time.perf_counter() - t0) / reps
        assert len(data) == 4 * n
        row(f"readback {mb} MB", 4 * n / dt / 1e9, "GB/s")
        del z, buf, data


with jax.default_device(gpu):
    print(f"adapter: {be.device_kind}, software {be.software}; GEMM tiling {be.tiling}; "
          f"plan {be.plan_mode}; split timings {be.tuned_splits}", flush=True)
    modes = (("timed", "plan timed"), ("0", "plan off"), ("1", "plan rule")) if not be.software else ((None, "software"),)
    mlp = {}
    for mode, label in modes:
        if mode is not None:
            be.set_gemm_plan(mode)
        mlp[label] = mlp_figures(label)
        if mode == "timed":
            planner_table()
    if len(mlp) > 1:
        for k in ("queued", "synced", "host", "gpu", "alone"):
            for label in ("plan timed", "plan rule"):
                row(f"MLP step {k}: {label} / plan off", mlp[label][k] / mlp["plan off"][k], "x")
    if len(mlp) > 1:  # the rest as the environment says (timed unless JAXWEB_GEMM_PLAN)
        be.set_gemm_plan(os.environ.get("JAXWEB_GEMM_PLAN", "timed"))
    plan_on = mlp[modes[0][1]]
    for name, fn in (("trainer", trainer_figures), ("transformer", transformer_figures), ("readback", readback_figures)):
        try:
            fn()
        except Exception as e:  # noqa: BLE001  (one failing case must not hide the others' figures)
            print(f"{name} FAILED: {type(e).__name__}: {e}", flush=True)
            rows.append((f"{name} FAILED", float("nan"), type(e).__name__))
print(f"stats: {be.stats}")
print(f"=== jaxweb webgpu ({be.device_kind}), issue 22 figures; the MLP step's floor: "
      f"{'GPU' if plan_on['gpu'] >= plan_on['host'] else 'host'} "
      f"(host {plan_on['host']:.2f} ms vs GPU {plan_on['gpu']:.2f} ms per step)")
print(f"{'case':58s} {'figure':>10s}  unit")
for name, v, unit in rows:
    print(f"{name:58s} {v:10.3f}  {unit}")
