"""Host time per jitted call on the wasm device (issue 22, deliverable 5: "a replay is one JS call
with a prebuilt record list").

    python benchmarks/bench_wasm_replay.py [B ...] [--steps N] [--rounds R] [--no-replay]   (CPython: wasmtime)
    flock /tmp/jaxweb_browser.lock .cache/node24/bin/node js_shim/node_run.mjs \\
        --pyodide .cache/pyodide-314.0.7 --wheel .cache/wheels/jaxweb-*.whl benchmarks/bench_wasm_replay.py

The MNIST MLP step of ../shared/bench/gpu_mlp_step.py (784-256-128-10, hand-written Adam with its
two bias corrections passed as jnp.float32 scalars, the whole step jitted) on the wasm device at
batch 128 and 1000 (the default). Per step: the wall time of the jitted call, the time spent in
the engine running kernels (the runtime's calls into Wasm: in Pyodide the shim's batch call, in
CPython wasmtime's calls), and the difference, the host time: what Python does per call around
the kernels. Replay off and on (backends/wasm/replay.py) are measured in R interleaved rounds
on the same state (the load of a shared machine moves between them), the best of each kept;
`--no-replay` measures only "off" (a tree from before the replay has only that). The two
scalars of each step are made before timing. Runs in Pyodide too (no numpy).
"""
import sys
import threading
import time

import jaxweb as jax

from mlp_step import adam_step, bcs, mlp_state

step = jax.jit(adam_step)


class EngineClock:
    """Seconds spent inside the runtime's calls into Wasm (kernels running), on this thread's
    outermost calls only (wasmtime's call_split calls `call` again on every thread)."""

    def __init__(self, rt):
        self.total, self._depth, self._main = 0.0, 0, threading.get_ident()
        self.undo = []
        shim = getattr(rt, "_shim", None)
        if shim is not None:  # Pyodide: the JS shim's functions that run kernels
            rt._shim = _TimedShim(shim, self)
            self.undo.append(lambda: setattr(rt, "_shim", shim))
            runs = rt._runs  # single launches call a kernel's exported run directly
            rt._runs = _TimedList(runs, self)
            self.undo.append(lambda: setattr(rt, "_runs", runs))
        else:
            for name in ("call", "call_split", "replay"):
                orig = getattr(rt, name, None)
                if orig is None:  # a tree from before the wasm replay
                    continue
                setattr(rt, name, self.timed(orig))
                self.undo.append(lambda name=name: delattr(rt, name))

    def timed(self, fn):
        def run(*a, **k):
            if threading.get_ident() != self._main or self._depth:
                return fn(*a, **k)
            self._depth += 1
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.total += time.perf_counter() - t
                self._depth -= 1
        return run

    def close(self):
        for u in reversed(self.undo):
            u()


class _TimedShim:
    RUNS = ("runBatch", "callSplit", "copyWithin")

    def __init__(self, shim, clock):
        self._shim, self._clock = shim, clock

    def __getattr__(self, name):
        fn = getattr(self._shim, name)
        return self._clock.timed(fn) if name in self.RUNS else fn


class _TimedList(list):
    def __init__(self, runs, clock):
        super().__init__(runs)
        self._orig, self._clock = runs, clock

    def __getitem__(self, i):
        return self._clock.timed(self._orig[i])


class MLP:
    """The step's state at batch B on the wasm device, warmed up (5 steps)."""

    def __init__(self, B: int, steps: int, rounds: int):
        self.dev = jax.devices("wasm")[0]
        with jax.default_device(self.dev):
            p, mu, nu, self.x, self.y = mlp_state(B)
            n = 5 + 2 * rounds * steps
            self.bcs = [bcs(t) for t in range(1, n + 1)]
            jax.block_until_ready(self.bcs)  # made before timing: the bench measures the call
            self.t = 0
            self.state = (p, mu, nu)
            for _ in range(5):
                loss = self.step()
            self.loss0 = float(loss)

    def step(self):
        p, mu, nu, loss = step(*self.state, self.x, self.y, *self.bcs[self.t])
        self.state, self.t = (p, mu, nu), self.t + 1
        return loss

    def measure(self, steps: int, replay_on: bool) -> dict:
        """ms per step: wall (the jitted call), engine (kernels running), host (the rest)."""
        try:
            from jaxweb._src.backends.wasm import replay
        except ImportError:  # a tree from before the wasm replay: "no replay" is all it does
            replay = type("replay", (), {})
        replay.ENABLED = replay_on
        stats = self.dev.backend.stats
        hits0 = stats.get("replays", 0)
        clock = EngineClock(self.dev.backend.rt)
        wall = 0.0
        try:
            with jax.default_device(self.dev):
                for _ in range(steps):
                    t0 = time.perf_counter()
                    loss = self.step()
                    wall += time.perf_counter() - t0
        finally:
            clock.close()
            replay.ENABLED = True
        jax.block_until_ready(self.state)
        got = {"wall": wall / steps * 1e3, "engine": clock.total / steps * 1e3,
               "replays": stats.get("replays", 0) - hits0, "loss": float(loss)}
        got["host"] = got["wall"] - got["engine"]
        return got


def main() -> None:
    argv = sys.argv[1:]
    opts = {"--steps": 50, "--rounds": 3}
    for k in opts:
        if k in argv:
            opts[k] = int(argv[argv.index(k) + 1])
            del argv[argv.index(k):argv.index(k) + 2]
    steps, rounds = opts["--steps"], opts["--rounds"]
    modes = [False] if "--no-replay" in argv else [False, True]
    sizes = [int(a) for a in argv if not a.startswith("--")] or [128, 1000]
    rt = jax.devices("wasm")[0].backend.rt
    print(f"wasm device, runtime {rt.name}, {getattr(rt, 'workers', 1)} thread(s); {steps} steps per figure, "
          f"{rounds} rounds with the modes interleaved, the best kept")
    rows = []
    for B in sizes:
        mlp = MLP(B, steps, rounds)
        best: dict = {}
        for r in range(rounds):
            for on in modes:
                got = mlp.measure(steps, on)
                label = "replay" if on else "no replay"
                print(f"  B={B} round {r + 1} {label}: wall {got['wall']:.3f} ms/step, in kernels {got['engine']:.3f}, "
                      f"host {got['host']:.3f} ({got['replays']} replays; loss {got['loss']:.4f})", flush=True)
                b = best.setdefault(on, dict(got))
                for k in ("wall", "engine", "host"):
                    b[k] = min(b[k], got[k])
        print(f"MLP step B={B}: loss {mlp.loss0:.4f} after 5 steps")
        for on in modes:
            b = best[on]
            print(f"MLP step B={B} {'replay' if on else 'no replay'}: wall {b['wall']:.3f} ms/step, "
                  f"in kernels {b['engine']:.3f}, host {b['host']:.3f} ms/step (best of {rounds})", flush=True)
        rows.append((B, best))
    print("\n| B | host ms/call, no replay | host ms/call, replay | ratio | wall no replay | wall replay | ratio |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for B, best in rows:
        off, on = best[False], best.get(True)
        if on is None:
            print(f"| {B} | {off['host']:.3f} | – | – | {off['wall']:.3f} | – | – |")
        else:
            print(f"| {B} | {off['host']:.3f} | {on['host']:.3f} | {on['host'] / off['host']:.2f}x | "
                  f"{off['wall']:.3f} | {on['wall']:.3f} | {on['wall'] / off['wall']:.2f}x |")


if __name__ == "__main__":
    main()
