"""The `webgpu` device: kernels compiled to WGSL (codegen.py, matmul.py), run by a runtime.

Execution is deferred: `execute` and `copy` append commands to a pending list and
`submit` (a whole schedule: a jitted call or an eager flush) ends with one
`flush`, which records every command into one command encoder and one
queue.submit. `read` and `write` flush first (queue writes are ordered after
earlier submits, so a write never overtakes a dispatch that read the old bytes).

Buffers come from a pool of size classes (four per power of two, whole buffers):
a freed buffer goes back to its class and the next allocation of that class reuses
it, which also keeps bind groups (cached by pipeline and buffers) hot. The pool holds
POOL_BYTES at most (HARDWARE_POOL times that on a GPU), dropping the least recently freed buffers to make room: a new
buffer is expensive (Dawn clears it on first use: ~6 ms for 256 MB on an H200). A handle may
be a view of another buffer from a byte offset (a scan step's slice): kernels get a
copy of it (inputs) or write a temporary that is copied into place (outputs).

Programs (pipelines) are cached by WGSL text, so kernels that generate the same
code share one pipeline. A kernel is compiled for its own extents the first time; when
it comes back at another leading extent (of at least 8, below the same power of two) it
runs on the pipeline of its widened kernel (compiler/regrid.py), whose shader reads the
real extent from a small uniform buffer (`dims`, one per extent, cached): a slicing loop
`x[:n] * 2` compiles two pipelines per power of two, not one per n, while a training
loop's fixed shapes keep their static shaders (sized bindings on software adapters).
Every GPU error becomes a `WGSLError` carrying the WGSL and naming the kernel.

A prepared schedule run again on the buffers of an earlier run (a training loop's jitted step)
replays that run's encoded commands: one runtime call, no Python work per dispatch (replay.py).
"""
from __future__ import annotations

import array
import dataclasses
import os
from collections import OrderedDict
from typing import Any

from ... import profiler
from ...compiler.gemm import GemmCaps
from ...compiler.kernel import Capabilities, Kernel, Routine
from ...compiler.regrid import widen_leading
from ...errors import ResourceExhaustedError
from ..gpu.device import GPUBackend, Handle, Pool, size_class
from . import codegen, matmul, replay, tuner
from .runtime import DeviceLostError, WGSLError, default_runtime
from .wgsl import check_dtype


POOL_BYTES = 256 << 20  # free buffers kept for reuse at most (software adapters: the CPU's memory)
HARDWARE_POOL = 16  # times as many on a GPU (4 GB): what a program frees is kept for its next call. At 4x, a
# conv's 231 MB im2col plus its output, or a batch-256 MiniLM's ~200 MB intermediates, overflowed the
# pool, so every call made new buffers: MiniLM 256x128 on the H200 took 472 ms per call, 52 ms at 16x
MAX_GROUPS_SOFTWARE = 1024  # per-element kernels' workgroups at most on CPU adapters
TREE_MAX_SOFTWARE = 2 * codegen.WG  # reductions into more outputs loop per invocation on CPU adapters


class Program:
    """A compiled kernel: its pipeline on the device of generation `gen` (a Program outlives
    a lost device in caches and prepared schedules; `execute` remakes its pipeline then).
    `dims`: the uniform values a dynamic shader runs with (None for a static one).
    `unsized`: a sized shader's runtime-sized twin, for buffers smaller than it declares
    (made on first need from `kernel`).
    `in_place`: an elementwise kernel's shader, whose invocations read an element before they write
    it (codegen): an output may be the buffer of an input the memory plan lets it write over (a
    donated input read only at the element written, compiler/memory.py), the input then read
    through the output's binding (`codegen.tie`; `tied`: those variants by ties) instead of from a
    copy, which would also end the compute pass."""
    __slots__ = ("pipeline", "shader", "name", "gen", "dims", "kernel", "unsized", "in_place", "tied")

    def __init__(self, pipeline: Any, shader: codegen.Shader, name: str, gen: int, dims: tuple | None = None,
                 kernel: Kernel | None = None):
        self.pipeline, self.shader, self.name, self.gen, self.dims = pipeline, shader, name, gen, dims
        self.kernel, self.unsized, self.in_place, self.tied = kernel, None, False, None


class Soon:
    """A pipeline started but not awaited (`WebGPUBackend.prepare`): `rt.pipeline_soon`'s promise,
    the shader and the kernel it is for (named if the shader is rejected)."""
    __slots__ = ("started", "code", "kernel")

    def __init__(self, started: Any, code: str, kernel: Kernel | Routine):
        self.started, self.code, self.kernel = started, code, kernel


class CopyProgram:
    """A kernel that only copies a contiguous slice (`codegen.copy_of`), run as a buffer copy:
    no shader, and no new pipeline when the slice moves (a training loop's batch sliced at
    a new offset every step compiled a shader per step). `fallback`: the kernel's shader,
    built if a call's buffers are misaligned for a copy or alias each other."""
    __slots__ = ("kernel", "src_off", "nbytes", "fallback", "name")

    def __init__(self, kernel: Kernel, src_off: int, nbytes: int):
        self.kernel, self.src_off, self.nbytes, self.fallback, self.name = kernel, src_off, nbytes, None, kernel.name


class WebGPUBackend(GPUBackend):
    platform = "webgpu"
    device_name = "WebGPU device"
    dtype_check = staticmethod(check_dtype)
    max_dims = 512  # `dims` uniform buffers kept (one per extent a dynamic shader ran at)
    max_seen = 4096  # widened kernels whose first leading extent is remembered
    tie_in_place = True  # in-place kernels read their input through their output's binding (False: a copy)

    def __init__(self, runtime: Any = None, adapter: str | None = None):
        super().__init__()
        self.adapter = adapter
        self.rt = runtime if runtime is not None else default_runtime(adapter)
        self.gen = 0          # which device made the live buffers: +1 after each loss
        self.lost_reason = ""  # why the last device was lost
        info = self.rt.info
        self.software = bool(info["software"])
        self.device_kind = f"webgpu ({info['vendor'] or info['description'] or 'adapter'})"
        lim = info["limits"]
        self.max_buffer = int(lim.get("maxBufferSize", 256 << 20))
        self.max_groups = MAX_GROUPS_SOFTWARE if self.software else 1 << 14
        self.tree_max = TREE_MAX_SOFTWARE if self.software else None
        self.wide_trees = not self.software  # reductions into few outputs: 256 invocations each (codegen)
        self.tuned: dict = {}  # the tuner's timings (seconds per candidate tiling)
        self.tuned_splits: dict = {}  # ... and per K split of a few-tiles product
        # WGSL subgroup operations: the directive enabling them, None without (wgpu-py calls the
        # feature 'subgroup'); JAXWEB_WEBGPU_SUBGROUPS=0 turns them off
        has = bool({"subgroups", "subgroup"} & set(info["features"]))
        self.subgroups = (getattr(self.rt, "SUBGROUPS", "enable subgroups;")
                          if has and os.environ.get("JAXWEB_WEBGPU_SUBGROUPS", "1") != "0" else None)
        self._caps: Capabilities | None = None
        self._want: int | None = None
        self.planner: tuner.Planner | None = None
        self.plan_mode = "0"
        if self.software:
            self.set_tiling(matmul.QUAD if self.subgroups is not None else matmul.SOFTWARE)
        elif int(lim.get("maxComputeInvocationsPerWorkgroup", 256)) < 256:
            self.set_tiling(matmul.SOFTWARE)  # else tuned before the first schedule
        self.pool = Pool()
        self._classes: dict[tuple, list] = {}  # alloc_many's sizes -> their size classes
        self._pipelines: dict[str, Any] = {}
        self._soon: list | None = None  # pipelines started while `prepare` runs (Soon), else None
        self._names: dict[int, str] = {}  # id(pipeline) -> the kernel it was first made for
        self._groups: OrderedDict[tuple, Any] = OrderedDict()
        self._dims: OrderedDict[tuple, Any] = OrderedDict()  # dims values -> uniform buffer
        self._seen: OrderedDict[str, int] = OrderedDict()  # widened kernel -> first leading extent
        self._pending: list = []
        self._writes: list = []  # (buffer, offset, bytes) written with the next submit (`write_soon`)
        self._labels: dict[int, str] = {}  # pending command index -> kernel (while tracing)
        self._after: list = []      # temporaries freed once the pending commands are submitted
        self._doomed: list = []     # buffers destroyed once the pending commands are submitted
        self.stats = {"submits": 0, "dispatches": 0, "pipelines": 0, "devices_lost": 0, "replays": 0}
        self.epoch = 0  # +1 whenever a bind group or buffer goes: recorded commands may name it (replay.py)
        self._hold = 0  # > 0: buffers freed now are still bound by commands about to be recorded
        self._prefer: tuple = ()  # pooled buffers `alloc` takes first if free (replay.py's memory plan)
        self.kept_bytes = 0  # temporaries jitted programs keep for their replays (replay.py)

    # ------------------------------------------------------------ GEMM tiling
    def set_tiling(self, tiling: matmul.Tiling, want: int | None = None, plan: str | None = None) -> None:
        """Use `tiling` for GEMMs from now on (schedules staged for another `nr` keep theirs);
        with `want` (hardware adapters), products making fewer workgroups than that may get
        small tiles and K splits (tuner.Planner). `plan`: "timed" (candidates timed per
        product), "1" (the rule of thumb, untimed) or "0" (none); default JAXWEB_GEMM_PLAN, else timed."""
        self._tiling, self._want = tiling, want
        plan = plan or os.environ.get("JAXWEB_GEMM_PLAN", "timed")
        self.planner, self.plan_mode = None, "0"
        if want and tiling.kind == "shared" and plan != "0":
            self.plan_mode = "1" if plan == "1" else "timed"
            self.planner = tuner.Planner(self.rt, tiling, want, "heuristic" if plan == "1" else "timed",
                                         pipeline=lambda code: self._pipeline(code, "gemm_f32 candidate"),
                                         pipelines=lambda codes: self._pipelines_of(codes, "gemm_f32 candidate"))
        lim = self.rt.info["limits"]
        max_buffers = int(lim.get("maxStorageBuffersPerShaderStage", 8))
        self._caps = Capabilities(
            # a software adapter's invocations are CPU work: recomputing rows costs more there than a launch
            nested_reduce=False, inline_reduce=0 if self.software else codegen.INLINE_REDUCE,
            multi_output=True, max_buffers=max_buffers,
            # a GPU reads an aligned row-major B in place at full speed, and so does the quad
            # kernel (every load a gather): only the direct kernel gains from packing B first.
            # The quad kernel also takes thin products (an MLP's 10-class layer): as a generic
            # reduction each output gathers its operands alone
            gemm=GemmCaps(nr=tiling.BN, min_dim=16, conv=False,
                          thin_dim=4 if tiling.kind == "quad" else 16, thin_work=1 << 16,
                          pack_min_bytes=1 << 20 if tiling.kind == "direct" else 1 << 62,
                          epilogue=tiling.kind != "direct",
                          # JAXWEB_GEMM_PROLOGUE=0: operands staged and packed as before (benchmarks compare)
                          prologue=tiling.kind == "shared" and os.environ.get("JAXWEB_GEMM_PROLOGUE", "1") != "0",
                          epilogue_outs=4, max_buffers=max_buffers,
                          # JAXWEB_GEMM_FOLD=0: split sums always a pass of their own (A/B runs)
                          fold_bytes=tuner.fold_bytes(want) if tiling.kind == "shared"
                          and os.environ.get("JAXWEB_GEMM_FOLD", "1") != "0" else 0,
                          plan=self.planner))

    def warm_up(self, seconds: float = 2.0) -> list[float]:
        """Keep the GPU busy until its clocks are up (tuner.warm: before timings); the probes'
        seconds ([] on adapters without timestamps)."""
        if self.software:
            return []
        return tuner.warm(self.rt, seconds, lambda code: self._pipeline(code, "gemm_f32 warm-up"))

    def set_gemm_plan(self, plan: str) -> None:
        """Plan products from now on as `plan` says (set_tiling; benchmarks compare them)."""
        self.capabilities  # noqa: B018  (tunes first)
        self.set_tiling(self._tiling, self._want, plan)

    @property
    def capabilities(self) -> Capabilities:
        """What the scheduler may emit; on a hardware adapter the first call tunes the GEMM."""
        if self._caps is None:
            try:
                self.warm_up()
                best, self.tuned = tuner.tune(self.rt)
            except Exception:  # noqa: BLE001  (a failed tuning must not break the device)
                best = matmul.HARDWARE
            try:
                want, self.tuned_splits = tuner.tune_splits(self.rt)
            except Exception:  # noqa: BLE001
                want = tuner.WANT
            self.set_tiling(best, want)
        return self._caps

    @capabilities.setter
    def capabilities(self, caps: Capabilities) -> None:
        self._caps = caps

    @property
    def tiling(self) -> matmul.Tiling:
        """The GEMM kernel's tiling (tuned first where `capabilities` says)."""
        self.capabilities  # noqa: B018  (tunes on first use)
        return self._tiling

    @tiling.setter
    def tiling(self, tiling: matmul.Tiling) -> None:
        self._tiling = tiling

    # ------------------------------------------------------------ device loss
    def _renew(self, reason: str) -> None:
        """Forget everything the lost device held and make a new one; buffers of the old
        one (`Handle.gen`) raise DeviceLostError when used."""
        self.lost_reason = reason
        self.stats["devices_lost"] += 1
        self.gen += 1
        self.epoch += 1
        self._pipelines, self._names = {}, {}
        self.pool.clear()
        self._groups.clear()
        self._dims.clear()
        self._pending, self._labels, self._after, self._doomed, self._writes = [], {}, [], [], []
        try:
            self.rt = default_runtime(self.adapter)
        except Exception as e:
            raise DeviceLostError(f"the WebGPU device was lost ({reason}) and no new one could be made: "
                                  f"{type(e).__name__}: {e}") from e

    def _lost(self, error: Exception) -> Exception:
        """`error` as a DeviceLostError if the device is gone (then replaced), else itself."""
        reason = self.rt.probe_lost()
        if not reason:
            return error
        self._renew(reason)
        return DeviceLostError(self._lost_message(reason))

    # ------------------------------------------------------------ memory
    def alloc(self, nbytes: int) -> Handle:
        if not self._pending and not self._hold:  # between schedules: a device lost since is replaced
            self._renew_if_lost()  # first (a replay's submit checked once for all its allocations)
        cap = size_class(nbytes)
        alive = self.rt.alive
        while (h := self.pool.take(cap, self._prefer)) is not None:
            if alive is None or alive(h.buf):
                return h
            self._drop_groups(h.buf)  # its finalizer ran after it came back (same GC pass)
        return self.new_buffer(nbytes, cap)

    def new_buffer(self, nbytes: int, cap: int) -> Handle:
        """A GPU buffer of size class `cap` made now, not from the pool (`alloc`; replay.py's
        scratch): too big or out of memory raise ResourceExhaustedError, a lost device DeviceLostError."""
        if cap > self.max_buffer:
            raise ResourceExhaustedError(nbytes, self.max_buffer, 0, self.max_buffer)
        try:
            return Handle(self.rt.create_buffer(cap), cap, gen=self.gen)
        except Exception as e:
            if "memory" in str(e).lower():
                raise ResourceExhaustedError(nbytes, 0, 0, self.max_buffer) from None
            raise self._lost(e) from e

    def prefer(self, handles: tuple) -> None:
        """Allocations take these pooled handles first while free (replay.py's memory plan)."""
        self._prefer = handles

    def alloc_many(self, sizes: list[int], prefer: list[tuple]) -> list[Handle]:
        """`alloc` of each of `sizes`, taking first the free buffers in its `prefer` (a replayed
        call's outputs, replay.py), in one step: one pass over the pool, no call per buffer.
        All or none: if one fails, those taken are given back."""
        key = tuple(sizes)  # a replay asks for the same sizes every call: their classes worked out once
        caps = self._classes.get(key)
        if caps is None:
            if len(self._classes) >= 256:
                self._classes.clear()
            caps = self._classes[key] = [size_class(n) for n in sizes]
        pooled = self.pool.take_many(caps, prefer)
        alive, out = self.rt.alive, []
        if alive is None and None not in pooled:  # all pooled, none can have died (a steady replay)
            return pooled
        try:
            for nbytes, h, want in zip(sizes, pooled, prefer):
                if h is not None and (alive is None or alive(h.buf)):
                    out.append(h)
                    continue
                if h is not None:  # its finalizer ran after it came back (same GC pass)
                    self._drop_groups(h.buf)
                self._prefer = want
                try:
                    out.append(self.alloc(nbytes))
                finally:
                    self._prefer = ()
        except BaseException:
            for h in out:
                self.free(h)
            for h in pooled[len(out) + 1:]:  # taken from the pool, not handed out yet (the one that
                if h is not None:  # failed had no pooled buffer, or a dead one)
                    self.free(h)
            raise
        return out

    def reusable(self, handles: list[Handle]) -> bool:
        """Whether dead outputs' memory `handles` (one call's, noted in `Device.returned`) may be
        handed out again as it is, not through `free` and the pool (memory.Allocator.many): made by
        this device (one call's buffers are one device's), still alive, and no write queued for it."""
        if handles[0].gen != self.gen:
            return False
        alive = self.rt.alive
        if alive is not None and not all(map(alive, map(replay._buf, handles))):
            return False
        return not self._writes or {w[0] for w in self._writes}.isdisjoint(map(replay._buf, handles))

    def free(self, handle: Handle) -> None:
        if self._writes:  # a write queued for memory that may be handed out again: never issued
            self._writes = [w for w in self._writes if w[0] is not handle.buf]
        alive = self.rt.alive
        if handle.base is not None or handle.gen != self.gen or (alive is not None and not alive(handle.buf)):
            return  # a view; or collected in a reference cycle after the GPU object's own finalizer
        # (when that finalizer runs after this, in the same collection, `alloc` skips the buffer)
        limit = POOL_BYTES if self.software else HARDWARE_POOL * POOL_BYTES
        for old in self.pool.give(handle.cap, handle, limit):  # the least recently freed make room
            self._retire(old.buf)

    def write_soon(self, handle: Handle, data: bytes) -> None:
        """`write` of a few bytes (a jitted call's scalar argument) issued with the next submit:
        inside the same runtime call as a replay (`rt.replay`), else just before the submit.
        Commands already pending are submitted first, as `write` does: they read the old bytes."""
        if not data or len(data) % 4 or handle.off % 4:
            self.write(handle, data)
            return
        self._live(handle)
        if self._pending:
            self.flush()
        self._writes.append((handle.buf, handle.off, bytes(data)))

    def _write_now(self, writes: list) -> None:
        for buf, off, data in writes:
            self.rt.write(buf, off, data)

    def _retire(self, buf: Any) -> None:
        if self._pending or self._hold:  # recorded commands may still bind it: destroy it after they are submitted
            self._doomed.append(buf)
        else:
            self._destroy(buf)

    def _destroy(self, buf: Any) -> None:
        self.epoch += 1
        self._drop_groups(buf)
        self.rt.destroy_buffer(buf)

    def copy(self, dst: Handle, src: Handle, nbytes: int) -> None:
        if nbytes == 0:
            return
        self._live(dst)
        self._live(src)
        if dst.off % 4 or src.off % 4 or nbytes % 4:
            self.write(dst, self.read(src, nbytes))
            return
        self._pending.append(("copy", src.buf, src.off, dst.buf, dst.off, nbytes))

    # ------------------------------------------------------------ programs
    def compile(self, kernel: Kernel | Routine) -> Program | CopyProgram:
        if not isinstance(kernel, Routine):
            first = codegen.copy_of(kernel)
            size = kernel.out_dtypes[0].itemsize
            if first is not None and first >= 0 and first * size % 4 == 0 and kernel.size * size % 4 == 0:
                return CopyProgram(kernel, first * size, kernel.size * size)
            wide = widen_leading(kernel)
            if wide is not kernel and self._another_extent(wide.key, kernel.shape[0]):
                return self._sized(self._dynamic(wide), kernel)
            program = self._compile_shader(kernel)
            program.in_place = kernel.reduce_op is None
            return program
        return self._compile_shader(kernel)

    def _another_extent(self, wide_key: str, extent: int) -> bool:
        """Whether the widened kernel `wide_key` was met before at another leading extent."""
        first = self._seen.setdefault(wide_key, extent)
        self._seen.move_to_end(wide_key)
        if len(self._seen) > self.max_seen:
            self._seen.popitem(last=False)
        return first != extent

    def _dynamic(self, wide: Kernel) -> Program:
        """The dynamic program of a widened kernel (cached beside the kernels' programs)."""
        key = "dynamic " + wide.key
        p = self._programs.get(key)
        if p is None:
            p = self._programs[key] = self._compile_shader(wide, dynamic=True)
        return p

    def _sized(self, base: Program, kernel: Kernel) -> Program:
        """`base` (dynamic) launched over `kernel`'s real extent."""
        grid, dims = codegen.launch(base.shader, kernel.size, self.max_groups)
        shader = dataclasses.replace(base.shader, grid=grid,
                                     out_nbytes=tuple(kernel.size * d.itemsize for d in kernel.out_dtypes))
        return Program(base.pipeline, shader, kernel.name, base.gen, dims)

    def _compile_shader(self, kernel: Kernel | Routine, dynamic: bool = False, sized: bool | None = None
                        ) -> Program:
        """`sized` (default: on software adapters, see codegen) bindings declared with their sizes."""
        if isinstance(kernel, Routine):
            if kernel.routine != "gemm_f32":
                raise NotImplementedError(f"webgpu backend: no routine {kernel.routine!r}")
            tiling = self.tiling
            if kernel.spec.nr != tiling.BN:  # planned for the few-tiles class
                tiling = tuner.tiling_for(kernel.spec, tiling)
            shader = matmul.build(kernel.spec, tiling, self.subgroups)
        else:
            shader = codegen.build(kernel, self.max_groups, self.tree_max, self.subgroups, dynamic,
                                   self.software if sized is None else sized, self.wide_trees)
        if self._soon is not None and shader.code not in self._pipelines:  # compiled with the others
            pipe = self._pipelines[shader.code] = Soon(self.rt.pipeline_soon(shader.code), shader.code, kernel)
            self._soon.append(pipe)
            return Program(pipe, shader, kernel.name, self.gen, kernel=kernel if shader.min_bytes else None)
        try:
            pipe = self._pipeline(shader.code, kernel.name)
        except WGSLError as e:
            e.add_note(f"kernel '{kernel.name}':\n{kernel.text()}")
            raise
        return Program(pipe, shader, kernel.name, self.gen, kernel=kernel if shader.min_bytes else None)

    def prepare(self, schedule: Any) -> Any:
        """Backend.prepare, its kernels' pipelines compiled together where the runtime can start
        them without waiting (Pyodide: every createComputePipelineAsync started, then one wait):
        a first call's ~30 kernels otherwise wait for their pipelines one after another (~50 ms
        each on the H200). Its Programs hold a `Soon` until `execute` swaps in the pipeline;
        a rejected shader raises here, naming its kernel, as a compile does."""
        if getattr(self.rt, "pipeline_soon", None) is None or self._soon is not None:  # a nested schedule
            return super().prepare(schedule)
        self._soon = []
        try:
            prepared = super().prepare(schedule)
        except BaseException:
            started, self._soon = self._soon, None
            self._finish(started, report=False)  # settled, so that no rejected promise goes unhandled
            raise
        started, self._soon = self._soon, None
        self._finish(started)
        return prepared

    def _finish(self, started: list, report: bool = True) -> None:
        """Wait for the pipelines `prepare` started; put them in the cache (or drop a failed one,
        raising its error if `report`)."""
        if not started:
            return
        try:
            done = self.rt.pipelines_wait([s.started for s in started])
        except Exception as e:
            for s in started:
                self._pipelines.pop(s.code, None)
            self._raise_if_lost(e)
            raise
        failed, made = None, {}
        for s, (pipe, err) in zip(started, done):
            if err is None:
                self._pipelines[s.code] = made[id(s)] = pipe
                self._names[id(pipe)] = s.kernel.name
                self.stats["pipelines"] += 1
            else:
                self._pipelines.pop(s.code, None)
                failed = failed or (s, err)
        for key, p in list(self._programs.items()):  # cached Programs get their pipelines now (or go)
            soon = getattr(p, "pipeline", None)
            if type(soon) is Soon:
                if id(soon) in made:
                    p.pipeline = made[id(soon)]
                else:
                    del self._programs[key]
        if failed is not None and report:
            s, err = failed
            e = WGSLError(f"WebGPU rejected a generated shader: {err}", s.code)
            e.add_note(f"kernel '{s.kernel.name}':\n{s.kernel.text()}")
            e.add_note(f"while compiling kernel '{s.kernel.name}' for the {self.platform} device")
            raise e

    def _dims_buffer(self, dims: tuple) -> Any:
        """The uniform buffer holding `dims` (u32s), made once per value; the least recently
        used go past `max_dims`."""
        buf = self._dims.get(dims)
        if buf is not None:
            self._dims.move_to_end(dims)
            return buf
        buf = self._dims[dims] = self.rt.create_uniform(array.array("I", (*dims, 0, 0)[:4]).tobytes())
        if len(self._dims) > self.max_dims:
            self._retire(self._dims.popitem(last=False)[1])
        return buf

    def _pipeline(self, code: str, name: str) -> Any:
        """The pipeline of `code` on the current device (made once per device)."""
        pipe = self._pipelines.get(code)
        if pipe is None:
            try:
                pipe = self.rt.pipeline(code)
            except WGSLError as e:
                self._raise_if_lost(e)
                raise
            self._pipelines[code] = pipe
            self._names[id(pipe)] = name
            self.stats["pipelines"] += 1
        return pipe

    def _pipelines_of(self, codes: list, name: str) -> list:
        """`_pipeline` of each of `codes`, those not made yet compiled together where the runtime
        can (`rt.pipelines`: concurrently in Pyodide), else one by one."""
        batch = getattr(self.rt, "pipelines", None)
        missing = [c for c in dict.fromkeys(codes) if c not in self._pipelines]
        if batch is not None and len(missing) > 1:
            try:
                made = batch(missing)
            except WGSLError as e:  # which shader it was: compiled one by one below, as before
                self._raise_if_lost(e)
            else:
                for code, pipe in zip(missing, made):
                    self._pipelines[code] = pipe
                    self._names[id(pipe)] = name
                self.stats["pipelines"] += len(made)
        return [self._pipeline(c, name) for c in codes]

    def _group(self, program: Program, bufs: list) -> Any:
        key = (id(program.pipeline), *map(id, bufs))
        g = self._groups.get(key)
        if g is not None:
            self._groups.move_to_end(key)
            return g[0]
        g = self.rt.bind_group(program.pipeline, bufs)
        self._groups[key] = (g, program.pipeline, bufs)  # holding them keeps the ids valid
        if len(self._groups) > 4096:
            self._release(self._groups.popitem(last=False)[1][0])
        return g

    def _release(self, group: Any) -> None:
        self.epoch += 1
        rel = getattr(self.rt, "release_bind_group", None)
        if rel is not None:
            rel(group)

    def _drop_groups(self, buf: Any) -> None:
        self.epoch += 1
        for key in [k for k, v in self._groups.items() if any(b is buf for b in v[2])]:
            self._release(self._groups.pop(key)[0])

    def execute(self, program: Program | CopyProgram, outs: list[Handle], inputs: list[Handle]) -> None:
        if isinstance(program, CopyProgram):
            src, dst = inputs[0], outs[0]
            if (src.off + program.src_off) % 4 == 0 and dst.off % 4 == 0 and src.buf is not dst.buf:
                self.copy(dst, self.offset(src, program.src_off), program.nbytes)
                return
            if program.fallback is None:
                program.fallback = self._compile_shader(program.kernel)
            program = program.fallback
        if program.gen != self.gen:  # made for a device since lost
            program.pipeline, program.gen = self._pipeline(program.shader.code, program.name), self.gen
        elif type(program.pipeline) is Soon:  # compiled with its schedule's others (prepare)
            program.pipeline = self._pipeline(program.shader.code, program.name)
        sh = program.shader
        if sh.n_in != len(inputs) or sh.n_out != len(outs):
            raise ValueError(f"webgpu: kernel '{program.name}' binds {sh.n_out}+{sh.n_in} buffers, "
                             f"got {len(outs)}+{len(inputs)}")
        gen = self.gen
        for h in outs:
            if h.gen != gen:
                self._live(h)
        out_bufs = {id(h.buf): k for k, h in enumerate(outs)}
        ins, ties = [], {}
        for i, h in enumerate(inputs):  # views and inputs aliasing an output are read from a copy
            if h.gen != gen:
                self._live(h)
            if h.off or id(h.buf) in out_bufs:
                k = out_bufs.get(id(h.buf))
                if k is not None and not h.off and not outs[k].off and program.in_place and self.tie_in_place:
                    ties[i] = k  # or, in place, through the output's binding: no copy
                else:
                    h = self._copy_of(h)
            ins.append(h)
        targets = [self._temp(h.cap - h.off) if h.off else h for h in outs]
        if sh.min_bytes is not None and any(h.cap < n for h, n in zip(targets + ins, sh.min_bytes)):
            if program.unsized is None:  # a buffer holds less than the shader declares
                program.unsized = self._compile_shader(program.kernel, sized=False)
                program.unsized.in_place = program.in_place
            program = program.unsized
            sh = program.shader
        if ties:
            program = self._tied(program, ties, ins)
            sh = program.shader
            ins = [h for i, h in enumerate(ins) if i not in ties]
        bufs = [h.buf for h in targets] + [h.buf for h in ins]
        if program.dims is not None:
            bufs.append(self._dims_buffer(program.dims))
        try:
            group = self._group(program, bufs)
        except Exception as e:  # e.g. a buffer past maxStorageBufferBindingSize
            sizes = [h.cap for h in targets + ins]
            raise WGSLError(f"WebGPU could not bind the buffers of kernel '{program.name}' (bytes {sizes}, "
                            f"limit {self.rt.info['limits'].get('maxStorageBufferBindingSize')}): "
                            f"{type(e).__name__}: {e}", sh.code) from e
        self._pending.append(("dispatch", program.pipeline, group, *sh.grid))
        for t, h, n in zip(targets, outs, sh.out_nbytes):
            if t is not h:
                self.copy(h, t, n)

    def _tied(self, program: Program, ties: dict, ins: list) -> Program:
        """`program` reading each input `i` of `ties` from output `ties[i]`'s binding (the same buffer):
        made once per set of ties. Where the shader cannot (`codegen.tie`), those inputs are copied
        here, into `ins`, and `program` runs as it is."""
        key = tuple(ties.items())
        got = (program.tied or {}).get(key)
        if got is None or got.gen != self.gen:
            shader = codegen.tie(program.shader, ties)
            got = program if shader is None else Program(self._pipeline(shader.code, program.name), shader,
                                                         program.name, self.gen, program.dims)
            program.tied = {**(program.tied or {}), key: got}
        if got is program:
            for i in ties:
                ins[i] = self._copy_of(ins[i])
            ties.clear()
        return got

    def _copy_of(self, h: Handle) -> Handle:
        """A temporary (freed after the submit) holding `h`'s bytes from its offset on."""
        n = h.cap - h.off
        t = self._temp(n)
        self.copy(t, h, n & ~3)
        return t

    def traced_execute(self, trace, program, outs, inputs, name) -> None:
        """`execute`, labelling the commands it records: `flush` times them (jaxweb.profiler)."""
        first = len(self._pending)
        self.execute(program, outs, inputs)
        for i in range(first, len(self._pending)):
            self._labels[i] = name

    def submit(self, prepared, inputs, alloc=None, free=None):
        """GPUBackend.submit — by replay (replay.py) unless the profiler traces each kernel."""
        if profiler.active() is None:
            if not self._pending and not getattr(self.rt, "reports_loss", False):  # else the replay's own
                self._renew_if_lost()  # call reports a loss, and a run that is not a replay checks first
            try:
                got = replay.submit(self, prepared, inputs, alloc or (lambda nbytes, what: self.alloc(nbytes)),
                                    free or (lambda handle, nbytes: self.free(handle)))
            except BaseException:
                self.flush()
                raise
            if got is not None:
                if self._pending or self._after or self._doomed or self._writes:  # a replay left nothing
                    self.flush()
                return got
        return super().submit(prepared, inputs, alloc, free)

    def flush(self, rec: replay.Recording | None = None) -> None:
        """Record the pending commands into one command encoder and submit them once — or,
        given a recording (`replay.submit`), its commands, encoded once for the runtime."""
        cmds, self._pending = self._pending, []
        temps, self._after = self._after, []
        labels, self._labels = self._labels, {}
        writes, self._writes = self._writes, []
        try:
            replay = getattr(self.rt, "replay", None) if rec is not None else None
            if replay is None:  # else the runtime's replay issues them, in the same call
                self._write_now(writes)
            if rec is not None:
                if rec.encoded is None:  # the runtime's own form of the commands, made once
                    rec.encoded = self.rt.encode(rec.cmds) if replay is not None else rec.cmds
                    rec.forget = getattr(self.rt, "forget", None)
                cmds = rec.cmds
                stats = self.stats
                stats["submits"] += 1
                stats["dispatches"] += rec.dispatches
                stats["replays"] += 1
                if replay is not None:
                    replay(rec.encoded, writes)
                else:
                    self.rt.submit(rec.encoded)
            elif cmds:
                self.stats["submits"] += 1
                self.stats["dispatches"] += sum(c[0] == "dispatch" for c in cmds)
                trace = profiler.active()
                if trace is None:
                    self.rt.submit(cmds)
                else:
                    self._submit_traced(trace, cmds, labels)
        except Exception as e:
            self._raise_if_lost(e)
            if isinstance(e, WGSLError):
                raise
            # validation or out of memory at submit: name what ran
            names = [self._names.get(id(c[1]), "?") for c in cmds if c[0] == "dispatch"]
            raise WGSLError(f"WebGPU error submitting {len(cmds)} commands (kernels: {', '.join(names)}): "
                            f"{type(e).__name__}: {e}") from e
        finally:
            for t in temps:
                self.free(t)
            doomed, self._doomed = self._doomed, []
            for buf in doomed:
                self._destroy(buf)

    def _submit_traced(self, trace, cmds: list, labels: dict) -> None:
        """Submit `cmds` and record their kernels: GPU timestamps per dispatch where the
        adapter has them (placed from the submit's host time), else the submit's wall-clock
        until the GPU is done."""
        row = self.trace_row()
        kernels = [labels.get(i, "?") for i, c in enumerate(cmds) if c[0] == "dispatch"]
        t = trace.now()
        if getattr(self.rt, "can_time", False):
            stamps = self.rt.submit_timed(cmds)  # waits for the GPU
        else:
            stamps = []
            self.rt.submit(cmds)
            self.rt.finish()
        end = trace.now()
        trace.kernel(row, f"submit ({len(kernels)} kernels)", t, end - t, track="submits",
                     args={"kernels": ", ".join(kernels)})
        for k, name in enumerate(kernels[:len(stamps) // 2]):
            begin, stop = stamps[2 * k] / 1e3, stamps[2 * k + 1] / 1e3
            trace.kernel(row, name, t + begin, stop - begin, args={"timer": "gpu timestamps"})
