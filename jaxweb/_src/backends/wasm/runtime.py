"""The runtime protocol: what the wasm backend needs from a WebAssembly engine.

Codegen and scheduling are Python; a runtime only holds one linear memory and
the instantiated kernel modules, and runs them. Everything crossing the boundary
is an int or bytes, so a JavaScript implementation (Pyodide: `js_shim`, calling
`WebAssembly.Module`/`Instance` on a `Memory`) is a few lines per method.

Contract (all sizes in bytes; pages are 64 KiB):

- Every module imports its memory as `env.memory` (min pages = the size at
  codegen time, no maximum, not shared unless `shared` is true) and exports one
  function `run` taking only i32 parameters and returning nothing.
- `load(wasm) -> int`: compile and instantiate against the runtime's memory;
  return a handle. Raise (any exception) if the bytes do not validate.
- `unload(handle)`: the module will not be called again: release what it holds
  (an engine may keep instances until a whole group of them can go).
- `validate(wasm) -> bool`: whether the engine accepts the bytes (feature probes:
  SIMD128, relaxed SIMD). Never raises.
- `call(handle, args)`: call export `run` with `args` (a tuple of ints, each
  taken modulo 2**32 as i32). Synchronous; may trap (raise) only on a bug.
- `memory_size() -> int`: current size of the linear memory in bytes.
- `grow(pages) -> int`: grow by `pages`; returns the new size in bytes. Existing
  instances keep working on the grown memory. When the engine refuses (past its
  maximum, or out of memory) it raises `GrowError` and the memory is unchanged:
  a refused grow is an ordinary, recoverable error. A memory never shrinks.
- `max_pages`: the most pages the memory may reach (65536 = 4 GiB for wasm32; an
  engine may still refuse earlier, which `grow` reports).
- `read(ptr, nbytes) -> bytes` and `write(ptr, data)`: copy out of / into memory.
- `copy(dst, src, nbytes)`: copy within memory (memmove semantics).
  read, write and copy raise ValueError (`check_span`) for a range outside the memory.
- `shared`: whether the memory is a shared one (modules then import it as shared,
  with maximum 65536 pages).

Threads (optional): the first two args of every kernel's `run` are the
[start, end) range of its outermost loop, so disjoint ranges may run at once.

- `workers -> int`: how many can run at once (1 for a single-threaded runtime).
- `call_split(handle, total, args, align=1)`: run(start, end, *args) over
  [0, total) split into up to `workers` chunks (boundaries multiples of `align`
  where possible), in parallel; returns when all are done. A runtime with
  `workers > 1` uses a shared memory (modules then import `env.memory` as shared
  with maximum 65536 pages: the backend asks codegen for that when `workers > 1`)
  and one instance of each module per worker. In the browser: Web Workers, each
  instantiating the same `WebAssembly.Module` on the same shared `Memory`
  (needs crossOriginIsolated); without it, `workers = 1`.

Batches (optional): `batch()` is a context manager during which `call` and
`call_split` may be queued and run together, in order, at its end or before the
next `read`, `write`, `copy` or `grow` (whichever comes first): in Pyodide a whole
schedule is then one call into JavaScript instead of one per kernel.

Replays (optional, backends/wasm/replay.py): `encode(launches)` turns a list of
launches `(handle, total, args, align)` (align None: `call(handle, (0, total, *args))`,
else `call_split(handle, total, args, align)`) into the runtime's own prebuilt form,
and `replay(encoded)` runs it, in order, as those calls would (queued behind a batch's
launches, errors naming the kernel). `epoch` changes whenever an encoded list may name
something gone (a module unloaded) or stale (the memory grown): the caller encodes again.
"""
from __future__ import annotations

from typing import Protocol

PAGE = 65536
MAX_PAGES = 65536  # wasm32: 4 GiB


class GrowError(MemoryError):
    """The engine refused to grow a memory; the memory is as it was."""


class Runtime(Protocol):
    name: str
    max_pages: int

    def load(self, wasm: bytes) -> int: ...
    def validate(self, wasm: bytes) -> bool: ...
    def call(self, handle: int, args: tuple) -> None: ...
    def memory_size(self) -> int: ...
    def grow(self, pages: int) -> int: ...  # raises GrowError when refused
    def read(self, ptr: int, nbytes: int) -> bytes | bytearray: ...  # a fresh copy (Pyodide: a bytearray)
    def write(self, ptr: int, data: bytes) -> None: ...
    # optional (threads): workers: int; call_split(handle, total, args, align=1) -> None
    # optional (batches): batch() -> a context manager


def check_span(what: str, ptr: int, nbytes: int, size: int) -> None:
    """A ValueError unless [ptr, ptr + nbytes) lies in a memory of `size` bytes: a runtime's
    read, write and copy check with this before touching the memory (under wasmtime an
    unchecked access crashes the process; in Pyodide it is a JS RangeError naming nothing)."""
    if ptr < 0 or nbytes < 0 or ptr + nbytes > size:
        raise ValueError(f"wasm memory {what} of {nbytes} bytes at {ptr}: outside the memory [0, {size})")


def split_bounds(total: int, workers: int, align: int) -> list[int] | None:
    """Chunk boundaries of [0, total) for `call_split` (multiples of `align` where
    possible, one chunk per worker at most), or None when one chunk does it all."""
    n = min(workers, max(1, total // max(align, 1)))
    if n <= 1:
        return None
    return [min(total, (total * i // n + align - 1) // align * align) for i in range(n)] + [total]


def default_runtime() -> Runtime:
    """The best runtime available here; raises ImportError if there is none.

    In Pyodide (sys.platform "emscripten") that is the JS engine itself, through
    js_shim (`runtime_pyodide`); in CPython, wasmtime."""
    import sys
    errors = []
    if sys.platform == "emscripten":
        try:
            from .runtime_pyodide import PyodideRuntime
            return PyodideRuntime()
        except Exception as e:  # not loaded through js_shim
            errors.append(f"pyodide: {type(e).__name__}: {e}")
    try:
        from .runtime_wasmtime import WasmtimeRuntime
        return WasmtimeRuntime()
    except ImportError as e:
        errors.append(f"wasmtime: {e}")
    raise ImportError("no WebAssembly runtime available (" + "; ".join(errors) + ")")
