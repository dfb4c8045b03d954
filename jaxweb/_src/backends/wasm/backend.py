"""The `wasm` device: kernels compiled to WebAssembly, run by a Runtime.

Buffers are offsets into the runtime's one linear memory (see allocator.py);
`compile` turns a Kernel into Wasm bytes (codegen.py) and instantiates them;
`execute` calls `run(0, rows, out, in...)`, or splits the rows over the runtime's
worker threads when the kernel is big enough to pay for the hand-off. Execution
is synchronous here, so `synchronize` has nothing to wait for. Programs are cached
by kernel key (Backend). Optional engine features are probed once: SIMD128 and
relaxed SIMD change the generated code, and a vectorized module the engine
rejects (too many locals, say) is rebuilt scalar.

f32 matmul and conv kernels take dedicated paths when SIMD is there (matmul.py,
conv.py): a staging kernel (packed B / zero-padded input) then a register-tiled
compute module, and a crop when the output was computed wider than it is. Other
kernels lose leading output axes of extent 1 first (`squeeze_leading`), so that
threads split the first real axis.
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


def squeeze_leading(kernel: Kernel) -> Kernel:
    """The same kernel without leading output axes of extent 1 (same memory layout).

    Threads split a kernel's first output axis, so a (1, C, H, W) kernel would
    otherwise always run on one thread."""
    shape = tuple(kernel.shape)
    k = 0
    while k < len(shape) - 1 and shape[k] == 1:
        k += 1
    if k == 0:
        return kernel
    from ...compiler import expr as E
    roots = [kernel.body] + ([kernel.epilogue] if kernel.epilogue is not None else [])
    mapping = {}
    for root in roots:
        for n in E.walk(root):
            if n.op == "idx" and n.arg[0][0] == "g":
                i = int(n.arg[0][1:])
                mapping[id(n)] = (E.const(0, n.dtype) if i < k else E.idx(f"g{i - k}", shape[i]))
    body = E.substitute(kernel.body, mapping)
    epi = E.substitute(kernel.epilogue, mapping) if kernel.epilogue is not None else None
    return Kernel(shape[k:], body, kernel.out_dtype, kernel.in_dtypes, kernel.reduce_shape, kernel.reduce_op,
                  epi, kernel.name)


PARALLEL_WORK = 1 << 20  # element-steps above which a kernel is split over worker threads (hand-off ~0.1 ms)
GEMM_PARALLEL_WORK = 1 << 22  # the same for matmul / conv (multiply-adds): they run ~4 per ns per thread


class Program:
    __slots__ = ("handle", "rows", "size", "work", "nbytes_code", "codegen_s", "compile_s", "mode", "fallback",
                 "pack", "mm", "crop", "tmp_bytes")

    def __init__(self, handle, rows, size, nbytes_code, codegen_s, compile_s, mode=None, work=0, fallback=None):
        self.handle, self.rows, self.size, self.mode, self.work = handle, rows, size, mode, work
        self.fallback = fallback
        self.pack = self.mm = self.crop = None  # matmul.py / conv.py: staging program, Spec, crop program
        self.tmp_bytes = 0
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
            im2col = conv.match_im2col(kernel)
            if im2col is not None:
                return self._compile_im2col(kernel, *im2col)
        if getattr(self.rt, "workers", 1) > 1:
            kernel = squeeze_leading(kernel)  # so that threads can split the first real axis
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

    def _build_and_load(self, build) -> tuple:
        """Generate a module with `build()`, load it, and account codegen/compile time."""
        t0 = time.perf_counter()
        wasm = build()
        t1 = time.perf_counter()
        handle = self.rt.load(wasm)
        t2 = time.perf_counter()
        self.stats["codegen_s"] += t1 - t0
        self.stats["compile_s"] += t2 - t1
        self.stats["kernels"] += 1
        return handle, wasm, t1 - t0, t2 - t1

    def _compile_special(self, kernel: Kernel, special, spec) -> Program:
        """matmul.py / conv.py: a staging kernel (packed B / padded input) + a compute module."""
        packed = special is conv or matmul.use_pack(spec)
        build = (lambda: special.build(spec, self.features, packed)) if special is matmul else \
            (lambda: special.build(spec, self.features))
        handle, wasm, t_gen, t_load = self._build_and_load(build)
        if special is matmul:
            rows = spec.B if spec.B > 1 else spec.M
            p = Program(handle, rows, kernel.size, len(wasm), t_gen, t_load, "matmul", kernel.size * spec.K)
            p.pack = self.program(matmul.pack_kernel(spec)) if packed else None
            if spec.N8 != spec.N:
                rows = spec.B * spec.M
                p.crop, p.tmp_bytes = self.program(matmul.crop_kernel(rows, spec.N, spec.N8)), rows * spec.N8 * 4
        else:
            p = Program(handle, spec.M, kernel.size, len(wasm), t_gen, t_load, "conv", spec.work)
            p.pack = self.program(conv.pad_kernel(spec))
            nb, co, ho, wo = spec.shape
            if spec.wo8 != wo:
                rows = nb * co * ho
                p.crop, p.tmp_bytes = self.program(matmul.crop_kernel(rows, wo, spec.wo8)), rows * spec.wo8 * 4
        p.mm = spec
        return p

    def _compile_im2col(self, kernel: Kernel, spec, pack: Kernel) -> Program:
        """A conv the stride-1 path does not take: im2col into packed B, then the packed GEMM."""
        handle, wasm, t_gen, t_load = self._build_and_load(lambda: matmul.build(spec, self.features, True))
        rows = spec.B if spec.B > 1 else spec.M
        p = Program(handle, rows, kernel.size, len(wasm), t_gen, t_load, "conv_gemm", kernel.size * spec.K)
        p.pack, p.mm = self.program(pack), spec
        if spec.N8 != spec.N:
            rows = spec.B * spec.M
            p.crop, p.tmp_bytes = self.program(matmul.crop_kernel(rows, spec.N, spec.N8)), rows * spec.N8 * 4
        return p

    def _execute_special(self, program: Program, out: int, inputs: list[Any]) -> None:
        spec, pack = program.mm, program.pack
        if program.crop is not None:  # computed wider than the output: a temporary, then crop
            tmp = self.allocator.alloc(program.tmp_bytes)
            try:
                self._run_special(program, spec, pack, tmp, inputs)
                self.execute(program.crop, out, [tmp])
            finally:
                self.allocator.free(tmp)
        else:
            self._run_special(program, spec, pack, out, inputs)

    def _run_special(self, program: Program, spec, pack, out: int, inputs: list[Any]) -> None:
        if pack is None:  # matmul reading B in place
            self._split(program, (out, inputs[spec.a_slot], inputs[spec.b_slot]))
            return
        staged = self.allocator.alloc(pack.size * 4)
        try:
            if program.mode == "matmul":
                self.execute(pack, staged, [inputs[spec.b_slot]])
                args = (out, inputs[spec.a_slot], staged)
            elif program.mode == "conv":
                self.execute(pack, staged, list(inputs))
                args = (out, inputs[spec.w_slot], staged)
            else:  # conv_gemm: im2col of all inputs, weights as A
                self.execute(pack, staged, list(inputs))
                args = (out, inputs[spec.a_slot], staged)
            self._split(program, args)
        finally:
            self.allocator.free(staged)

    def _split(self, program: Program, args: tuple) -> None:
        """run over the program's rows, split over the worker threads when it pays."""
        if program.work >= GEMM_PARALLEL_WORK and program.rows > 1 and getattr(self.rt, "workers", 1) > 1:
            self.rt.call_split(program.handle, program.rows, args, align=1)
        else:
            self.rt.call(program.handle, (0, program.rows, *args))

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
