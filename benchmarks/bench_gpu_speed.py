"""Issue 22's figures on a real GPU in one run: Python in Pyodide under Node 24, Dawn's WebGPU.

    bash scripts/run_on_gpu.sh benchmarks/bench_gpu_speed.py [--quick]

(On a CPU machine the same command runs on SwiftShader; --quick shrinks every case so that it
ends in minutes there.) Runs inside Pyodide, so no numpy. Prints, then a table last:

- the MNIST MLP step of ../shared/bench/gpu_mlp_step.py (784-256-128-10, batch 1000, Adam written
  out with its two bias corrections made per step as jnp.float32 scalars, whole step jitted;
  jax-js 0.1.25 runs the same in ../shared/bench/jaxjs_gpu_mlp.mjs): ms/step queued (N steps, one
  wait) and synced (a wait after each), the host time per step (in the jitted call and the two
  scalars: what Python does before the GPU can start), and the GPU time per step (the sum of
  its kernels' GPU timestamps, one traced step; each kernel of that step timed alone; and the
  step's commands run 20 times in one submit as a replay encodes them, wall-clock). Queued
  time = max(host, GPU) when they overlap: the larger of the two is the floor. The step runs under
  each GEMM plan (webgpu/tuner.py): off (128 x 128 tiles, no K splits: JAXWEB_GEMM_PLAN=0), the
  untimed rule of thumb (=1) and timed per product (the default), in 3 interleaved rounds, each
  measurement after a GPU warm-up (whose probe time says how fast the GPU ran then), the best of
  the rounds kept; each plan's kernels listed in order (us in the step, us alone); the timed
  plan's measurements per product, where the host time goes, and the ratios to plan off;
- the /mnist/ page's trainer (demos/mnist/trainer.py: optax Adam, uint8 batches sliced per step,
  synthetic images) with its MLP and its CNN at the page's batch (128) and at 1000: ms/step;
- a transformer block forward (batch 8, 128 tokens, width 384, 6 heads, MLP 4x, pre-LayerNorm),
  jitted: ms/call queued and GPU time;
- readback of 1, 16, 64 and 256 MB (an array's bytes into Python): GB/s; in Pyodide also the same
  into a JavaScript array (no Python heap), and 64 MB in chunks of 4-64 MB with 2-8 in flight.
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
STREAM = 20  # a traced program's commands this many times in one submit (gpu_ms's `streamed`)
ROUNDS = 1 if QUICK else 3  # rounds of the MLP step's figures per plan, interleaved
STREAMED = [float("nan")]  # ms per run of the last gpu_ms(alone=True) program so streamed
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
        # the same commands as a replay submits them (dispatches sharing one pass), STREAM runs in one
        # submit, wall-clock to the end: what a loop of steps costs the GPU, barriers and all
        every = [c for cmds, _ in seen for c in cmds]
        be.rt.submit(every)
        be.rt.finish()
        t0 = time.perf_counter()
        be.rt.submit(every * STREAM)
        be.rt.finish()
        STREAMED[0] = (time.perf_counter() - t0) / STREAM * 1e3
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


def mlp_setup() -> tuple:
    """(a new jitted step, params, Adam's mu and nu, images, labels)."""
    p = mlp_init(jax.random.key(0))
    return (make_step(), p, jax.tree.map(jnp.zeros_like, p), jax.tree.map(jnp.zeros_like, p),
            jax.random.uniform(jax.random.key(1), (B, 784)), jax.random.randint(jax.random.key(2), (B,), 0, 10))


class MLPRun:
    """One plan's jitted MLP step, compiled under it (`be.set_gemm_plan` first) and warmed up; its
    figures measured in rounds (`measure`), the plans interleaved, so that a GPU slowed for a while
    (the H200 ran everything 2-3x slower for tens of seconds at times, identical WGSL too) spoils
    one round of one plan, not a comparison: the best of the rounds is kept."""

    def __init__(self, label: str):
        self.label = label
        self.step, p, mu, nu, self.x, self.y = mlp_setup()
        self.t = 0
        for _ in range(5):
            p, mu, nu, l = self.run(p, mu, nu)
        self.loss0 = float(l)
        self.state = (p, mu, nu)
        self.best: dict = {}
        self.kernels: list = []

    def run(self, p, mu, nu):
        self.t += 1
        return self.step(p, mu, nu, self.x, self.y, *bcs(self.t))

    def measure(self, probe: float) -> None:
        p, mu, nu = self.state
        jax.block_until_ready(p)
        host = 0.0
        t0 = time.perf_counter()
        for _ in range(N):
            h = time.perf_counter()
            p, mu, nu, l = self.run(p, mu, nu)
            host += time.perf_counter() - h
        jax.block_until_ready(p)
        queued = (time.perf_counter() - t0) / N * 1e3
        t0 = time.perf_counter()
        for _ in range(N):
            p, mu, nu, l = self.run(p, mu, nu)
            jax.block_until_ready(p)
        synced = (time.perf_counter() - t0) / N * 1e3
        self.t += 1
        state, t = (p, mu, nu), self.t
        g, kernels = gpu_ms(lambda: self.step(*state, self.x, self.y, *bcs(t)), alone=True)
        got = {"queued": queued, "synced": synced, "host": host / N * 1e3, "gpu": g,
               "alone": sum(k[2] for k in kernels) / 1e3, "streamed": STREAMED[0]}
        print(f"  {self.label}: " + ", ".join(f"{k} {v:.3f}" for k, v in got.items())
              + f" ms (GPU probe before: {probe * 1e6:.0f} us)", flush=True)
        if not self.best or got["streamed"] < self.best["streamed"]:
            self.kernels = kernels
        for k, v in got.items():
            self.best[k] = min(v, self.best.get(k, v))
        self.state, self.loss = (p, mu, nu), float(l)

    def report(self) -> dict:
        print(f"MLP step {self.label}: loss {self.loss0:.4f} -> {self.loss:.4f}, {len(self.kernels)} kernels per step")
        print_kernels(f"{self.label} (the round with the least streamed time)", self.kernels)
        for k, unit in (("queued", "ms/step"), ("synced", "ms/step"), ("host", "ms/step (host)"),
                        ("gpu", "ms/step (GPU)"), ("alone", "ms/step (GPU, kernels alone)"),
                        ("streamed", f"ms/step (GPU wall, one pass, {STREAM} in a row)")):
            row(f"MLP step B={B} {self.label}: {k}", self.best[k], unit)
        return self.best


def host_parts(label: str) -> None:
    """Where a replayed jitted step's host time goes (perf_counter around each part, N steps)."""
    import collections
    from jaxweb._src import execution, executable
    from jaxweb._src.backends.webgpu import replay
    step, p, mu, nu, x, y = mlp_setup()
    acc = collections.Counter()
    undo = []

    def wrap(obj, name, part):
        orig = getattr(obj, name)

        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return orig(*a, **k)
            finally:
                acc[part] += time.perf_counter() - t0
        setattr(obj, name, timed)
        undo.append((obj, name, orig))
    run = "replay" if hasattr(be.rt, "replay") else "submit"  # Pyodide: one call into js_shim/gpu.mjs
    for t in range(1, 6):
        p, mu, nu, l = step(p, mu, nu, x, y, *bcs(t))
    jax.block_until_ready(p)
    for obj, name, part in ((type(step), "__call__", "the jitted call"), (executable.Executable, "__call__", "Executable"),
                            (replay, "submit", "replay (with the JS call)"), (be.rt, run, JS_CALL),
                            (replay, "_take_outputs", "outputs' memory (pool)"),
                            (execution, "wrap_outputs", "output nodes"), (executable.Executable, "_param", "scalar args")):
        if hasattr(obj, name):
            wrap(obj, name, part)
    try:
        scalars = 0.0
        for t in range(6, 6 + N):
            h = time.perf_counter()
            s = bcs(t)
            scalars += time.perf_counter() - h
            p, mu, nu, l = step(p, mu, nu, x, y, *s)
        jax.block_until_ready(p)
    finally:
        for obj, name, orig in reversed(undo):
            setattr(obj, name, orig)
    print(f"  host time of one step, {label}, by part (ms; nested parts inside the ones above them):")
    print(f"    {'two jnp.float32 scalars':40s} {scalars / N * 1e3:7.3f}")
    for part, v in acc.items():
        print(f"    {part:40s} {v / N * 1e3:7.3f}")
    row(f"MLP step B={B} {label}: host in the JS call", acc[JS_CALL] / N * 1e3, "ms/step (host)")
    host_unwrapped(label, step, (p, mu, nu), x, y)


JS_CALL = "JS call (gpu.replay: encode + submit)"


def host_unwrapped(label: str, step, state, x, y) -> None:
    """The host time of a replayed step with nothing wrapped (the parts' timers cost time too),
    best of 5 rounds of N steps: the call alone, and with the two scalars made."""
    p, mu, nu = state
    best = [float("inf"), float("inf")]
    t = 100
    for _ in range(5):
        jax.block_until_ready(p)
        call = made = 0.0
        for _ in range(N):
            t += 1
            t0 = time.perf_counter()
            s = bcs(t)
            t1 = time.perf_counter()
            p, mu, nu, l = step(p, mu, nu, x, y, *s)
            t2 = time.perf_counter()
            call, made = call + t2 - t1, made + t2 - t0
        best = [min(best[0], call / N * 1e3), min(best[1], made / N * 1e3)]
    jax.block_until_ready(p)
    row(f"MLP step B={B} {label}: host per jitted call (best round)", best[0], "ms/call (host)")
    row(f"MLP step B={B} {label}: host per step with its two scalars", best[1], "ms/step (host)")


def warm(label: str) -> None:
    """Bring the GPU's clocks up before a timed section and print the probes: an idle GPU starts at
    a low clock, and the H200 host had spells running 2-3x slower (a probe reading 500 us instead
    of 175) that made the first H200 comparisons of the plans measure them, not the plans."""
    probes = be.warm_up()
    if probes:
        print(f"  GPU warm-up before {label}: {len(probes)} probes, a 1024^3 GEMM {probes[0] * 1e6:.0f} -> "
              f"{probes[-1] * 1e6:.0f} us", flush=True)


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
    g, kernels = gpu_ms(lambda: f(p, x), alone=True)
    name = f"transformer block fwd b{b} t{t} d{d} h{heads}"
    print_kernels(name, kernels)
    row(f"{name}: queued", queued, "ms/call")
    row(f"{name}: GPU ({len(kernels)} kernels)", g, "ms/call (GPU)")
    row(f"{name}: GPU, one pass, {STREAM} in a row", STREAMED[0], "ms/call (GPU wall)")


# ---------------------------------------------------------------- readback
def readback_figures() -> None:
    shim = getattr(be.rt, "_shim", None)  # js_shim/gpu.mjs in Pyodide (None in CPython)
    from jaxweb._src import host
    for mb in ((1, 16) if QUICK else (1, 16, 64, 256)):
        n = (mb << 20) // 4
        z = (jnp.arange(n, dtype=jnp.float32) + 1).block_until_ready()
        buf = z.contiguous_buffer()
        buf.read()  # the staging buffer of this size made (and cleared by Dawn) once
        reps = 3
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            data = buf.read()
            best = min(best, time.perf_counter() - t0)
        assert len(data) == 4 * n
        row(f"readback {mb} MB", 4 * n / best / 1e9, "GB/s")
        del data
        t0 = time.perf_counter()
        spare = bytearray(4 * n)  # what the read costs in Python's heap before any copy
        print(f"  bytearray({mb} MB): {(time.perf_counter() - t0) * 1e3:.2f} ms", flush=True)
        del spare
        if shim is not None:
            ms = min(float(host.wait(shim.readProbe(buf.handle.buf, 0, 4 * n))) for _ in range(reps))
            row(f"readback {mb} MB into a JS array (no Python heap)", 4 * n / ms / 1e6, "GB/s")
            if mb == 64:
                readback_sweep(shim, host, buf, 4 * n)
        del z, buf


def readback_sweep(shim, host, buf, nbytes: int) -> None:
    """64 MB read back in chunks of 4-64 MB, 2-8 of them in flight: GB/s of each (best of 3)."""
    old = list(shim.setReadChunking(8 << 20, 4))
    try:
        for chunk in (4, 8, 16, 32, 64):
            cells = []
            for window in (2, 4, 8):
                shim.setReadChunking(chunk << 20, window)
                buf.read()
                best = float("inf")
                for _ in range(3):
                    t0 = time.perf_counter()
                    buf.read()
                    best = min(best, time.perf_counter() - t0)
                cells.append(f"window {window}: {nbytes / best / 1e9:6.3f}")
            print(f"  readback 64 MB in {chunk:2d} MB chunks, GB/s  " + "  ".join(cells), flush=True)
    finally:
        shim.setReadChunking(*old)


with jax.default_device(gpu):
    print(f"adapter: {be.device_kind}, software {be.software}; GEMM tiling {be.tiling}; "
          f"plan {be.plan_mode}; split timings {be.tuned_splits}", flush=True)
    modes = (("0", "plan off"), ("1", "plan rule"), ("timed", "plan timed")) if not be.software else ((None, "software"),)
    runs = {}
    for mode, label in modes:
        if mode is not None:
            be.set_gemm_plan(mode)
        runs[label] = MLPRun(label)
        if mode == "timed":
            planner_table()
    print(f"MLP step B={B}, {ROUNDS} rounds, the plans interleaved (each round after a GPU warm-up):")
    for _ in range(ROUNDS):
        for label, r in runs.items():
            probes = be.warm_up()
            r.measure(probes[-1] if probes else float("nan"))
    mlp = {label: r.report() for label, r in runs.items()}
    host_parts(modes[-1][1])
    if len(mlp) > 1:
        for k in ("queued", "synced", "host", "gpu", "alone", "streamed"):
            for label in ("plan rule", "plan timed"):
                row(f"MLP step {k}: {label} / plan off", mlp[label][k] / mlp["plan off"][k], "x")
    if len(mlp) > 1:  # the rest as the environment says (timed unless JAXWEB_GEMM_PLAN)
        be.set_gemm_plan(os.environ.get("JAXWEB_GEMM_PLAN", "timed"))
    plan_on = mlp[modes[-1][1]]
    for name, fn in (("trainer", trainer_figures), ("transformer", transformer_figures), ("readback", readback_figures)):
        try:
            warm(name)
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
