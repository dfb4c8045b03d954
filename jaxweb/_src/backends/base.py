"""The backend interface every device implements (reference, wasm, webgpu).

Backends see only buffers (opaque handles, sized in bytes), Kernels and Schedules;
they never see primitives. `capabilities` tells the scheduler what the code
generator supports. `prepare` compiles a schedule's kernels once (programs are
cached by kernel key); `submit` runs a prepared schedule in one call: a backend
may queue the work (only `read` and `synchronize` must wait for it), and may
perform all of a schedule's allocations first (see `compiler.memory`).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .. import profiler
from ..compiler.kernel import DEFAULT_CAPS, Alloc, Call, Capabilities, Kernel, Run, Schedule
from .control import PreparedCall, run_call


class Prepared:
    """A schedule with each Run's program compiled: what `submit` executes. `cache`: the
    backend's own state for it (webgpu: its recorded commands, replay.py)."""

    __slots__ = ("schedule", "steps", "cache")

    def __init__(self, schedule: Schedule, steps: list):
        self.schedule, self.steps, self.cache = schedule, steps, None


class Backend:
    """Subclasses implement alloc/free/write/read/compile/execute."""

    platform: str = "?"
    #: True for software GPU adapters etc.: available by name, never the default.
    software: bool = False
    capabilities: Capabilities = DEFAULT_CAPS

    #: compiled programs kept by kernel text (least recently used ones go first; a program
    #: also lives while a prepared schedule holds it)
    max_programs = 2048

    def __init__(self) -> None:
        self._programs: OrderedDict[str, Any] = OrderedDict()

    def alloc(self, nbytes: int) -> Any:
        raise NotImplementedError

    def free(self, handle: Any) -> None:
        raise NotImplementedError

    def write(self, handle: Any, data: bytes | memoryview) -> None:
        raise NotImplementedError

    def read(self, handle: Any, nbytes: int) -> bytes | memoryview:
        """The buffer's first `nbytes` bytes, after all queued work finished."""
        raise NotImplementedError

    def compile(self, kernel: Kernel) -> Any:
        raise NotImplementedError

    def execute(self, program: Any, outs: list[Any], inputs: list[Any]) -> None:
        raise NotImplementedError

    def traced_execute(self, trace: Any, program: Any, outs: list[Any], inputs: list[Any], name: str) -> None:
        """`execute` while a profiler trace runs: this default times it by wall-clock, which
        is the kernel's time on a backend that runs kernels synchronously (cpu, wasm)."""
        t = trace.now()
        self.execute(program, outs, inputs)
        trace.kernel(self.trace_row(), name, t, trace.now() - t)

    def trace_row(self) -> str:
        """The profiler's timeline row for this backend's kernels."""
        return getattr(self, "device_kind", "") or self.platform

    def synchronize(self) -> None:
        pass

    def copy(self, dst: Any, src: Any, nbytes: int) -> None:
        """Copy `nbytes` from buffer `src` to buffer `dst` (control flow's carries and slices)."""
        self.write(dst, self.read(src, nbytes))

    def offset(self, handle: Any, nbytes: int) -> Any:
        """A handle to the same memory from byte `nbytes` on (a scan step's slice)."""
        raise NotImplementedError

    def program(self, kernel: Kernel) -> Any:
        """Compile once per kernel text (errors name the kernel and what it fused)."""
        cache = self._programs
        p = cache.get(kernel.key)
        if p is not None:
            cache.move_to_end(kernel.key)
            return p
        try:
            p = self.compile(kernel)
        except Exception as e:
            e.add_note(f"while compiling kernel '{kernel.name}' for the {self.platform} device")
            raise
        cache[kernel.key] = p
        if len(cache) > self.max_programs:
            cache.popitem(last=False)
        return p

    def run(self, kernel: Kernel, out: Any, inputs: list[Any]) -> None:
        """Run a one-output kernel (tests and tools; programs run through `submit`)."""
        self.execute(self.program(kernel), [out], inputs)

    def prepare(self, schedule: Schedule) -> Prepared:
        steps = []
        for s in schedule.steps:
            if isinstance(s, Run) and isinstance(s.kernel, Call):
                pc = PreparedCall(s.kernel, [self.prepare(sub) for sub in s.kernel.schedules])
                steps.append((3, pc, s.outs, s.inputs))
            elif isinstance(s, Run):
                steps.append((1, self.program(s.kernel) if s.kernel.size else None, s.outs, s.inputs,
                              s.kernel.name))
            elif isinstance(s, Alloc) and s.reuse is not None:
                steps.append((4, s.buf, s.reuse))
            elif isinstance(s, Alloc):
                steps.append((0, s.buf, s.nbytes, s.what))
            else:
                steps.append((2, s.buf))
        return Prepared(schedule, steps)

    def submit(self, prepared: Prepared, inputs: list[Any], alloc: Any = None, free: Any = None
               ) -> dict[int, Any]:
        """Run a prepared schedule on input handles; the handles of its buffers still live.
        `alloc(nbytes, what)` and `free(handle, nbytes)` default to the backend's own."""
        alloc = alloc or (lambda nbytes, what: self.alloc(nbytes))
        free = free or (lambda handle, nbytes: self.free(handle))
        nbytes = prepared.schedule.nbytes
        h: dict[int, Any] = dict(enumerate(inputs))
        taken: set[int] = set()  # buffers holding a donated input's memory
        trace = profiler.active()
        try:
            for step in prepared.steps:
                kind = step[0]
                if kind == 0:
                    h[step[1]] = alloc(step[2], step[3])
                elif kind == 1:
                    if step[1] is not None:
                        outs, ins = [h[b] for b in step[2]], [h[b] for b in step[3]]
                        if trace is None:
                            self.execute(step[1], outs, ins)
                        else:
                            self.traced_execute(trace, step[1], outs, ins, step[4])
                elif kind == 3:
                    h.update(zip(step[2], run_call(self, step[1], [h[b] for b in step[3]], alloc, free)))
                elif kind == 4:  # a donated input's memory
                    h[step[1]] = h[step[2]]
                    taken.add(step[1])
                else:
                    free(h.pop(step[1]), nbytes[step[1]])
        except BaseException as e:
            if step[0] == 1 and isinstance(e, Exception):  # e.g. a thread pool that stalled
                e.add_note(f"while running kernel '{step[4]}' on the {self.platform} device")
            for b, handle in h.items():
                if b >= len(inputs) and b not in taken:
                    free(handle, nbytes[b])
            raise
        return h
