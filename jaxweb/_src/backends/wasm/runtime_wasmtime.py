"""The runtime protocol (see runtime.py) on wasmtime, for CPython.

SIMD128 and relaxed SIMD are enabled. With `threads > 1` the linear memory is a
`SharedMemory` and every worker thread has its own `Store` holding its own
instances of the same compiled modules; `call_split` runs [start, end) chunks of
a kernel's outermost loop on the workers at once (wasmtime-py calls through
ctypes, which releases the GIL, so the threads really run in parallel). Reads
and writes go through ctypes on the memory's base pointer (re-fetched after
growth, since a non-shared memory may move).
"""
from __future__ import annotations

import atexit
import ctypes
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import wasmtime

from .runtime import MAX_PAGES, PAGE, GrowError  # shared memories need a maximum: 4 GiB (virtual only)


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


class WasmtimeRuntime:
    name = "wasmtime"
    max_pages = MAX_PAGES

    def __init__(self, initial_pages: int = 16, threads: int | None = None):
        self.workers = default_threads() if threads is None else max(1, threads)
        self.shared = self.workers > 1
        cfg = wasmtime.Config()
        cfg.wasm_simd = True
        cfg.wasm_relaxed_simd = True
        cfg.wasm_bulk_memory = True
        cfg.wasm_threads = self.shared
        cfg.shared_memory = self.shared
        cfg.cranelift_opt_level = "speed"
        self.engine = wasmtime.Engine(cfg)
        self.store = wasmtime.Store(self.engine)
        if self.shared:
            ty = wasmtime.MemoryType(wasmtime.Limits(initial_pages, MAX_PAGES), shared=True)
            self.memory = _SharedMemory(self.engine, ty)
            self._pool = ThreadPoolExecutor(self.workers - 1, thread_name_prefix="jaxweb-wasm")
        else:
            self.memory = wasmtime.Memory(self.store, wasmtime.MemoryType(wasmtime.Limits(initial_pages, None)))
            self._pool = None
        self._modules: list = []
        self._stores: list = [self.store]
        self._local = threading.local()
        self._main = self._local.funcs = {}
        self._local.store = self.store
        _LIVE.add(self)

    # -- modules
    def validate(self, wasm: bytes) -> bool:
        try:
            wasmtime.Module.validate(self.engine, wasm)
            return True
        except Exception:
            return False

    def load(self, wasm: bytes) -> int:
        self._modules.append(wasmtime.Module(self.engine, wasm))
        handle = len(self._modules) - 1
        self._func(handle)  # instantiate now on this thread: errors surface at load time
        return handle

    def _func(self, handle: int):
        loc = self._local
        if not hasattr(loc, "funcs"):
            loc.funcs, loc.store = {}, wasmtime.Store(self.engine)
            self._stores.append(loc.store)
        fn = loc.funcs.get(handle)
        if fn is None:
            inst = wasmtime.Instance(loc.store, self._modules[handle], [self.memory])
            fn = loc.funcs[handle] = inst.exports(loc.store)["run"]
        return fn, loc.store

    # -- calls
    def call(self, handle: int, args: tuple) -> None:
        fn, store = self._func(handle)
        fn(store, *[_i32(a) for a in args])

    def call_split(self, handle: int, total: int, args: tuple, align: int = 1) -> None:
        """run(start, end, *args) over [0, total) in `workers` chunks at once (chunk
        boundaries are multiples of `align` where possible)."""
        n = min(self.workers, max(1, total // max(align, 1)))
        if n <= 1 or self._pool is None:
            self.call(handle, (0, total, *args))
            return
        bounds = [min(total, (total * i // n + align - 1) // align * align) for i in range(n)] + [total]
        futures = [self._pool.submit(self.call, handle, (bounds[i], bounds[i + 1], *args)) for i in range(1, n)]
        self.call(handle, (bounds[0], bounds[1], *args))
        for fut in futures:
            fut.result()

    # -- memory
    def memory_size(self) -> int:
        if self.shared:
            return self.memory.data_len()
        return self.memory.data_len(self.store)

    def grow(self, pages: int) -> int:
        try:
            if self.shared:
                self.memory.grow(pages)
            else:
                self.memory.grow(self.store, pages)
        except wasmtime.WasmtimeError as e:  # past the maximum, or the host is out of memory
            raise GrowError(f"the wasm memory ({self.memory_size()} bytes) cannot grow by "
                            f"{pages} pages: {e}") from None
        return self.memory_size()

    def _base(self) -> int:
        ptr = self.memory.data_ptr() if self.shared else self.memory.data_ptr(self.store)
        return ctypes.addressof(ptr.contents)

    def read(self, ptr: int, nbytes: int) -> bytes:
        assert 0 <= ptr and ptr + nbytes <= self.memory_size()
        return ctypes.string_at(self._base() + ptr, nbytes)

    def write(self, ptr: int, data) -> None:
        data = bytes(data)
        assert 0 <= ptr and ptr + len(data) <= self.memory_size()
        ctypes.memmove(self._base() + ptr, data, len(data))

    def close(self) -> None:
        """Release engine objects in dependency order (wasmtime-py cannot do it at
        interpreter exit, once its ffi module is torn down)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        self._main.clear()
        shared = [self.memory] if self.shared else []
        for obj in self._modules + self._stores + shared + [self.engine]:
            try:
                obj.close()
            except Exception:
                pass
        self._modules.clear()


def _i32(a: int) -> int:
    return ((a + (1 << 31)) % (1 << 32)) - (1 << 31)


_LIVE: "weakref.WeakSet[WasmtimeRuntime]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for rt in list(_LIVE):
        rt.close()


assert PAGE == 65536
