"""The `wasm` device: kernels compiled to WebAssembly, run by a Runtime.

Buffers are offsets into the runtime's one linear memory (see allocator.py);
`compile` turns a Kernel into Wasm bytes (codegen.py) and instantiates them;
`execute` calls `run(0, rows, out, in...)`, or splits the rows over the runtime's
worker threads when the kernel is big enough to pay for the hand-off. Execution
is synchronous here, so `synchronize` has nothing to wait for. Programs are cached
by kernel key (Backend). Optional engine features are probed once: SIMD128 and
relaxed SIMD change the generated code, and a vectorized module the engine
rejects (too many locals, say) is rebuilt scalar.
"""
from __future__ import annotations

import time
from typing import Any

from ..base import Backend
from ...compiler.kernel import Kernel
from ...compiler.shapetracker import prod
from .allocator import Allocator
from . import codegen, conv, matmul
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


PARALLEL_WORK = 1 << 20  # element-steps above which a kernel is split over worker threads (hand-off ~0.1 ms)


class Program:
    __slots__ = ("handle", "rows", "size", "work", "nbytes_code", "codegen_s", "compile_s", "mode", "fallback",
                 "pack", "mm")

    def __init__(self, handle, rows, size, nbytes_code, codegen_s, compile_s, mode=None, work=0, fallback=None):
        self.handle, self.rows, self.size, self.mode, self.work = handle, rows, size, mode, work
        self.fallback = fallback
        self.pack = self.mm = None  # packed matmul (matmul.py): B-packing program, Spec
        self.nbytes_code, self.codegen_s, self.compile_s = nbytes_code, codegen_s, compile_s


class WasmBackend(Backend):
    platform = "wasm"
    device_kind = "wasm"

    def __init__(self, runtime: Runtime | None = None):
        super().__init__()
        self.rt = runtime if runtime is not None else default_runtime()
        self.allocator = Allocator(self.rt)
        self.stats = {"codegen_s": 0.0, "compile_s": 0.0, "kernels": 0}
        self.features = probe_features(self.rt)
        if getattr(self.rt, "workers", 1) > 1:
            self.features |= {"threads"}

    def alloc(self, nbytes: int) -> int:
        return self.allocator.alloc(nbytes)

    def free(self, handle: int) -> None:
        self.allocator.free(handle)

    def write(self, handle: int, data) -> None:
        self.rt.write(handle, bytes(data))

    def read(self, handle: int, nbytes: int) -> memoryview:
        return memoryview(self.rt.read(handle, nbytes))

    def compile(self, kernel: Kernel) -> Program:
        if "simd" in self.features:
            for special in (matmul, conv):
                spec = special.match(kernel)
                if spec is not None:
                    return self._compile_special(kernel, special, spec)
        t0 = time.perf_counter()
        try:
            wasm, mode = codegen.build_info(kernel, self.features)
        except NotImplementedError:  # e.g. complex dtypes: interpret on this memory instead
            return Program(None, 0, kernel.size, 0, 0.0, 0.0, "interpreted", 0, fallback=kernel)
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
        self.stats["codegen_s"] += t1 - t0
        self.stats["compile_s"] += t2 - t1
        self.stats["kernels"] += 1
        rows = kernel.shape[0] if kernel.shape else 1
        work = kernel.size * (prod(kernel.reduce_shape) if kernel.reduce_op else 1)
        return Program(handle, rows, kernel.size, len(wasm), t1 - t0, t2 - t1, mode, work)

    def _compile_special(self, kernel: Kernel, special, spec) -> Program:
        """matmul.py / conv.py: a staging kernel (packed B / padded input) + a compute module."""
        t0 = time.perf_counter()
        wasm = special.build(spec, self.features)
        t1 = time.perf_counter()
        handle = self.rt.load(wasm)
        t2 = time.perf_counter()
        self.stats["codegen_s"] += t1 - t0
        self.stats["compile_s"] += t2 - t1
        self.stats["kernels"] += 1
        if special is matmul:
            p = Program(handle, spec.M, kernel.size, len(wasm), t1 - t0, t2 - t1, "matmul", kernel.size * spec.K)
            p.pack = self.program(matmul.pack_kernel(spec))
        else:
            p = Program(handle, spec.M, kernel.size, len(wasm), t1 - t0, t2 - t1, "conv", spec.work)
            p.pack = self.program(conv.pad_kernel(spec))
        p.mm = spec
        return p

    def _execute_special(self, program: Program, out: int, inputs: list[Any]) -> None:
        spec, pack = program.mm, program.pack
        staged = self.allocator.alloc(pack.size * 4)
        try:
            if program.mode == "matmul":
                self.execute(pack, staged, [inputs[spec.b_slot]])
                args = (out, inputs[spec.a_slot], staged)
            else:
                self.execute(pack, staged, list(inputs))
                args = (out, inputs[spec.w_slot], staged)
            if program.work >= PARALLEL_WORK and getattr(self.rt, "workers", 1) > 1:
                self.rt.call_split(program.handle, program.rows, args, align=1)
            else:
                self.rt.call(program.handle, (0, program.rows, *args))
        finally:
            self.allocator.free(staged)

    def execute(self, program: Program, out: int, inputs: list[Any]) -> None:
        if program.size == 0:
            return
        if program.mm is not None:
            self._execute_special(program, out, inputs)
            return
        if program.fallback is not None:
            self._interpret(program.fallback, out, inputs)
            return
        if program.work >= PARALLEL_WORK and program.rows > 1 and getattr(self.rt, "workers", 1) > 1:
            self.rt.call_split(program.handle, program.rows, (out, *inputs), align=4)
        else:
            self.rt.call(program.handle, (0, program.rows, out, *inputs))

    def _interpret(self, kernel: Kernel, out: int, inputs: list[Any]) -> None:
        """Kernels codegen does not cover (complex dtypes) run in the reference
        interpreter on copies of this memory's buffers (CPython with numpy only)."""
        import numpy as np
        from ..reference import ReferenceBackend
        ref = ReferenceBackend()
        sizes = [1 << self.allocator.sizes[h] for h in inputs]
        bufs = [np.frombuffer(self.rt.read(h, n), dtype=np.uint8).copy() for h, n in zip(inputs, sizes)]
        nbytes = kernel.size * kernel.out_dtype.itemsize
        dst = ref.alloc(nbytes)
        ref.execute(kernel, dst, bufs)
        self.rt.write(out, bytes(ref.read(dst, nbytes)))

    def synchronize(self) -> None:
        pass
