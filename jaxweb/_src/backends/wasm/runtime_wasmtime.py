"""The runtime protocol (see runtime.py) on wasmtime, for CPython.

SIMD128 and relaxed SIMD are enabled. The linear memory is a `SharedMemory`, so
instances in any `Store` can use it: every worker thread has its own stores
holding its own instances of the same compiled modules, and `call_split` runs
[start, end) chunks of a kernel's outermost loop on the workers at once
(wasmtime-py calls through ctypes, which releases the GIL, so the threads really
run in parallel). Reads and writes go through ctypes on the memory's base pointer.

Calls go through wasmtime's unchecked call (`wasmtime_func_call_unchecked`, wasmtime-py's
ctypes binding) with the i32 arguments packed into one `wasmtime_val_raw_t` array: ~2 us
per launch instead of ~100 for wasmtime-py's `Func.__call__`, which asks the engine for the
function's type and converts every argument on every call. The function's parameter count is
read once per instance and compared with the packed array's length on every call (a len(): the
unchecked call would read past a short array). `encode`/`replay` (backends/wasm/replay.py)
keep a schedule's launches as those packed arrays, made once, with each unsplit launch's
function looked up and its argument count compared then: a replay is a loop of ctypes calls.
A store is never closed while a call or replay runs (unloads then wait: `_busy`), since a raw
call holds its context pointer.

Bounds are checked in Python before anything touches the memory, because wasmtime 50 does
not trap on an out-of-bounds access to a shared memory once its store holds more than one
instance (a device's always does): it aborts the whole process (`assertion failed:
fault.is_none()`, with wasmtime-py's own calls too). `read`, `write` and
`copy` check their byte range (not with `assert`, which `python -O` drops: ctypes would then
crash the process); a launch (`call`, `call_split`, `encode`, so a replay once per recording)
checks that no argument lies past the memory's end, which is what an address that is no buffer
of this memory looks like (another runtime's, or a number that is no address at all). A kernel
that itself indexes past its buffers is not caught: that needs each argument's extent, which only
the kernel knows.

Instances are freed only with their store, so modules are loaded in generations of
`GENERATION` handles, each generation with its own stores: when few of a retired
generation's handles are still loaded (`unload` drops the others), those move to
the current generation and the old stores go, freeing their instances. Compiling
any number of kernels over time then keeps a bounded number of instances.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import struct
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import wasmtime
from wasmtime import _ffi as ffi

from .runtime import MAX_PAGES, PAGE, GrowError, check_span, split_bounds  # shared memories: a maximum, 4 GiB (virtual)

_RAW = ffi.wasmtime_val_raw_t  # 16 bytes: an i32 argument is its first 4


class _SharedMemory(wasmtime.SharedMemory):
    """wasmtime-py 50 wraps the shared memory pointer once too often when importing it
    (`ctypes.pointer(self.ptr())`); pass the pointer itself."""

    def _as_extern(self):
        from wasmtime import _ffi as ffi
        union = ffi.wasmtime_extern_union(sharedmemory=self.ptr())
        return ffi.wasmtime_extern_t(ffi.WASMTIME_EXTERN_SHAREDMEMORY, union)


def default_threads() -> int:
    env = os.environ.get("JAXWEB_WASM_THREADS")
    if env:
        return max(1, int(env))
    return max(1, min(4, os.cpu_count() or 1))


GENERATION = 256  # handles loaded per generation of stores


class _Generation:
    __slots__ = ("live", "loaded", "stores", "funcs")

    def __init__(self):
        self.live: set[int] = set()   # handles loaded in this generation and not unloaded
        self.loaded = 0
        self.stores: dict[int, wasmtime.Store] = {}   # thread id -> store
        self.funcs: dict[tuple, tuple] = {}  # (thread id, handle) -> `_func`'s tuple


class WasmtimeRuntime:
    name = "wasmtime"
    max_pages = MAX_PAGES
    shared = True

    def __init__(self, initial_pages: int = 16, threads: int | None = None):
        self.workers = default_threads() if threads is None else max(1, threads)
        cfg = wasmtime.Config()
        cfg.wasm_simd = True
        cfg.wasm_relaxed_simd = True
        cfg.wasm_bulk_memory = True
        cfg.wasm_threads = True
        cfg.shared_memory = True
        cfg.cranelift_opt_level = "speed"
        self.engine = wasmtime.Engine(cfg)
        ty = wasmtime.MemoryType(wasmtime.Limits(initial_pages, MAX_PAGES), shared=True)
        self.memory = _SharedMemory(self.engine, ty)
        self._size = self.memory.data_len()  # bytes; only `grow` changes it (our kernels never grow)
        self._pool = ThreadPoolExecutor(self.workers - 1, thread_name_prefix="jaxweb-wasm") \
            if self.workers > 1 else None
        self._modules: dict[int, wasmtime.Module] = {}
        self._gen_of: dict[int, _Generation] = {}
        self._current = _Generation()
        self._next = 0
        self._lock = threading.Lock()
        self.names: dict[int, str] = {}  # handle -> the kernel it runs (the backend says; error notes)
        self.epoch = 0  # +1 on unload and grow: encoded launches (`encode`) are made again
        self._busy = 0  # calls running: unloads wait for them (`_deferred`)
        # guards _busy and _deferred (calls may come from several threads); re-entrant, since a
        # garbage-collector finalizer (a Program's unload) may run on a thread holding it
        self._count = threading.RLock()
        self._deferred: list[int] = []
        _LIVE.add(self)

    # -- modules
    def validate(self, wasm: bytes) -> bool:
        try:
            wasmtime.Module.validate(self.engine, wasm)
            return True
        except Exception:
            return False

    def load(self, wasm: bytes) -> int:
        module = wasmtime.Module(self.engine, wasm)
        with self._lock:
            if self._current.loaded >= GENERATION:
                self._current = _Generation()
            handle, self._next = self._next, self._next + 1
            self._modules[handle] = module
            self._adopt(handle, self._current)
        self._func(handle)  # instantiate now on this thread: errors surface at load time
        return handle

    def _adopt(self, handle: int, gen: _Generation) -> None:
        gen.live.add(handle)
        gen.loaded += 1
        self._gen_of[handle] = gen

    def unload(self, handle: int) -> None:
        """Forget a module; its generation's stores go once few of its handles are left."""
        with self._count:
            if self._busy:  # a finalizer during a call: a running call may hold a store's context
                self._deferred.append(handle)
                return
        self.epoch += 1
        self.names.pop(handle, None)
        with self._lock:
            gen = self._gen_of.pop(handle, None)
            self._modules.pop(handle, None)
            if gen is None:
                return
            gen.live.discard(handle)
            if gen is not self._current and len(gen.live) * 8 <= GENERATION:
                for h in list(gen.live):  # the survivors move on: re-instantiated when next called
                    self._adopt(h, self._current)
                gen.live.clear()
                gen.funcs.clear()
                for store in gen.stores.values():
                    store.close()
                gen.stores.clear()

    def _func(self, handle: int) -> tuple:
        """(store context, `run` as a C struct, its parameter count, store, `run` itself) on this
        thread; the store and `run` are kept alive for the context and the struct's reference."""
        gen = self._gen_of[handle]
        tid = threading.get_ident()
        got = gen.funcs.get((tid, handle))
        if got is None:
            store = gen.stores.get(tid)
            if store is None:
                store = gen.stores[tid] = wasmtime.Store(self.engine)
            inst = wasmtime.Instance(store, self._modules[handle], [self.memory])
            fn = inst.exports(store)["run"]
            got = gen.funcs[(tid, handle)] = (store._context(), ctypes.byref(fn._func),
                                               len(fn.type(store).params), store, fn)
        return got

    def instances(self) -> int:
        """Instances alive now (in all stores)."""
        gens = {id(g): g for g in self._gen_of.values()}
        gens[id(self._current)] = self._current
        return sum(len(g.funcs) for g in gens.values())

    # -- calls
    def call(self, handle: int, args: tuple) -> None:
        if max(args) > self._size:  # (0, rows, ...): never empty
            self._refuse(handle, args)
        self._run(handle, [_raw(args)])

    def call_split(self, handle: int, total: int, args: tuple, align: int = 1) -> None:
        """run(start, end, *args) over [0, total) in `workers` chunks at once (chunk
        boundaries are multiples of `align` where possible)."""
        if max(args, default=0) > self._size:
            self._refuse(handle, args)
        self._run(handle, self._chunks(total, args, align))

    def _refuse(self, handle: int, args: tuple) -> None:
        """The ValueError of a launch with an argument past the memory's end (the arguments are
        the buffers' addresses and the row range, which never exceeds an output's bytes): the
        call would abort the process (the module docstring)."""
        bad = [a for a in args if a > self._size]
        raise ValueError(f"wasm kernel '{self.names.get(handle, handle)}': argument(s) {bad} lie past the "
                         f"end of the wasm memory ({self._size} bytes): not addresses of this memory")

    def _chunks(self, total: int, args: tuple, align: int | None) -> list:
        """The packed arguments of each chunk of a launch (one: no split)."""
        bounds = None if align is None or self._pool is None else split_bounds(total, self.workers, align)
        if bounds is None:
            return [_raw((0, total, *args))]
        return [_raw((lo, hi, *args)) for lo, hi in zip(bounds, bounds[1:])]

    def _run(self, handle: int, chunks: list) -> None:
        self._enter()
        try:
            self._launch(handle, chunks)
        finally:
            self._leave()

    def _launch(self, handle: int, chunks: list) -> None:
        """One launch, its chunks at once; the caller has entered (`_enter`): a replay enters
        once for all its launches, not once per launch."""
        if len(chunks) == 1:  # not split: no futures
            self._call_raw(handle, chunks[0])
            return
        futures = [self._pool.submit(self._call_raw, handle, c) for c in chunks[1:]]
        try:
            self._call_raw(handle, chunks[0])
        finally:
            for fut in futures:
                fut.result()

    def _call_raw(self, handle: int, raw: ctypes.Array) -> None:
        ctx, fn, nparams, _, _ = self._func(handle)
        if len(raw) != nparams:  # the unchecked call would read past the array
            raise TypeError(f"wasm module {handle}: run takes {nparams} arguments, given {len(raw)}")
        _invoke(ctx, fn, raw)

    def _direct(self, handle: int, chunks: list) -> tuple | None:
        """(context, `run`) of an unsplit launch on this thread, for `replay` to call without
        looking them up (None: split, or the argument count is wrong and `_call_raw` says so)."""
        if len(chunks) != 1:
            return None
        ctx, fn, nparams, _, _ = self._func(handle)
        return (ctx, fn) if len(chunks[0]) == nparams else None

    def _enter(self) -> None:
        with self._count:
            self._busy += 1

    def _leave(self) -> None:
        with self._count:
            self._busy -= 1
            if self._busy or not self._deferred:
                return
            deferred = self._deferred
            self._deferred = []
        for handle in deferred:  # unloads that waited for the calls
            self.unload(handle)

    def encode(self, launches: list) -> tuple:
        """Launches `(handle, total, args, align)` as (handle, packed chunk arguments, `_direct`),
        made once (and checked once: the memory never shrinks), with the epoch and the thread
        whose instances `_direct` looked up."""
        for handle, total, args, _ in launches:
            if max((total, *args)) > self._size:
                self._refuse(handle, (total, *args))
        out = []
        for handle, total, args, align in launches:
            chunks = self._chunks(total, args, align)
            out.append((handle, chunks, self._direct(handle, chunks)))
        return self.epoch, threading.get_ident(), out

    def replay(self, encoded: tuple) -> None:
        """Run encoded launches in order; an error names the kernel. An unsplit launch calls the
        `run` that `encode` looked up when nothing was unloaded since (the epoch: an unload may
        close the stores; none can happen while a replay runs, `_enter` defers it) and on
        the thread it was looked up for (a store is one thread's); else as `_launch` does."""
        self._enter()
        try:
            epoch, tid, launches = encoded
            same = epoch == self.epoch and tid == threading.get_ident()
            for handle, chunks, direct in launches:
                try:
                    if same and direct is not None:
                        _invoke(*direct, chunks[0])
                    else:
                        self._launch(handle, chunks)
                except Exception as e:
                    e.add_note(f"while running kernel '{self.names.get(handle, handle)}' on the wasm device")
                    raise
        finally:
            self._leave()

    # -- memory
    def memory_size(self) -> int:
        return self.memory.data_len()

    def grow(self, pages: int) -> int:
        self.epoch += 1
        try:
            self.memory.grow(pages)
        except wasmtime.WasmtimeError as e:  # past the maximum, or the host is out of memory
            raise GrowError(f"the wasm memory ({self.memory_size()} bytes) cannot grow by "
                            f"{pages} pages: {e}") from None
        self._size = self.memory.data_len()
        return self._size

    def _base(self) -> int:
        return ctypes.addressof(self.memory.data_ptr().contents)

    def read(self, ptr: int, nbytes: int) -> bytes:
        check_span("read", ptr, nbytes, self._size)
        return ctypes.string_at(self._base() + ptr, nbytes)

    def write(self, ptr: int, data) -> None:
        data = bytes(data)
        check_span("write", ptr, len(data), self._size)
        ctypes.memmove(self._base() + ptr, data, len(data))

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        check_span("copy source", src, nbytes, self._size)
        check_span("copy destination", dst, nbytes, self._size)
        base = self._base()
        ctypes.memmove(base + dst, base + src, nbytes)

    def close(self) -> None:
        """Release engine objects in dependency order (wasmtime-py cannot do it at
        interpreter exit, once its ffi module is torn down)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        gens = {id(g): g for g in self._gen_of.values()}
        gens[id(self._current)] = self._current
        stores = [st for g in gens.values() for st in g.stores.values()]
        for g in gens.values():
            g.funcs.clear()
        for obj in list(self._modules.values()) + stores + [self.memory, self.engine]:
            try:
                obj.close()
            except Exception:
                pass
        self._modules.clear()


def _raw(args: tuple) -> ctypes.Array:
    """i32 arguments (each taken modulo 2**32) packed as wasmtime_val_raw_t values."""
    return (_RAW * len(args)).from_buffer_copy(struct.pack(f"<{'I12x' * len(args)}", *[a & 0xFFFFFFFF for a in args]))


def _invoke(ctx: object, fn: object, raw: ctypes.Array) -> None:
    """Call `run` (its store context, the C struct) with packed arguments of the right count."""
    trap = ctypes.POINTER(ffi.wasm_trap_t)()
    error = ffi.wasmtime_func_call_unchecked(ctx, fn, raw, len(raw), ctypes.byref(trap))
    if error:
        raise wasmtime.WasmtimeError._from_ptr(error)
    if trap:
        raise wasmtime.Trap._from_ptr(trap)


_LIVE: "weakref.WeakSet[WasmtimeRuntime]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for rt in list(_LIVE):
        rt.close()


assert PAGE == 65536
