"""A jitted call that matches an earlier one replays its launches (issue 22: "on wasm, a
replay is one JS call with a prebuilt record list"); the wasm counterpart of webgpu/replay.py.

A prepared schedule run again on the same buffer addresses launches the same kernels with
the same int arguments: the arguments are only rows and addresses (scalars reach kernels
in buffers, compiler/params.py). So the wasm backend keeps, per prepared schedule, the
launches its runs made, encoded once by the runtime (`Runtime.encode`: in Pyodide one
Int32Array of `runBatch` records, js_shim/wasm.mjs; on wasmtime each launch's arguments
packed for a raw ctypes call), keyed by the addresses every buffer was bound to. A call
first runs the schedule's memory steps alone (backends/replay_steps.py: in their order, so
each buffer gets the address the ordinary interleaved run would give it; memory a step frees
may be reused by a later allocation of the same call, as in that order, since the compiler
frees a buffer only after its last reader), then looks the addresses up: a hit is one
`Runtime.replay` call and no Python per kernel; a miss runs the kernels as `Backend.submit`
would and records them.

The memory plan: each allocation asks the allocator (`Allocator.prefer`) for the address it
had two runs ago, else the one it had one run ago, wherever that memory is free. A training
loop whose outputs feed the next step then alternates between two sets of addresses, and its
temporaries keep theirs: MAX_RECORDINGS holds both sets, and a few more.

A schedule run a second time keeps its temporaries (buffers it allocates and frees within
the call) as its own scratch memory from then on, at most KEEP_BYTES of them (KEEP_TOTAL
per backend), as an XLA executable keeps its temp buffer: a replay then allocates only its
outputs, in one step where the device's allocator takes several at once (`alloc.many`,
backends/replay_steps.take_outputs). The scratch goes back to the allocator when the
prepared schedule goes.

Not recorded: a schedule's first run (a one-off eager flush pays nothing), schedules with
host steps (control flow run by the executor between kernels), and anything while the
profiler traces (the backend times each launch then). A recording is forgotten when
anything it names may be gone: the runtime's `epoch` changes when a module is unloaded or
the memory grows.
"""
from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

from ..replay_steps import give_back, lean_steps, memory_steps, run_kernels, split_steps, take_outputs

ENABLED = True  # off: every call runs as Backend.submit does (benchmarks/bench_wasm_replay.py --no-replay)
MAX_RECORDINGS = 4  # per prepared schedule
KEEP_BYTES = 32 << 20  # a schedule keeps its temporaries if they take at most this
KEEP_TOTAL = 256 << 20  # ... and all schedules' kept ones at most this, per backend (a wasm memory never shrinks)


class Plan:
    """A prepared schedule's memory steps, its launches and its recordings (`Prepared.cache`)."""

    __slots__ = ("ok", "memory", "runs", "recordings", "seen", "had", "temps", "scratch", "outs", "sizes",
                 "aliases", "__weakref__")

    def __init__(self, steps: list):
        self.ok, self.memory, self.runs, self.temps = split_steps(steps)
        self.recordings: OrderedDict[tuple, tuple] = OrderedDict()  # addresses -> (epoch, encoded)
        self.seen = 0
        self.had: dict = {}  # schedule buffer -> its addresses the last two runs (+ replay_steps' _RECENT, _RUNS)
        self.scratch: dict[int, int] | None = None  # temporaries kept: schedule buffer -> address
        self.outs = self.sizes = self.aliases = None  # memory steps that are one allocation step
        self._lean()

    def _lean(self) -> None:
        """Memory steps without frees (none, or only the kept temporaries had them): their
        allocations in one step (`take_outputs`)."""
        lean = lean_steps(self.memory)
        if lean is not None:
            self.outs, self.sizes, self.aliases = lean

    def keep_temps(self, backend: Any, alloc: Any, free: Any, nbytes: dict) -> None:
        """Allocate the temporaries for good (see the module's docstring); the memory steps
        then skip them."""
        sizes = {b: nbytes[b] for b in self.temps}
        total = sum(sizes.values())
        if not sizes or total > KEEP_BYTES or backend.kept_bytes + total > KEEP_TOTAL:
            self.temps = set()
            return
        got: dict[int, int] = {}
        try:
            for b in sorted(sizes):
                got[b] = alloc(sizes[b], "a jitted program's temporaries, kept for its replays")
        except Exception:  # noqa: BLE001  (no memory to spare: allocated per call as before)
            _give_back(backend, free, got, sizes, 0)
            self.temps = set()
            return
        backend.kept_bytes += total
        weakref.finalize(self, _give_back, backend, free, got, sizes, total)
        self.scratch = got
        self.memory = [s for s in self.memory if s[1] not in got]
        self._lean()


def _give_back(backend: Any, free: Any, got: dict, sizes: dict, total: int) -> None:
    for b, ptr in got.items():
        free(ptr, sizes[b])
    backend.kept_bytes -= total


def submit(backend: Any, prepared: Any, inputs: list, alloc: Any, free: Any) -> dict | None:
    """Run `prepared` by replay where it can (the handles of its live buffers, as
    `Backend.submit` returns them), or None: the caller runs it the ordinary way."""
    rt = backend.rt
    if not ENABLED or backend.recording is not None or not hasattr(rt, "encode"):
        return None
    plan = prepared.cache
    if plan is None:
        plan = prepared.cache = Plan(prepared.steps)
    plan.seen += 1
    if not plan.ok or plan.seen == 1:
        return None
    nbytes = prepared.schedule.nbytes
    if plan.seen == 2 and plan.temps:
        plan.keep_temps(backend, alloc, free, nbytes)
    many = getattr(alloc, "many", None)
    if plan.outs is not None and many is not None:
        live, bound, taken, made = take_outputs(plan.outs, plan.sizes, plan.aliases, plan.had, inputs, many)
    else:
        live, bound, taken, made = memory_steps(plan.memory, plan.had, inputs, alloc, free, nbytes,
                                                backend.prefer)
    if plan.scratch is not None:  # (a copy: take_outputs' bound buffers are its live ones)
        bound = {**bound, **plan.scratch}
    key = (*inputs, *made)
    try:
        rec = plan.recordings.get(key)
        if rec is not None and rec[0] == rt.epoch:
            plan.recordings.move_to_end(key)
            rt.replay(rec[1])
            backend.stats["replays"] += 1
            return live
        epoch = rt.epoch
        backend.recording = launches = []
        try:
            run_kernels(backend, plan.runs, bound)
        finally:
            backend.recording = None
        if rt.epoch == epoch:
            plan.recordings[key] = (epoch, rt.encode(launches))
            if len(plan.recordings) > MAX_RECORDINGS:
                plan.recordings.popitem(last=False)
    except BaseException:
        give_back(live, len(inputs), taken, free, nbytes)
        raise
    return live
