"""What a backend's replay of a prepared schedule does besides its own recordings (wasm/replay.py,
webgpu/replay.py): the schedule's steps split into memory steps and kernel runs; the memory steps run alone, in
their order, before any kernel (kernels never allocate, so each buffer gets what the ordinary
interleaved run would give it, and the buffers' identities key the recordings); each allocation
first offered what that buffer had two runs ago, else one run ago (a training loop then binds
two sets of buffers in turn: a step's outputs cannot take the last step's, its inputs); the
kernels run the ordinary way when a run is recorded; and on failure the buffers made go back.
"""
from __future__ import annotations

import operator
from itertools import repeat
from typing import Any, Callable


def split_steps(steps: list) -> tuple[bool, list, list, set]:
    """A prepared schedule's steps as a replay uses them: (whether it can replay — no host steps
    (kind 3) —, its memory steps (kinds 0, 2, 4), its kernel runs (kind 1 with a program), its
    temporaries: the buffers it both allocates and frees, where each is allocated and freed once)."""
    memory = [s for s in steps if s[0] in (0, 2, 4)]
    runs = [s for s in steps if s[0] == 1 and s[1] is not None]
    made = [s[1] for s in memory if s[0] == 0]
    freed = [s[1] for s in memory if s[0] == 2]
    once = len(set(made)) == len(made) and len(set(freed)) == len(freed)
    return all(s[0] != 3 for s in steps), memory, runs, set(made) & set(freed) if once else set()


def lean_steps(memory: list) -> tuple[list, list, list] | None:
    """`take_outputs`' (outs, sizes, aliases) for memory steps without frees (only allocations and
    donations, as a replay's are once its temporaries are kept), else None."""
    if any(s[0] == 2 for s in memory):
        return None
    return ([s[1] for s in memory if s[0] == 0], [s[2] for s in memory if s[0] == 0],
            [(s[1], s[2]) for s in memory if s[0] == 4])


def memory_steps(memory: list, had: dict, inputs: list, alloc: Callable, free: Callable, nbytes: dict,
                 prefer: Callable) -> tuple[dict, dict, set, list]:
    """Run the memory steps `memory` (kinds 0 alloc, 2 free, 4 donated input, as in
    `Backend.prepare`): (live buffers, every buffer bound, buffers holding a donated input's
    memory, the handles allocated, in order). `prefer(candidates)` sets what the backend's
    next allocations take first (`()`: nothing); `had` (buffer -> its last two handles) is
    updated."""
    _spread(had)
    live: dict[int, Any] = dict(enumerate(inputs))
    bound = dict(live)  # every buffer a kernel binds, freed ones too
    taken: set[int] = set()
    made, allocated, wanted = [], [], []
    try:
        for step in memory:
            kind, b = step[0], step[1]
            if kind == 0:
                was = had.get(b, ())
                prefer(was)
                try:
                    live[b] = bound[b] = handle = alloc(step[2], step[3])
                finally:
                    prefer(())
                made.append(handle)
                allocated.append(b)
                wanted.append(was)
            elif kind == 4:
                live[b] = bound[b] = live[step[2]]
                taken.add(b)
            else:
                free(live.pop(b), nbytes[b])
    except BaseException:
        give_back(live, len(inputs), taken, free, nbytes)
        raise
    remember(had, allocated, wanted, made)
    return live, bound, taken, made


def take_outputs(outs: list, sizes: list, aliases: list, had: dict, inputs: list,
                 many: Callable) -> tuple[dict, dict, set, list]:
    """`memory_steps` for a schedule whose steps are only allocations (`outs`, of `sizes`
    bytes) and donations (`aliases`: (buffer, the input it takes)), as a steady replay's are
    once its temporaries are kept: one `many(sizes, older, old, what)` call (the device's
    `memory.Allocator.many`: each buffer prefers its handle of two runs ago, `older`, then of one
    run ago, `old`) instead of one allocation each. The same result, except that the bound dict
    IS the live dict: callers must change neither (they add to a copy). A call that gets the very
    outputs list of one of the last two calls (a steady loop's: `Allocator.many` took back
    `older`), with the same inputs and aliases, gets that call's dicts again (`_RUNS`). `had`
    keeps those two lists as they are (`_RECENT`): a steady call makes no pair per buffer."""
    older, old = _recent(had, outs)
    made = many(sizes, older, old, "a jitted program's outputs") if outs else []
    had[_RECENT] = (outs, old, made)
    runs = had.get(_RUNS)
    if runs is None:
        runs = had[_RUNS] = {}
    hit = runs.get(id(made))
    if hit is not None and hit[0] is made and hit[1] == inputs and hit[4] is aliases:  # as two calls ago
        return hit[2], hit[2], hit[3], made
    live: dict[int, Any] = dict(enumerate(inputs))
    live.update(zip(outs, made))
    taken = set()
    for b, src in aliases:
        live[b] = live[src]
        taken.add(b)
    runs[id(made)] = (made, inputs, live, taken, aliases)
    if len(runs) > 2:
        del runs[next(iter(runs))]
    return live, live, taken, made


_LAST = operator.itemgetter(-1)
#: `had`'s entry for `take_outputs`: (its buffers, their handles two runs ago, one run ago), the
#: lists in the buffers' order (None: none); `memory_steps` spreads it back into per-buffer pairs
_RECENT = "recent outputs"
#: `had`'s entry for `take_outputs`' last two results: id(outputs list) -> (that list, the inputs,
#: the live buffers, the donated ones, the aliases)
_RUNS = "recent runs"


def _recent(had: dict, outs: list) -> tuple[list, list]:
    """The handles `outs` had two runs ago and one run ago (None where none)."""
    r = had.get(_RECENT)
    if r is not None and r[0] is outs:
        return r[1], r[2]
    _spread(had)
    pairs = list(map(had.get, outs, repeat(())))
    return [p[0] if len(p) == 2 else None for p in pairs], [p[-1] if p else None for p in pairs]


def _spread(had: dict) -> None:
    """`had[_RECENT]` (take_outputs' lists) back into one pair per buffer."""
    r = had.pop(_RECENT, None)
    if r is not None:
        for b, older, old in zip(*r):
            had[b] = (old,) if older is None else (older, old)


def remember(had: dict, bufs: list, was: list, now: list) -> None:
    """`had[b]`: buffer b's handles the last two runs, from what it had (`was`) and got now:
    what its next allocation prefers. Once every buffer has had one (a steady loop), with no
    Python loop."""
    if all(was):
        had.update(zip(bufs, zip(map(_LAST, was), now)))
    else:
        for b, w, n in zip(bufs, was, now):
            had[b] = (w[-1], n) if w else (n,)


def run_kernels(backend: Any, runs: list, bound: dict) -> None:
    """The schedule's launches (its kind-1 steps), each error naming its kernel."""
    for step in runs:
        try:
            backend.execute(step[1], [bound[b] for b in step[2]], [bound[b] for b in step[3]])
        except Exception as e:
            e.add_note(f"while running kernel '{step[4]}' on the {backend.platform} device")
            raise


def give_back(live: dict, n_inputs: int, taken: set, free: Callable, nbytes: dict) -> None:
    """Free the buffers a failed run made (not its inputs, nor donated inputs' memory)."""
    for b, handle in live.items():
        if b >= n_inputs and b not in taken:
            free(handle, nbytes[b])
