"""Issue 22's figures on a real GPU in one run: Python in Pyodide under Node 24, Dawn's WebGPU.

    bash scripts/run_on_gpu.sh benchmarks/bench_gpu_speed.py [--quick] [--only=readback,trainer]

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
  jitted: ms/call queued and GPU time, with attention's batched products on the GEMM routines and
  without, and with the softmax's exp computed once (bench_transformer.MODES), interleaved;
- readback of 1, 16, 64 and 256 MB (an array's bytes into Python): GB/s; in Pyodide also the same
  into a JavaScript array (no Python heap), and 64 MB in chunks of 4-64 MB with 2-8 in flight.
"""
import math
import os
import sys
import time

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.optax as optax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "demos", "mnist"))
import trainer as mnist_trainer  # noqa: E402
from kernel_trace import kernel_events  # noqa: E402  (beside this file)
from mlp_step import adam_step, bcs, mlp_state  # noqa: E402  (beside this file)

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
    seen = []
    traced = be._submit_traced
    be._submit_traced = lambda trace, cmds, labels: (seen.append((cmds, labels)), traced(trace, cmds, labels))[1]
    try:
        events = kernel_events(fn)
    finally:
        be._submit_traced = traced
    kern = [(n, d) for n, d in events if not n.startswith("submit")] or events
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


def mlp_setup() -> tuple:
    """(a new jitted step (a new trace and schedule, under the backend's capabilities now),
    params, Adam's mu and nu, images, labels)."""
    return (jax.jit(adam_step), *mlp_state(B))


class MLPRun:
    """One plan's jitted MLP step, compiled under it (`be.set_gemm_plan` first) and warmed up; its
    figures measured in rounds (`measure`), the plans interleaved, so that a GPU slowed for a while
    (the H200 ran everything 2-3x slower for tens of seconds at times, identical WGSL too) spoils
    one round of one plan, not a comparison: the best of the rounds is kept."""

    def __init__(self, label: str):
        self.label = label
        self.step, p, mu, nu, self.x, self.y = mlp_setup()
        self.t = 0
        made, t0 = be.stats["pipelines"], time.perf_counter()
        for _ in range(5):
            p, mu, nu, l = self.run(p, mu, nu)
        self.loss0 = float(l)
        first = (time.perf_counter() - t0) * 1e3  # the kernels other plans made already are not made again
        print(f"  {label}: first 5 steps {first:.0f} ms, {be.stats['pipelines'] - made} pipelines made", flush=True)
        row(f"MLP step B={B} {label}: first 5 steps", first, "ms")
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
    from jaxweb._src import device, execution, executable, jitted
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
    for t in range(1, WARM + 1):  # past the calls that record (a loop's two sets of buffers) and keep temporaries
        p, mu, nu, l = step(p, mu, nu, x, y, *bcs(t))
    jax.block_until_ready(p)
    for obj, name, part in ((type(step), "__call__", "the jitted call"), (executable.Executable, "__call__", "Executable"),
                            (replay, "submit", "replay (with the JS call)"), (be.rt, run, JS_CALL),
                            (replay, "take_outputs", "outputs' memory (pool)"),
                            (jitted._Jitted, "_jaxpr", "arguments flattened, trace found"),
                            (device.Buffer, "__del__", "last step's outputs freed"),
                            (execution, "wrap_outputs", "output nodes"), (executable.Executable, "_param", "scalar args")):
        if hasattr(obj, name):
            wrap(obj, name, part)
    try:
        scalars = 0.0
        for t in range(WARM + 1, WARM + 1 + N):
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
WARM = 10  # steps before host_parts times any: steps 1-3 record, 4-5 replay, then two more recordings


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
        chose = ", ".join(f"{c}" + (" (writes its outputs)" if not after else "")
                          for (kk, after), c in planner.chosen.items() if kk == key)
        print(f"    B{b} {m}x{n}x{k} {layout}: {cells}  -> {chose}")


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
            steps = 2 if QUICK else 50
            tr = mnist_trainer.Trainer(data, source, batch=batch)
            before = sliced_steps(tr, steps)
            tr = mnist_trainer.Trainer(data, source, batch=batch)
            tr.train(1 if QUICK else 3)  # compiles
            tr.train(1 if QUICK else 3)  # the step's recordings (replay.py)
            s0 = dict(be.stats)
            r = tr.train(steps)  # one chunk as the page runs it: losses read back at its end
            row(f"/mnist/ trainer {model} batch {batch}", r["ms_per_step"], "ms/step")
            row(f"/mnist/ trainer {model} batch {batch}, eager slices passed in (before)", before, "ms/step")
            row(f"/mnist/ trainer {model} batch {batch}: now / before", r["ms_per_step"] / before, "x")
            print(f"  per step: {(be.stats['replays'] - s0['replays']) / steps:.2f} replays, "
                  f"{(be.stats['dispatches'] - s0['dispatches']) / steps:.1f} dispatches", flush=True)


def sliced_steps(tr, steps: int) -> float:
    """ms/step of `tr`'s model and optimizer stepped as the trainer did before issue 22's fix:
    eager slices of the epoch passed to a jitted step donating its state, the losses stacked
    and read at the chunk's end (views as arguments: copied per call, never replayed)."""
    def step(params, opt_state, xb, yb):
        loss, grads = jax.value_and_grad(tr._loss)(params, xb.astype(jnp.float32) / 255.0, yb)
        updates, opt_state = tr.opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss
    fn = jax.jit(step, donate_argnums=(0, 1))
    params, state = tr.params, tr.opt_state  # tr is this measurement's own: donated freely
    ms = 0.0
    for n in ((1, 1, steps) if not QUICK else (1, steps)):  # compiles, warms, then one chunk timed
        t0 = time.perf_counter()
        losses = []
        for i in range(n):
            lo = i * tr.batch
            params, state, loss = fn(params, state, tr.epoch_x[lo:lo + tr.batch], tr.epoch_y[lo:lo + tr.batch])
            losses.append(loss)
        jnp.stack(losses).tolist()
        ms = (time.perf_counter() - t0) * 1e3 / n
    return ms


# ---------------------------------------------------------------- a transformer block
from bench_transformer import MODES, block_init, jitted_modes  # noqa: E402  (the block, written once)


def transformer_figures() -> None:
    """The block under bench_transformer's MODES — "before" (attention's batched products as generic
    reductions), "gemm" (on the GEMM routine), "gemm+exp" (also the softmax's exp computed once:
    share_transcendentals, which webgpu leaves off unless this shows it pays) — in interleaved
    rounds, the best kept; each mode's kernels listed."""
    b, t, d, heads = (2, 32, 96, 3) if QUICK else (8, 128, 384, 6)
    p = block_init(jax.random.key(5), d, 4 * d)
    x = jax.random.normal(jax.random.key(6), (b, t, d))
    name = f"transformer block fwd b{b} t{t} d{d} h{heads}"
    fns, best = jitted_modes(gpu, p, x, heads), {}
    calls = 5 if QUICK else 50
    for r in range(ROUNDS):
        for mode in (list(MODES) if r % 2 == 0 else list(MODES)[::-1]):
            f, got = fns[mode], best.setdefault(mode, {})
            jax.block_until_ready(f(p, x))
            t0 = time.perf_counter()
            for _ in range(calls):
                y = f(p, x)
            jax.block_until_ready(y)
            queued = (time.perf_counter() - t0) / calls * 1e3
            g, kernels = gpu_ms(lambda: f(p, x), alone=True)
            if queued < got.get("queued", math.inf):
                got["queued"] = queued
            if STREAMED[0] < got.get("streamed", math.inf):
                got.update(streamed=STREAMED[0], gpu=g, kernels=kernels)
            print(f"  {name} round {r}, {mode}: queued {queued:.3f} ms, GPU {g:.3f} ms, "
                  f"streamed {STREAMED[0]:.3f} ms", flush=True)
    for mode in MODES:
        got = best[mode]
        print_kernels(f"{name}, {mode}", got["kernels"])
        row(f"{name}, {mode}: queued", got["queued"], "ms/call")
        row(f"{name}, {mode}: GPU ({len(got['kernels'])} kernels)", got["gpu"], "ms/call (GPU)")
        row(f"{name}, {mode}: GPU, one pass, {STREAM} in a row", got["streamed"], "ms/call (GPU wall)")
    for k in ("queued", "gpu", "streamed"):
        row(f"{name} {k}: gemm / before", best["gemm"][k] / best["before"][k], "x")
        row(f"{name} {k}: gemm+exp / gemm", best["gemm+exp"][k] / best["gemm"][k], "x")


# ---------------------------------------------------------------- readback
def readback_figures() -> None:
    """GB/s of an array's bytes read into Python (Buffer.read: what np.asarray, tolist and
    device_get start from), best of 6; in Pyodide beside it the same read into a zero-filled
    bytearray (the read before host.uninitialized), interleaved, where one read's time went
    (gpu.readTimes) and the read into a JS array."""
    from jaxweb._src import host
    shim = getattr(be.rt, "_shim", None)  # js_shim/gpu.mjs in Pyodide (None in CPython)
    for mb in ((1, 16) if QUICK else (1, 16, 64, 256)):
        n = (mb << 20) // 4
        z = (jnp.arange(n, dtype=jnp.float32) + 1).block_until_ready()
        buf = z.contiguous_buffer()
        buf.read()  # the staging buffer of this size made (and cleared by Dawn) once

        def zeroed(buf=buf):  # the same read, its destination made as before: bytearray(n), cleared first
            made, host.uninitialized = host.uninitialized, bytearray
            try:
                return buf.read()
            finally:
                host.uninitialized = made
        ways = {"now": buf.read, "zero-filled": zeroed} if shim is not None else {"now": buf.read}
        best = dict.fromkeys(ways, float("inf"))
        for r in range(6):
            for way, fn in (list(ways.items()) if r % 2 == 0 else list(ways.items())[::-1]):
                t0 = time.perf_counter()
                data = fn()
                best[way] = min(best[way], time.perf_counter() - t0)
                assert len(data) == 4 * n
                del data
        row(f"readback {mb} MB", 4 * n / best["now"] / 1e9, "GB/s")
        if shim is None:
            continue
        row(f"readback {mb} MB into a zero-filled bytearray (before)", 4 * n / best["zero-filled"] / 1e9, "GB/s")
        row(f"readback {mb} MB: now / zero-filled, GB/s", best["zero-filled"] / best["now"], "x")
        for what, fn in (("bytearray", lambda: bytearray(4 * n)), ("host.uninitialized", lambda: host.uninitialized(4 * n))):
            t0 = time.perf_counter()
            spare = fn()
            print(f"  {what}({mb} MB): {(time.perf_counter() - t0) * 1e3:.2f} ms", flush=True)
            del spare
        shim.readTimes()
        t0 = time.perf_counter()
        buf.read()
        total = (time.perf_counter() - t0) * 1e3
        wait, copy, issue = (float(v) for v in shim.readTimes())
        print(f"  one read of {mb} MB: {total:.2f} ms: waiting for mappings {wait:.2f} ms, copying into the "
              f"heap {copy:.2f} ms ({4 * n / copy / 1e6:.2f} GB/s), issuing chunks {issue:.2f} ms, "
              f"the rest {total - wait - copy - issue:.2f} ms", flush=True)
        ms = min(float(host.wait(shim.readProbe(buf.handle.buf, 0, 4 * n))) for _ in range(3))
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


def mlp_figures() -> dict:
    """The MLP step under each plan (module doc); the figures of the plan in force after it."""
    modes = (("0", "plan off"), ("1", "plan rule"), ("timed", "plan timed")) if not be.software else ((None, "software"),)
    runs = {}
    for mode, label in modes:
        if mode is not None:
            be.set_gemm_plan(mode)
        runs[label] = MLPRun(label)
        if mode == "timed":
            spent = be.planner.spent
            print(f"  the timed plan's first call: {spent['products']} products timed: compiling candidates "
                  f"{spent['compile'] * 1e3:.0f} ms, warming the GPU {spent['warm'] * 1e3:.0f} ms, "
                  f"running them {spent['run'] * 1e3:.0f} ms", flush=True)
            row(f"MLP step B={B} plan timed: timing its products", sum(spent[k] for k in ("compile", "warm", "run")) * 1e3, "ms")
            for k, what in (("compile", "compiling candidates"), ("warm", "warming the GPU"), ("run", "running them")):
                row(f"MLP step B={B} plan timed: timing, {what}", spent[k] * 1e3, "ms")
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
    return mlp[modes[-1][1]]


def compile_figures() -> None:
    """Is compiling pipelines together (runtime.pipelines, the timed plan's candidates) faster than
    one by one on this host? Two sets of 8 GEMM shaders never compiled before (their K differs),
    one set awaited one by one, the other started together (2 of each with --quick); ms each. If together wins, every
    kernel of a first call could be compiled that way (today each is awaited alone)."""
    from jaxweb._src.backends.webgpu import matmul  # noqa: PLC0415
    from jaxweb._src.compiler.gemm import GemmSpec  # noqa: PLC0415
    if not hasattr(be.rt, "pipelines"):
        return
    base = 1000 + int(time.time()) % 997  # shaders this process (and the driver's cache) has not seen
    count = 2 if QUICK else 8
    sets = [[matmul.build(GemmSpec(M=1000, N=256, K=base + 8 * i + 4 * j, a_off=0, a_si=784, a_sk=1, b_off=0,
                                   b_sk=256, packed=False, nr=be.tiling.BN), be.tiling, be.subgroups).code for i in range(count)]
            for j in range(2)]
    t0 = time.perf_counter()
    for code in sets[0]:
        be.rt.pipeline(code)
    one = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    be.rt.pipelines(sets[1])
    together = (time.perf_counter() - t0) * 1e3
    row(f"{count} GEMM pipelines compiled one by one", one, "ms")
    row(f"{count} GEMM pipelines compiled together", together, "ms")
    row("pipelines compiled together / one by one", together / one, "x")


# --only=readback,trainer runs those sections alone (mlp, trainer, transformer, readback, compile)
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
with jax.default_device(gpu):
    print(f"adapter: {be.device_kind}, software {be.software}; GEMM tiling {be.tiling}; "
          f"plan {be.plan_mode}; split timings {be.tuned_splits}", flush=True)
    plan_on = mlp_figures() if ONLY is None or "mlp" in ONLY else None
    for name, fn in (("trainer", trainer_figures), ("transformer", transformer_figures), ("readback", readback_figures),
                     ("compile", compile_figures)):
        if ONLY is not None and name not in ONLY:
            continue
        try:
            warm(name)
            fn()
        except Exception as e:  # noqa: BLE001  (one failing case must not hide the others' figures)
            print(f"{name} FAILED: {type(e).__name__}: {e}", flush=True)
            rows.append((f"{name} FAILED", float("nan"), type(e).__name__))
print(f"stats: {be.stats}")
floor = "" if plan_on is None else (
    f"; the MLP step's floor: {'GPU' if plan_on['gpu'] >= plan_on['host'] else 'host'} "
    f"(host {plan_on['host']:.2f} ms vs GPU {plan_on['gpu']:.2f} ms per step)")
print(f"=== jaxweb webgpu ({be.device_kind}), issue 22 figures{floor}")
print(f"{'case':58s} {'figure':>10s}  unit")
for name, v, unit in rows:
    print(f"{name:58s} {v:10.3f}  {unit}")
