"""The wasm runtime protocol (see runtime.py) in Pyodide, through js_shim/wasm.mjs.

The JS engine that runs Pyodide (V8 in Chrome and Node) compiles and runs the
kernels: there is no second Wasm engine. The shim holds the Memory and the
instances; this class holds their int handles and each kernel's exported `run`
function, which it calls directly with ints (one FFI call per kernel launch).

Batches: inside `batch()` (the backend's `submit`), launches and memory copies are
queued and run by the shim's `runBatch` from one int32 array, in order, at the end
of the schedule or before Python next reads or writes the memory: one JS call per
jitted call, not one per kernel — a compiled `scan` or `fori_loop` included, whose
per-iteration carries and slices are such copies.

Replays (backends/wasm/replay.py): `encode` makes a schedule's launches one int32 JS
array once, in the same record format; `replay` hands it to `runBatch` again: one JS
call per jitted call and no Python per kernel. `epoch` changes on `unload` and `grow`.

Threads: when the loader started the shim's worker pool (crossOriginIsolated
pages, Node), `workers > 1`, the memory is shared, every module is also
instantiated in each worker, and `call_split` runs chunks of a kernel's outer
loop on all of them at once, still as one synchronous call from Python.
"""
from __future__ import annotations

import array
import contextlib
from typing import Any, Iterator

from ... import host
from .runtime import MAX_PAGES, PAGE, GrowError, check_span, split_bounds  # shared memories: a maximum, 4 GiB (reserved)

_I32 = 1 << 32
#: launches and copies queued before a batch runs regardless (bounds the queue of a long loop)
MAX_BATCH = 4096
#: writes of at most this many bytes cross as int32 arguments (~6-9 us a call in Node, ~18 as a buffer PyProxy)
SMALL_WRITE = 64


class PyodideRuntime:
    name = "pyodide"
    max_pages = MAX_PAGES

    def __init__(self, initial_pages: int = 16, threads: int | None = None):
        self._shim = host.shim().wasm  # HostError outside a page loaded by js_shim
        pool = int(self._shim.poolSize())
        self.workers = 1 + (pool if threads is None else max(0, min(pool, threads - 1)))
        self.shared = self.workers > 1
        # No maximum (the contract) unless shared: a shared memory needs one (4 GiB).
        self._mem = self._shim.createMemory(initial_pages, MAX_PAGES if self.shared else None, self.shared)
        if self.shared:
            self._shim.poolAttachMemory(self._mem)
        self._instances: list[int] = []
        self._runs: list[Any] = []
        self._bounds: dict[tuple, Any] = {}
        self._size: int | None = None  # the memory's bytes, cached between grows
        self.names: dict[int, str] = {}  # handle -> the kernel it runs (the backend says; error notes)
        self._batch: list | None = None  # queued launches (handle, split bounds, args) while batching
        self.epoch = 0  # +1 on unload and grow: encoded launches (`encode`) are made again
        self._soon: array.array | None = None  # `write_soon` records, run before anything else

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        if self._batch is not None:  # nested (a control-flow step's sub-schedule): one batch
            yield
            return
        self._batch = []
        try:
            yield
        except BaseException:
            self._batch = None  # the schedule failed: its queued launches must not run
            raise
        try:
            self._run_batch()
        finally:
            self._batch = None

    def _run_batch(self) -> None:
        """Run the queued launches: one alone as a plain call, several as one `runBatch`
        of int32 records (instance, #bounds, bounds..., #args, args...); writes made with
        `write_soon` first."""
        queued, soon = self._batch, self._soon
        if not queued and soon is None:  # not batching, or nothing queued
            return
        if queued:
            self._batch = []
        self._soon = None
        queued = queued or []
        try:
            self._run_records(queued, soon)
        except Exception as e:  # name the kernel, as an unbatched launch's error does
            at = 0 if len(queued) == 1 else int(self._shim.batchFailedAt())
            self._name_failed(e, [q[0] for q in queued], at)
            raise

    def _name_failed(self, e: Exception, handles: list, at: int) -> None:
        handle = handles[at] if 0 <= at < len(handles) else None
        if handle is not None:
            e.add_note(f"while running kernel '{self.names.get(handle, handle)}' on the wasm device")

    def _run_records(self, queued: list, soon: array.array | None) -> None:
        if soon is not None:
            self._shim.runBatch(self._records(queued), soon)
            return
        if len(queued) == 1:
            handle, bounds, args = queued[0]
            if handle is None:
                self._shim.copyWithin(self._mem, *args)
            elif bounds is None:
                self._runs[handle](*args)
            else:
                self._shim.callSplit(self._instances[handle], bounds[1], *args)
            return
        self._shim.runBatch(self._records(queued))

    def _records(self, queued: list) -> array.array:
        """The int32 records `runBatch` reads (see js_shim/wasm.mjs)."""
        rec = array.array("i")
        for handle, bounds, args in queued:
            if handle is None:  # a copy: instance 0, then memory, dst, src, nbytes (unsigned)
                rec.extend((0, self._mem, *_i32s(args)))
                continue
            rec.append(self._instances[handle])
            if bounds is None:
                rec.append(0)
            else:
                rec.append(len(bounds[0]))
                rec.extend(bounds[0])
            rec.append(len(args))
            rec.extend(args)
        return rec

    def encode(self, launches: list) -> tuple:
        """Launches `(handle, total, args, align)` as one JS Int32Array of records, made once
        (and the handles, to name a kernel that fails)."""
        from pyodide.ffi import to_js  # noqa: PLC0415
        queued = []
        for handle, total, args, align in launches:
            bounds = None if align is None else self._split_bounds(total, align)
            args = _i32s(args)
            queued.append((handle, bounds, [0, total, *args] if bounds is None else args))
        return to_js(self._records(queued)), [q[0] for q in queued]

    def replay(self, encoded: tuple) -> None:
        """Run encoded launches: one `runBatch`, after whatever a batch has queued (the
        writes of `write_soon` go in the same call)."""
        if self._batch:
            self._run_batch()
        records, handles = encoded
        soon, self._soon = self._soon, None
        try:
            self._shim.runBatch(records, soon)
        except Exception as e:
            self._name_failed(e, handles, int(self._shim.batchFailedAt()))
            raise

    def _queue(self, record: tuple) -> None:
        self._batch.append(record)
        if len(self._batch) >= MAX_BATCH:  # a long loop: run what is queued, keep batching
            self._run_batch()

    def validate(self, wasm: bytes) -> bool:
        try:
            return bool(self._shim.validate(host.to_js_bytes(wasm)))
        except Exception:
            return False

    def load(self, wasm: bytes) -> int:
        shim = self._shim
        module = shim.compile(host.to_js_bytes(wasm))
        try:
            inst = shim.instantiate(module, self._mem)
            if self.shared:
                shim.poolInstantiate(module, inst, self._mem)
        finally:
            shim.release("module", module)  # the instance keeps what it needs
        self._instances.append(inst)
        self._runs.append(shim.exportFunction(inst, "run"))
        return len(self._runs) - 1

    def unload(self, handle: int) -> None:
        """Drop the instance here and in the workers, so the engine can collect it."""
        self._run_batch()  # queued launches may run this instance: first
        inst = self._instances[handle]
        if inst is None:
            return
        self.epoch += 1
        self.names.pop(handle, None)
        self._instances[handle] = None
        self._runs[handle] = None
        if self.shared:
            self._shim.poolRelease(inst)
        self._shim.release("instance", inst)

    def call(self, handle: int, args: tuple) -> None:
        args = _i32s(args)
        if self._batch is not None:
            self._queue((handle, None, args))
            return
        self._run_batch()  # writes waiting (`write_soon`) first
        self._runs[handle](*args)

    def call_split(self, handle: int, total: int, args: tuple, align: int = 1) -> None:
        """run(start, end, *args) over [0, total) in up to `workers` chunks at once
        (boundaries multiples of `align` where possible)."""
        bounds = self._split_bounds(total, align)
        if bounds is None:
            self.call(handle, (0, total, *args))
            return
        args = _i32s(args)
        if self._batch is not None:
            self._queue((handle, bounds, args))
            return
        self._run_batch()  # writes waiting (`write_soon`) first
        self._shim.callSplit(self._instances[handle], bounds[1], *args)

    def _split_bounds(self, total: int, align: int) -> tuple | None:
        """(bounds, the same as a JS Int32Array), made once per split shape; None: one chunk."""
        key = (total, align)
        bounds = self._bounds.get(key, False)
        if bounds is False:
            b = split_bounds(total, self.workers, align)
            if b is not None:
                from pyodide.ffi import to_js  # noqa: PLC0415
                b = array.array("i", b)
                b = (b, to_js(b))  # the Python array kept alive with it
            bounds = self._bounds[key] = b
        return bounds

    def memory_size(self) -> int:
        # only grow() changes it: asked of the engine then, not on every bounds check
        if self._size is None:
            self._size = int(self._shim.memoryBytes(self._mem))
        return self._size

    def grow(self, pages: int) -> int:
        self._run_batch()  # what is queued runs before the memory is touched
        # the shim answers -1 instead of throwing the engine's RangeError
        self._size = None
        self.epoch += 1
        if int(self._shim.growMemory(self._mem, pages)) < 0:
            raise GrowError(f"the wasm memory ({self.memory_size()} bytes) cannot grow by {pages} pages "
                            "(the JavaScript engine refused)")
        return self.memory_size()

    # Python buffers cross as PyProxies that the shim reads or fills in place
    # (one copy each way, none through an intermediate JS array).
    def read(self, ptr: int, nbytes: int) -> bytearray:
        """A fresh copy of `nbytes` at `ptr`: one copy, straight from the Wasm memory into an
        uninitialized bytearray the shim fills whole (no zero-fill, no second copy to bytes);
        every caller reads it or copies it (webgpu's read returns the same kind)."""
        check_span("read", ptr, nbytes, self.memory_size())
        self._run_batch()  # what is queued runs before the memory is touched
        out = host.uninitialized(nbytes)
        if nbytes:
            self._shim.readInto(self._mem, ptr, out)
        return out

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        check_span("copy source", src, nbytes, self.memory_size())
        check_span("copy destination", dst, nbytes, self.memory_size())
        if nbytes and self._batch is not None:  # in order with the launches (a scan's slices)
            self._queue((None, None, (dst, src, nbytes)))
        elif nbytes:
            self._run_batch()  # writes waiting (`write_soon`) first
            self._shim.copyWithin(self._mem, dst, src, nbytes)

    def write(self, ptr: int, data) -> None:
        data = memoryview(data).cast("B")
        n = len(data)
        check_span("write", ptr, n, self.memory_size())
        self._run_batch()  # what is queued runs before the memory is touched
        if _small(ptr, n):  # a jitted call's scalar argument
            self._shim.writeWords(self._mem, ptr, *data.cast("i"))
        elif n:
            self._shim.write(self._mem, ptr, data)

    def write_soon(self, ptr: int, data) -> None:
        """`write`, issued with the next call into JavaScript that runs kernels (a replay's
        `runBatch`) or touches the memory: a few bytes (a jitted call's scalar argument)
        then cost no call of their own."""
        data = memoryview(data).cast("B")
        n = len(data)
        if not _small(ptr, n) or self._batch:  # launches queued read the old bytes: `write` runs them first
            self.write(ptr, data)
            return
        check_span("write", ptr, n, self.memory_size())
        if self._soon is None:
            self._soon = array.array("i")
        self._soon.extend((-1, self._mem, ptr, n // 4))
        self._soon.extend(data.cast("i"))


def _i32s(args) -> list[int]:
    """Integer arguments as the signed int32 values JavaScript receives (each modulo 2**32)."""
    return [((a + (1 << 31)) % _I32) - (1 << 31) for a in args]


def _small(ptr: int, n: int) -> bool:
    """Whether a write crosses as int32 words (see SMALL_WRITE)."""
    return 0 < n <= SMALL_WRITE and not n % 4 and not ptr % 4


assert PAGE == 65536
