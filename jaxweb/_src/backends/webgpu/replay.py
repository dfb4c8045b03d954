"""A jitted call that matches an earlier one replays its recorded commands (issue 22: a jitted
call costs one replay).

A prepared schedule run again on the same buffers records the same commands: the same
pipelines, the same bind groups (cached by buffer identity) and grids. So the webgpu backend
keeps, per prepared schedule, the commands its runs recorded, encoded once for the runtime
(one Int32Array in Pyodide: a replay is one call into js_shim/gpu.mjs), keyed by the identity
of every buffer the run bound. A call first runs the schedule's memory steps alone (its
allocations and frees, in order), each allocation taking, if the pool has it, the buffer it
had two runs ago, else the one it had one run ago: a training loop then binds the same
buffers every other step (two sets in turn, as each step's outputs become the next one's
inputs; its scalar arguments are the executable's own buffers, executable.py). It then looks
its buffers up: a hit submits the encoded commands and does no Python work per dispatch; a miss
runs the schedule's kernels as before and records them.

A schedule that has replayed twice keeps its temporaries (buffers it allocates and frees
within the call) as its own, at most OWN_BYTES of them (OWN_TOTAL per backend), as an XLA
executable keeps its temp buffer: a replay then allocates only its outputs. They go back to
the pool when the prepared schedule goes.

A recording is forgotten when anything it names may be gone (`epoch`: the backend bumps it
when it releases a bind group, destroys a buffer or replaces a lost device). Schedules with
host steps (control flow the executor runs between kernels), views among the inputs, and
runs that made temporaries (copies of views) are not recorded; nor is anything while the
profiler traces (it times each kernel).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

MAX_RECORDINGS = 4  # per prepared schedule (a loop alternates between two sets of buffers)
OWN_AFTER = 2  # replays before a schedule keeps its temporaries
OWN_BYTES = 64 << 20  # ... if they take at most this
OWN_TOTAL = 512 << 20  # ... and all schedules' kept ones at most this, per backend


class Recording:
    """A run's commands; `encoded`: the runtime's form of them (made at the first replay: in
    Pyodide the shim keeps them as the GPU objects they name), `forget(encoded)` lets it go."""
    __slots__ = ("epoch", "cmds", "dispatches", "encoded", "forget")

    def __init__(self, epoch: int, cmds: list):
        self.epoch, self.cmds, self.encoded, self.forget = epoch, cmds, None, None
        self.dispatches = sum(c[0] == "dispatch" for c in cmds)

    def __del__(self) -> None:
        if self.forget is not None:
            try:
                self.forget(self.encoded)
            except Exception:  # noqa: BLE001  (interpreter shutdown)
                pass


class Plan:
    """A prepared schedule's memory steps and its recordings (`Prepared.cache`)."""
    __slots__ = ("ok", "memory", "runs", "recordings", "had", "temps", "hits", "owned", "release", "order",
                 "outs", "sizes", "aliases")

    def __init__(self, steps: list):
        self.had: dict[int, tuple] = {}  # schedule buffer -> the GPU buffers it had the last two runs
        self.ok = all(s[0] != 3 for s in steps)
        self.memory = [s for s in steps if s[0] in (0, 2, 4)]
        self.runs = [s for s in steps if s[0] == 1 and s[1] is not None]
        self.recordings: OrderedDict[tuple, Recording] = OrderedDict()
        made = [s[1] for s in self.memory if s[0] == 0]
        freed = [s[1] for s in self.memory if s[0] == 2]
        self.temps = (set(made) & set(freed)) if len(set(made)) == len(made) and len(set(freed)) == len(freed) else set()
        self.hits = 0
        self.owned: dict[int, Any] | None = None  # temporaries kept: schedule buffer -> handle
        self.release: Any = None  # (backend, free, nbytes) to give them back
        self.order: list | None = None  # the schedule buffers a run binds, sorted (the recordings' key)
        # with the temporaries kept, a run's memory steps are only allocations (its outputs: `outs`,
        # of `sizes` bytes), taken in one step, and donated inputs' memory (`aliases`); None if not
        self.outs: list | None = None
        self.sizes: list = []
        self.aliases: list = []

    def keep_temps(self, backend: Any, alloc: Any, free: Any, nbytes: dict) -> None:
        """Take this schedule's temporaries for good (see the module's docstring)."""
        total = sum(nbytes[b] for b in self.temps)
        if not self.temps or total > OWN_BYTES or backend.kept_bytes + total > OWN_TOTAL:
            return
        owned = {}
        try:
            for b in sorted(self.temps):
                owned[b] = alloc(nbytes[b], "a jitted program's temporaries, kept for its replays")
        except Exception:  # noqa: BLE001  (no memory to spare: replays allocate them as before)
            for b, h in owned.items():
                free(h, nbytes[b])
            return
        self.owned, self.release = owned, (backend, free, {b: nbytes[b] for b in owned})
        backend.kept_bytes += total
        rest = [s for s in self.memory if s[1] not in owned]
        if all(s[0] in (0, 4) for s in rest):
            self.outs = [s[1] for s in rest if s[0] == 0]
            self.sizes = [s[2] for s in rest if s[0] == 0]
            self.aliases = [(s[1], s[2]) for s in rest if s[0] == 4]

    def drop_temps(self, give_back: bool = True) -> None:
        if self.owned is None:
            return
        backend, free, nbytes = self.release
        if give_back:
            for b, h in self.owned.items():
                free(h, nbytes[b])
        backend.kept_bytes -= sum(nbytes.values())
        self.owned = self.release = self.outs = None

    def __del__(self) -> None:
        try:
            self.drop_temps()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


def _plan(prepared: Any) -> Plan:
    plan = prepared.cache
    if plan is None:
        plan = prepared.cache = Plan(prepared.steps)
    return plan


def _key(bound: dict, order: list) -> tuple:
    """The identities of the bound GPU buffers, in schedule-buffer order (js_shim's are ints)."""
    return tuple([b if type(b) is int else id(b) for b in [bound[i].buf for i in order]])


def _take_outputs(plan: Plan, alloc: Any, live: dict, bound: dict, taken: set) -> None:
    """A steady run's memory steps (`Plan.outs`): its outputs allocated in one step, each the
    buffer it had two runs ago if free, else one run ago; the kept temporaries bound."""
    had, outs = plan.had, plan.outs
    handles = alloc.many(plan.sizes, [had.get(b, ()) for b in outs], "a jitted program's outputs")
    for b, h in zip(outs, handles):
        was = had.get(b)
        had[b] = (was[-1], h.buf) if was else (h.buf,)
        live[b] = bound[b] = h
    bound.update(plan.owned)
    for b, src in plan.aliases:  # a donated input's memory
        live[b] = bound[b] = live[src]
        taken.add(b)


def _memory_steps(plan: Plan, backend: Any, alloc: Any, free: Any, live: dict, bound: dict, taken: set,
                  nbytes: dict) -> None:
    """A run's allocations and frees in order (see the module's docstring)."""
    own = plan.owned
    for step in plan.memory:
        kind, b = step[0], step[1]
        if own is not None and b in own:  # a kept temporary: neither allocated nor freed
            bound[b] = own[b]
        elif kind == 0:  # the buffer it had two runs ago (the last run's may still be live) or one run ago
            backend._prefer = had = plan.had.get(b, ())
            try:
                live[b] = bound[b] = alloc(step[2], step[3])
            finally:
                backend._prefer = ()
            plan.had[b] = (had[-1], live[b].buf) if had else (live[b].buf,)
        elif kind == 4:  # a donated input's memory
            live[b] = bound[b] = live[step[2]]
            taken.add(b)
        else:
            free(live.pop(b), nbytes[b])


def submit(backend: Any, prepared: Any, inputs: list, alloc: Any, free: Any) -> dict | None:
    """Run `prepared` by replay where it can (the handles of its live buffers, as `submit`
    returns them), or None: the caller runs it the ordinary way."""
    plan = _plan(prepared)
    if not plan.ok or backend._pending or any(h.off for h in inputs):
        return None
    nbytes = prepared.schedule.nbytes
    live: dict[int, Any] = dict(enumerate(inputs))
    bound = dict(live)  # every buffer a kernel binds, freed ones too
    taken: set[int] = set()
    own = plan.owned
    if own is not None and next(iter(own.values())).gen != backend.gen:  # made by a device since lost
        plan.drop_temps(give_back=False)
        own = None
    backend._hold += 1  # buffers freed below are still bound by the commands to come
    try:
        if own is not None and plan.outs is not None and hasattr(alloc, "many"):
            _take_outputs(plan, alloc, live, bound, taken)
        else:
            _memory_steps(plan, backend, alloc, free, live, bound, taken, nbytes)
        if plan.order is None:
            plan.order = sorted(bound)
        key = _key(bound, plan.order)
        rec = plan.recordings.get(key)
        if rec is not None and rec.epoch == backend.epoch:
            plan.recordings.move_to_end(key)
            backend.flush(rec)
            plan.hits += 1
            if own is None and plan.hits == OWN_AFTER:
                plan.keep_temps(backend, alloc, free, nbytes)
            return live
        epoch = backend.epoch
        for step in plan.runs:
            try:
                backend.execute(step[1], [bound[b] for b in step[2]], [bound[b] for b in step[3]])
            except Exception as e:
                e.add_note(f"while running kernel '{step[4]}' on the webgpu device")
                raise
        if not backend._after and not backend._doomed and backend.epoch == epoch:
            plan.recordings[key] = Recording(epoch, list(backend._pending))
            if len(plan.recordings) > MAX_RECORDINGS:
                plan.recordings.popitem(last=False)
    except BaseException:
        backend._pending = []
        for b, handle in live.items():
            if b >= len(inputs) and b not in taken:
                free(handle, nbytes[b])
        raise
    finally:
        backend._hold -= 1
    return live
