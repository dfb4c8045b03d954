"""The `wasm` device: kernels compiled to WebAssembly, run by a Runtime.

Buffers are offsets into the runtime's one linear memory (see allocator.py);
`compile` turns a Kernel into Wasm bytes (codegen.py) and instantiates them;
`execute` calls `run(0, rows, out, in...)`, or splits the rows over the runtime's
worker threads when the kernel is big enough to pay for the hand-off. Execution
is synchronous here, so `synchronize` has nothing to wait for. Programs are cached
by kernel key (Backend). Optional engine features are probed once: SIMD128 and
relaxed SIMD change the generated code, and a vectorized module the engine
rejects (too many locals, say) is rebuilt scalar.

With SIMD the backend declares GEMM and direct-conv routines (`capabilities.gemm`):
the scheduler then stages matmul and conv operands with ordinary kernels and calls
the register-tiled compute modules of matmul.py / conv.py as `Routine` launches.
Other kernels lose leading output axes of extent 1 first (`squeeze_leading`), so
that threads split the first real axis.

A jitted call that matches an earlier one runs by replay (replay.py): its launches,
prebuilt by the runtime once, in one call (one JS call in Pyodide).
"""
from __future__ import annotations

import time
import weakref
from typing import Any

from ... import profiler
from ..base import Backend
from ...compiler.gemm import GemmCaps
from ...compiler.kernel import Capabilities, Kernel, Routine
from ...compiler.linalg_routines import LinalgCaps
from ...compiler.regrid import squeeze_leading, widen_leading
from ...compiler.shapetracker import prod
from .allocator import Allocator
from . import codegen, conv, linalg, matmul, replay
from .runtime import Runtime, default_runtime


def probe_features(rt: Runtime) -> frozenset:
    """Which optional Wasm features the engine validates: "simd", "relaxed_simd"."""
    from .assembler import Func, Module
    feats = set()
    for name, op, nargs in (("simd", "f32x4.add", 2), ("relaxed_simd", "f32x4.relaxed_madd", 3)):
        f = Func(["i32"])
        for _ in range(nargs):
            f.get(0).emit("i32x4.splat")
        f.emit(op).emit("drop")
        m = Module()
        m.add(f, export="run")
        if rt.validate(m.encode()):
            feats.add(name)
    return frozenset(feats)


#: the factorizations' own modules (linalg.py), and the largest matrices they are used for
LINALG_ROUTINES = frozenset(("cholesky_f32", "lu_f32", "trsm_f32"))
LINALG = LinalgCaps(cholesky=4096, lu=4096, triangular_solve=4096)

PARALLEL_WORK = 1 << 20  # element-steps above which a kernel is split over worker threads (hand-off ~0.1 ms)
GEMM_PARALLEL_WORK = 1 << 22  # the same for matmul / conv (multiply-adds): they run ~4 per ns per thread
LINALG_PARALLEL_WORK = 1 << 20  # and for a batch of factorizations (multiply-adds, ~1 per ns on small matrices)


class Program:
    """A compiled kernel or routine: its module handle, and how to call it. The module is
    unloaded (`Runtime.unload`) when the last reference to the Program goes: the backend's
    bounded cache and the prepared schedules that run it hold those."""

    __slots__ = ("handle", "rows", "size", "work", "nbytes_code", "codegen_s", "compile_s", "mode", "base",
                 "__weakref__")

    def __init__(self, handle, rows, size, nbytes_code, codegen_s, compile_s, mode=None, work=0, runtime=None):
        self.handle, self.rows, self.size, self.mode, self.work = handle, rows, size, mode, work
        self.nbytes_code, self.codegen_s, self.compile_s = nbytes_code, codegen_s, compile_s
        self.base = None
        unload = getattr(runtime, "unload", None)
        if handle is not None and unload is not None:
            weakref.finalize(self, unload, handle)

    def sized(self, kernel: Kernel) -> "Program":
        """This (widened) module run over `kernel`'s real extent; it keeps the module alive."""
        p = Program(self.handle, kernel.shape[0], kernel.size, self.nbytes_code, self.codegen_s,
                    self.compile_s, self.mode, self.work * kernel.shape[0] // max(self.rows, 1))
        p.base = self
        return p


class WasmBackend(Backend):
    platform = "wasm"
    device_kind = "wasm"

    def __init__(self, runtime: Runtime | None = None):
        super().__init__()
        self.rt = runtime if runtime is not None else default_runtime()
        self.allocator = Allocator(self.rt)
        self.stats = {"codegen_s": 0.0, "compile_s": 0.0, "kernels": 0, "replays": 0}
        self.recording: list | None = None  # launches `execute` also notes while replay.py records a run
        self._depth = 0  # submits running (> 1: a control-flow step's sub-schedule)
        self.kept_bytes = 0  # temporaries jitted programs keep for their replays (replay.py)
        self.features = probe_features(self.rt)
        if getattr(self.rt, "shared", False):
            self.features |= {"shared_memory"}  # modules import the memory as shared
        # thin products too (an MLP's 10-class layer: N or K = 10): padded to 8-column
        # strips they still beat the generic reduction 1.5-3x in V8, once big enough
        gemm = GemmCaps(nr=8, conv=True, thin_dim=4, thin_work=1 << 17) if "simd" in self.features else None
        # a softmax's exp computed once (its row sum's kernel and the division's both read it):
        # the shared values' polynomials cost more than their memory round trip (schedule.py)
        self.capabilities = Capabilities(gemm=gemm, linalg=LINALG if "simd" in self.features else None,
                                         share_transcendentals=True)

    def alloc(self, nbytes: int) -> int:
        return self.allocator.alloc(nbytes)

    def prefer(self, addrs: tuple) -> None:
        """Allocations take these addresses first where free (replay.py's memory plan)."""
        self.allocator.prefer = addrs

    def alloc_many(self, sizes: list[int], prefer: list[tuple]) -> list[int]:
        """Buffers of `sizes`, each taking first an address of its `prefer` where free (a
        replayed call's outputs, replay.py: one step, through `memory.Allocator.many`)."""
        return self.allocator.alloc_many(sizes, prefer)

    def free(self, handle: int) -> None:
        self.allocator.free(handle)

    def memory_stats(self) -> dict[str, int]:
        return self.allocator.stats()

    def write(self, handle: int, data) -> None:
        self.rt.write(handle, bytes(data))

    def write_soon(self, handle: int, data) -> None:
        """`write` of a few bytes (a jitted call's scalar argument) issued with the next
        submit where the runtime can (Pyodide: inside its replay's one JS call)."""
        getattr(self.rt, "write_soon", self.rt.write)(handle, bytes(data))

    def read(self, handle: int, nbytes: int) -> memoryview:
        return memoryview(self.rt.read(handle, nbytes))

    def offset(self, handle: int, nbytes: int) -> int:
        return handle + nbytes

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        self.rt.copy(dst, src, nbytes)

    def compile(self, kernel: Kernel | Routine) -> Program:
        if isinstance(kernel, Routine):
            return self._compile_routine(kernel)
        wide = widen_leading(kernel)
        if wide is not kernel:  # the widened module (cached under its own key), run at this extent;
            return self.program(wide).sized(kernel)  # this kernel's key then finds it without widening
        if getattr(self.rt, "workers", 1) > 1:
            kernel = squeeze_leading(kernel)  # so that threads can split the first real axis
        t0 = time.perf_counter()
        wasm, mode = codegen.build_info(kernel, self.features)
        t1 = time.perf_counter()
        try:
            handle = self.rt.load(wasm)
        except Exception:
            if mode is None:
                raise
            # a vectorized body too big for the engine (locals, size): fall back to scalar
            wasm, mode = codegen.build_info(kernel, self.features - {"simd", "relaxed_simd"})
            handle = self.rt.load(wasm)
        t2 = time.perf_counter()
        self._account(t1 - t0, t2 - t1)
        self._name(handle, kernel.name)
        rows = kernel.shape[0] if kernel.shape else 1
        work = kernel.size * (prod(kernel.reduce_shape) if kernel.reduce_op else 1)
        return Program(handle, rows, kernel.size, len(wasm), t1 - t0, t2 - t1, mode, work, runtime=self.rt)

    def _account(self, codegen_s: float, compile_s: float) -> None:
        self.stats["codegen_s"] += codegen_s
        self.stats["compile_s"] += compile_s
        self.stats["kernels"] += 1

    def _name(self, handle: int, name: str) -> None:
        """Tell a batching runtime which kernel a module runs (its error notes name it)."""
        names = getattr(self.rt, "names", None)
        if names is not None:
            names[handle] = name

    def _compile_routine(self, r: Routine) -> Program:
        """matmul.py / conv.py compute modules: run(start, end, out, A | W, B' | Xpad)."""
        spec = r.spec
        t0 = time.perf_counter()
        if r.routine == "gemm_f32":
            wasm = matmul.build(spec, self.features)
            rows, work = (spec.B if spec.B > 1 else spec.M), spec.B * spec.M * spec.N * spec.K
        elif r.routine == "conv_f32":
            wasm = conv.build(spec, self.features)
            rows, work = spec.M, spec.work
        elif r.routine in LINALG_ROUTINES:
            wasm = linalg.build(r.routine, spec, self.features)
            rows, work = spec.batch, spec.flops // 2  # threads split the batch
        else:
            raise NotImplementedError(f"wasm backend: no routine {r.routine!r}")
        t1 = time.perf_counter()
        handle = self.rt.load(wasm)
        t2 = time.perf_counter()
        self._account(t1 - t0, t2 - t1)
        self._name(handle, r.name)
        return Program(handle, rows, r.size, len(wasm), t1 - t0, t2 - t1, r.routine, work, runtime=self.rt)

    def execute(self, program: Program, outs: list[int], inputs: list[Any]) -> None:
        """run(0, rows, *outs, *inputs), split over the worker threads when the work pays
        for the hand-off (`align`: chunk boundaries; None: one call)."""
        if program.size == 0:
            return
        if program.mode in ("gemm_f32", "conv_f32"):
            split, align = program.work >= GEMM_PARALLEL_WORK, 1
        elif program.mode in LINALG_ROUTINES:
            split, align = program.work >= LINALG_PARALLEL_WORK, 1
        else:
            split, align = program.work >= PARALLEL_WORK, 4
        if not (split and program.rows > 1 and getattr(self.rt, "workers", 1) > 1):
            align = None
        args = (*outs, *inputs)
        if self.recording is not None:
            self.recording.append((program.handle, program.rows, args, align))
        if align is None:
            self.rt.call(program.handle, (0, program.rows, *args))
        else:
            self.rt.call_split(program.handle, program.rows, args, align=align)

    def submit(self, prepared: Any, inputs: list, alloc: Any = None, free: Any = None) -> dict:
        """By replay (replay.py) where it can; else the schedule's launches go to the runtime
        as one batch where it batches (Pyodide). A profiler trace times launches one by one.
        A control-flow step's sub-schedules (submitted from within, per iteration) replay
        only where the runtime does not batch: in Pyodide the whole loop is one batch."""
        traced = profiler.active() is not None
        batch = getattr(self.rt, "batch", None)
        self._depth += 1
        try:
            if batch is None or traced:
                return self._submit(prepared, inputs, alloc, free, traced)
            with batch():
                return self._submit(prepared, inputs, alloc, free, self._depth > 1)
        finally:
            self._depth -= 1

    def _submit(self, prepared: Any, inputs: list, alloc: Any, free: Any, no_replay: bool) -> dict:
        if not no_replay:
            got = replay.submit(self, prepared, inputs, alloc or (lambda nbytes, what: self.alloc(nbytes)),
                                free or (lambda handle, nbytes: self.free(handle)))
            if got is not None:
                return got
        return super().submit(prepared, inputs, alloc, free)

    def synchronize(self) -> None:
        pass
