"""The backend interface every device implements (reference, wasm, webgpu).

Backends see only buffers (opaque handles, sized in bytes) and Kernels; they
never see primitives. `execute` may queue work: only `read` and `synchronize`
must wait for it. Compiled programs are cached by kernel key here, once for all.
"""
from __future__ import annotations

from typing import Any

from ..compiler.kernel import Kernel


class Backend:
    """Subclasses implement the six methods below."""

    platform: str = "?"
    #: True for software GPU adapters etc.: available by name, never the default.
    software: bool = False

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

    def execute(self, program: Any, out: Any, inputs: list[Any]) -> None:
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
        self.execute(self.program(kernel), out, inputs)
