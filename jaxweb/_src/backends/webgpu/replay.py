"""A jitted call that matches an earlier one replays its recorded commands (issue 22: a jitted
call costs one replay).

A prepared schedule run again on the same buffers records the same commands: the same
pipelines, the same bind groups (cached by buffer identity) and grids. So the webgpu backend
keeps, per prepared schedule, the commands its runs recorded, encoded once for the runtime
(in Pyodide the shim keeps them as the GPU objects they name: a replay is one call into
js_shim/gpu.mjs, which also carries the call's changed scalar arguments, `write_soon`), keyed by
the identity of every buffer the run bound. A call first runs the schedule's memory steps alone
(backends/replay_steps.py: its allocations and frees, in order), each allocation taking, if the
pool has it, the buffer it had two runs ago, else the one it had one run ago: a training loop
then binds the same buffers every other step (two sets in turn, as each step's outputs become
the next one's inputs; its scalar arguments are the executable's own buffers, executable.py).
It then looks its buffers up: a hit submits the encoded commands and does no Python work per
dispatch; a miss runs the schedule's kernels as before and records them.

A schedule that has replayed twice keeps its temporaries (buffers it allocates and frees
within the call) as its own, at most OWN_BYTES of them (OWN_TOTAL per backend), as an XLA
executable keeps its temp buffer: a replay then allocates only its outputs, all in one step
(replay_steps.take_outputs: the memory its outputs had two calls ago taken straight back where
those have died since, memory.py's returned sets, else one pool pass; no call per buffer). They go
back to the pool when the prepared schedule goes.

A run is recorded as the commands pending after its kernels, so only if nothing inside it
submitted what was pending (the recording would hold the tail alone): a copy that goes through
the host (misaligned bytes) flushes first. None does today — a replay's buffers all start at
offset 0 (inputs that are views are not replayed) and the kernels' own copies are word-aligned —
but the check costs nothing.

A recording is forgotten when anything it names may be gone (`epoch`: the backend bumps it
when it releases a bind group, destroys a buffer or replaces a lost device). Schedules with
host steps (control flow the executor runs between kernels) and views among the inputs are
not recorded; nor is anything while the profiler traces (it times each kernel).

The temporaries a kernel makes for itself (`_temp`: an in-place kernel of a donated input reads
that input from a copy; views) never come from the pool while a call's kernels run: the memory
steps ran first, so the pool holds buffers freed by the call that kernels still to come read. They
are the schedule's own scratch (`Plan.scratch`, fresh buffers kept while the plan lives, within
OWN_TOTAL), the same each run, so a donated training step is recorded and replays; past the budget
each run makes fresh ones, freed after its submit, and is not recorded.
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from typing import Any

from ..gpu.device import DeviceLostError, Handle, size_class
from ..replay_steps import give_back, lean_steps, memory_steps, run_kernels, split_steps, take_outputs

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
                 "live_order", "keys", "rest", "outs", "sizes", "aliases", "scratch", "scratch_of")

    def __init__(self, steps: list):
        self.had: dict = {}  # schedule buffer -> the handles it had the last two runs (+ replay_steps' _RECENT, _RUNS)
        self.ok, self.memory, self.runs, self.temps = split_steps(steps)
        self.recordings: OrderedDict[tuple, Recording] = OrderedDict()
        self.hits = 0
        self.owned: dict[int, Any] | None = None  # temporaries kept: schedule buffer -> handle
        self.release: Any = None  # (backend, free, nbytes) to give them back
        self.order: list | None = None  # the schedule buffers a run binds, sorted (the recordings' key)
        self.live_order: list | None = None  # ... those a run hands back, once the temporaries are kept
        self.keys: dict = {}  # id(live buffers) -> (them, their key): the last two lean runs
        self.rest = self.memory  # the memory steps of buffers other than the kept temporaries
        # with the temporaries kept, a run's memory steps are only allocations (its outputs: `outs`,
        # of `sizes` bytes), taken in one step, and donated inputs' memory (`aliases`); None if not
        self.outs: list | None = None
        self.sizes: list = []
        self.aliases: list = []
        self.scratch: list = []  # the kernels' own temporaries, in the order they ask for them
        self.scratch_of: Any = None  # the backend they count against (kept_bytes)

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
        self.recordings.clear()  # they bind the temporaries of their runs; keys from now on leave them out
        backend.kept_bytes += total
        self.rest = rest = [s for s in self.memory if s[1] not in owned]
        lean = lean_steps(rest)
        if lean is not None:
            self.outs, self.sizes, self.aliases = lean

    def drop_temps(self, give_back: bool = True) -> None:
        if self.owned is None:
            return
        backend, free, nbytes = self.release
        if give_back:
            for b, h in self.owned.items():
                free(h, nbytes[b])
        backend.kept_bytes -= sum(nbytes.values())
        self.owned = self.release = self.outs = None
        self.rest = self.memory

    def drop_scratch(self, give_back: bool = True) -> None:
        backend, self.scratch_of = self.scratch_of, None
        if backend is None:
            return
        scratch, self.scratch = self.scratch, []
        self.recordings.clear()  # they bind the scratch
        backend.kept_bytes -= sum(h.cap for h in scratch)
        if give_back:
            for h in scratch:
                backend.free(h)

    def __del__(self) -> None:
        try:
            self.drop_temps()
            self.drop_scratch()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


def _scratch(backend: Any, plan: Plan) -> Any:
    """The kernels' `_temp` for one run of `plan` (see the module's docstring): its i-th request
    gets the plan's i-th scratch buffer, made fresh the first time (never from the pool)."""
    used = 0

    def take(nbytes: int) -> Handle:
        nonlocal used
        i, have, cap = used, plan.scratch, size_class(nbytes)
        used += 1
        if i < len(have) and have[i].cap >= nbytes:
            return have[i]
        h = backend.new_buffer(nbytes, cap)
        if i == len(have) and backend.kept_bytes + cap <= OWN_TOTAL:
            have.append(h)
            backend.kept_bytes += cap
            plan.scratch_of = backend
        else:  # past the budget: this run's own, freed after its submit (and the run not recorded)
            backend._after.append(h)
        return h
    return take


def _plan(prepared: Any) -> Plan:
    plan = prepared.cache
    if plan is None:
        plan = prepared.cache = Plan(prepared.steps)
    return plan


def _key(bound: dict, order: list) -> tuple:
    """The bound GPU buffers, in schedule-buffer order (js_shim's are ints; wgpu-py's objects hash
    by identity, and the recording's bind groups hold them anyway): made without a Python loop."""
    return tuple(map(_buf, map(bound.__getitem__, order)))


_buf = operator.attrgetter("buf")
_off = operator.attrgetter("off")


def _lost(live: dict, inputs: list, taken: set, free: Any, nbytes: dict) -> None:
    """The device was lost (and replaced) since this call's memory steps ran: what they took was
    the lost device's; give it back and let the caller run the schedule the ordinary way, on the
    new device (where arguments of the lost one raise DeviceLostError, and a program without
    any runs, as it did before a replay found losses itself)."""
    give_back(live, len(inputs), taken, free, nbytes)
    return None


def submit(backend: Any, prepared: Any, inputs: list, alloc: Any, free: Any) -> dict | None:
    """Run `prepared` by replay where it can (the handles of its live buffers, as `submit`
    returns them), or None: the caller runs it the ordinary way."""
    plan = _plan(prepared)
    if not plan.ok or backend._pending or any(map(_off, inputs)):
        return None
    nbytes = prepared.schedule.nbytes
    own = plan.owned
    if own is not None and next(iter(own.values())).gen != backend.gen:  # made by a device since lost
        plan.drop_temps(give_back=False)
        own = None
    if plan.scratch and plan.scratch[0].gen != backend.gen:
        plan.drop_scratch(give_back=False)
    backend._hold += 1  # buffers freed below are still bound by the commands to come
    try:
        many = getattr(alloc, "many", None)
        lean = own is not None and plan.outs is not None and many is not None
        if lean:
            live, bound, taken, _ = take_outputs(plan.outs, plan.sizes, plan.aliases, plan.had, inputs, many)
        else:
            live, bound, taken, _ = memory_steps(plan.rest, plan.had, inputs, alloc, free, nbytes,
                                                 backend.prefer)
        try:
            if lean:  # kept temporaries (the same while kept), the rest allocations: keyed by the latter
                if plan.live_order is None:
                    plan.live_order = sorted(live)
                keys = plan.keys  # (take_outputs gives a steady loop's call the live dict of two calls ago)
                known = keys.get(id(live))
                if known is not None and known[0] is live:
                    key = known[1]
                else:
                    key = _key(live, plan.live_order)
                    keys[id(live)] = (live, key)
                    if len(keys) > 2:
                        del keys[next(iter(keys))]
            else:
                if own is not None:  # kept temporaries: neither allocated nor freed
                    bound.update(own)
                if plan.order is None:
                    plan.order = sorted(bound)
                key = _key(bound, plan.order)
            rec = plan.recordings.get(key)
            gen = backend.gen
            if rec is not None and rec.epoch == backend.epoch:
                plan.recordings.move_to_end(key)
                try:
                    backend.flush(rec)
                except DeviceLostError:
                    if backend.gen == gen:
                        raise
                    return _lost(live, inputs, taken, free, nbytes)  # found by the replay's own call
                plan.hits += 1
                if own is None and plan.hits == OWN_AFTER:
                    plan.keep_temps(backend, alloc, free, nbytes)
                return live
            if lean:  # the kept temporaries are bound too (`bound` is `live` here: take_outputs)
                bound = {**bound, **own}
            backend._renew_if_lost()  # (a replay's own runtime call may report it: WebGPUBackend.submit)
            if backend.gen != gen:
                return _lost(live, inputs, taken, free, nbytes)
            epoch, submits = backend.epoch, backend.stats["submits"]
            backend._scratch = _scratch(backend, plan)
            try:
                run_kernels(backend, plan.runs, bound)
            finally:
                backend._scratch = None
            # the recording is what is pending now: only whole if nothing was submitted midway
            if not backend._after and not backend._doomed and backend.epoch == epoch \
                    and backend.stats["submits"] == submits:
                plan.recordings[key] = Recording(epoch, list(backend._pending))
                if len(plan.recordings) > MAX_RECORDINGS:
                    plan.recordings.popitem(last=False)
        except BaseException:
            backend._pending = []
            give_back(live, len(inputs), taken, free, nbytes)
            raise
    finally:
        backend._hold -= 1
    return live
