"""The backend interface every device implements (reference, wasm, webgpu).

Backends see only buffers (opaque handles, sized in bytes), Kernels and Schedules;
they never see primitives. `capabilities` tells the scheduler what the code
generator supports. `prepare` compiles a schedule's kernels once (programs are
cached by kernel key); `submit` runs a prepared schedule in one call: a backend
may queue the work (only `read` and `synchronize` must wait for it), and may
perform all of a schedule's allocations first (see `compiler.memory`).
"""
from __future__ import annotations

from typing import Any

from ..compiler.kernel import DEFAULT_CAPS, Alloc, Capabilities, Free, Kernel, Run, Schedule


class Prepared:
    """A schedule with each Run's program compiled: what `submit` executes."""

    __slots__ = ("schedule", "steps")

    def __init__(self, schedule: Schedule, steps: list):
        self.schedule, self.steps = schedule, steps


class Backend:
    """Subclasses implement alloc/free/write/read/compile/execute."""

    platform: str = "?"
    #: True for software GPU adapters etc.: available by name, never the default.
    software: bool = False
    capabilities: Capabilities = DEFAULT_CAPS

    def __init__(self) -> None:
        self._programs: dict[str, Any] = {}

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

    def synchronize(self) -> None:
        pass

    def program(self, kernel: Kernel) -> Any:
        """Compile once per kernel text."""
        p = self._programs.get(kernel.key)
        if p is None:
            p = self._programs[kernel.key] = self.compile(kernel)
        return p

    def run(self, kernel: Kernel, out: Any, inputs: list[Any]) -> None:
        """Run a one-output kernel (tests and tools; programs run through `submit`)."""
        self.execute(self.program(kernel), [out], inputs)

    def prepare(self, schedule: Schedule) -> Prepared:
        steps = []
        for s in schedule.steps:
            if isinstance(s, Run):
                steps.append((1, self.program(s.kernel) if s.kernel.size else None, s.outs, s.inputs))
            elif isinstance(s, Alloc):
                steps.append((0, s.buf, s.nbytes))
            else:
                steps.append((2, s.buf))
        return Prepared(schedule, steps)

    def submit(self, prepared: Prepared, inputs: list[Any]) -> dict[int, Any]:
        """Run a prepared schedule on input handles; the handles of its buffers still live."""
        h: dict[int, Any] = dict(enumerate(inputs))
        try:
            for step in prepared.steps:
                kind = step[0]
                if kind == 0:
                    h[step[1]] = self.alloc(step[2])
                elif kind == 1:
                    if step[1] is not None:
                        self.execute(step[1], [h[b] for b in step[2]], [h[b] for b in step[3]])
                else:
                    self.free(h.pop(step[1]))
        except BaseException:
            for b, handle in h.items():
                if b >= len(inputs):
                    self.free(handle)
            raise
        return h
