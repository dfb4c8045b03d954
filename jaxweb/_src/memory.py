"""Device memory: the allocation path of Buffers and `Device.memory_stats()`.

Every Buffer is allocated here, so an out-of-memory failure always surfaces as
one error type with one message, naming what was asked for: a
`ResourceExhaustedError` (a `jaxweb.errors.JaxRuntimeError` whose message starts
`RESOURCE_EXHAUSTED:`, as JAX's does), raised before anything was allocated, so
the device stays usable. Backends raise it themselves when they know their
ceiling (the wasm allocator); a host `MemoryError` (numpy on `cpu`) is turned
into it here.

Returned sets. A jitted call's outputs are made and dropped together, call after call (a training
loop's step replaces its parameters by the ones it returns). Where the backend can say whether
memory may be handed out again as it is (`reusable`: webgpu), a dead output Buffer only notes its
memory in `Device.returned` (one dict store, no free path), and the next replayed call that asks
for exactly those buffers again (`Allocator.many`, preferring what each output had one or two
calls ago: backends/replay_steps.py) takes them straight back: no pool, no free, nothing counted
twice. Anything else first hands the noted memory back the ordinary way (`drain`): every other
allocation on the device, statistics, a call that wants other buffers. So the pool, the counts
and the host-memory check see what they saw before, only later.

Statistics use XLA's names. A backend that keeps its own (`memory_stats()`, or
an `allocator` with `stats()`, as the wasm backend does: it also counts kernel
temporaries) answers for itself; otherwise the counts are those of the Buffers
allocated here, with the host's physical memory as the limit.
"""
from __future__ import annotations

import os
import weakref
from typing import Any

from .errors import ResourceExhaustedError

# id(device) -> [bytes_in_use, peak_bytes_in_use, num_allocs, largest_alloc_size, the host's memory
# as the limit checked before allocating (0: none, where the backend tracks its own memory), a weak
# reference to the device (a new device may get a dead one's id: `_counts`)]
_COUNTS: dict[int, list] = {}


def _counts(device: Any) -> list | None:
    """`device`'s entry of `_COUNTS`, None before its first allocation."""
    counts = _COUNTS.get(id(device))
    return counts if counts is not None and counts[5]() is device else None


def alloc(device: Any, nbytes: int, dtype: Any = None, size: int | None = None,
          context: str | None = None) -> Any:
    """A backend handle of `nbytes` bytes on `device`. `dtype[size]` and `context`
    (the operation, its shape) describe the request if it does not fit."""
    if device.returned:
        drain(device)
    backend = device.backend
    check = getattr(backend, "check_dtype", None)  # devices without some dtypes (webgpu: no 64-bit)
    if check is not None and dtype is not None:
        check(dtype)
    return _allocated(device, [nbytes], lambda: backend.alloc(nbytes), describe(dtype, size, context))


def _allocated(device: Any, sizes: list[int], make: Any, what: str) -> Any:
    """`make()` (the backend allocating buffers of `sizes` bytes), refused first where the
    host's memory could not hold them, its failures as `ResourceExhaustedError` naming `what`;
    counted in the device's statistics."""
    counts = _counts(device)
    if counts is None:
        counts = _COUNTS[id(device)] = [0, 0, 0, 0, 0 if _tracks_itself(device.backend) else host_memory_bytes(),
                                        weakref.ref(device)]
    nbytes = sum(sizes)
    try:
        limit = counts[4]
        if limit and counts[0] + nbytes > limit:  # would only end in the OOM killer
            raise ResourceExhaustedError(nbytes, max(0, limit - counts[0]), counts[0], limit)
        made = make()
    except ResourceExhaustedError as e:
        raise e.with_context(what, str(device)) from None
    except MemoryError:  # the host refused (numpy on cpu)
        raise ResourceExhaustedError(nbytes, _host_available(), counts[0], host_memory_bytes(), str(device),
                                     what) from None
    counts[0] += nbytes
    counts[1] = max(counts[1], counts[0])
    counts[2] += len(sizes)
    counts[3] = max(counts[3], max(sizes, default=0))
    return made


class Allocator:
    """`alloc` and `free` on one device as a schedule's run takes them (`Backend.submit`), made
    once per device. `many` allocates several buffers in one step, through the backend's
    `alloc_many` (wasm, webgpu: a replayed jitted call's outputs, each preferring given buffers)."""

    __slots__ = ("device",)

    def __init__(self, device: Any):
        self.device = device

    def __call__(self, nbytes: int, what: str | None = None) -> Any:
        return alloc(self.device, nbytes, context=what)

    def free(self, handle: Any, nbytes: int) -> None:
        free(self.device, handle, nbytes)

    def many(self, sizes: list[int], older: list, old: list, what: str) -> list:
        """Buffers of `sizes` bytes, each taking first the handle it had two calls ago (`older`),
        then one call ago (`old`; None: none)."""
        device = self.device
        if device.returned:
            made = _taken_back(device, sizes, older, old)
            if made is not None:
                return made
            drain(device)
        backend = device.backend
        prefer = list(map(_preferences, older, old))
        return _allocated(device, sizes, lambda: backend.alloc_many(sizes, prefer), what)


def _preferences(older: Any, old: Any) -> tuple:
    """What a buffer takes first (the backends' `alloc_many`), from its handles of two calls ago
    and of one call ago."""
    return () if old is None else (old,) if older is None else (older, old)


def allocator(device: Any) -> Allocator:
    """The device's `Allocator` (one per device)."""
    a = _ALLOCATORS.get(id(device))
    if a is None or a.device is not device:
        a = _ALLOCATORS[id(device)] = Allocator(device)
    return a


_ALLOCATORS: dict[int, Allocator] = {}


def describe(dtype: Any, size: int | None, context: str | None) -> str:
    """'float32[1073741824] in add' (as much of it as is known)."""
    what = f"{dtype.name}[{size}]" if dtype is not None and size is not None else ""
    if context:
        what = f"{what} in {context}" if what else context
    return what


def _taken_back(device: Any, sizes: list[int], older: list, old: list) -> list | None:
    """`Allocator.many`'s buffers as the noted memory of dead outputs (`Device.returned`): what
    each had two calls ago (`older`) where all of them are there, else one call ago (`old`);
    None where neither set is all there, or the backend says it cannot be handed out as it is
    (`reusable`: made by a device since lost, a write queued for it)."""
    ret = device.returned
    for want in (older, old):
        if None not in want and all(map(ret.__contains__, want)):
            break
    else:
        return None
    if not device.backend.reusable(want):  # (one call's buffers: no two outputs had the same)
        return None
    counts = _counts(device)
    counts[0] += sum(sizes) - sum(map(ret.pop, want))
    # the peak leaves out dead outputs still noted (bytes_in_use counts them until drained)
    counts[1] = max(counts[1], counts[0] - (sum(ret.values()) if ret else 0))
    counts[2] += len(sizes)
    return want


def drain(device: Any) -> None:
    """Free the noted memory of dead outputs (`Device.returned`) the ordinary way (one at a time:
    a Buffer dying meanwhile, in a collection, may note more)."""
    ret = device.returned
    while ret:
        free(device, *ret.popitem())


def free(device: Any, handle: Any, nbytes: int) -> None:
    """Give a Buffer's memory back (its finalizer)."""
    device.backend.free(handle)
    counts = _counts(device)
    if counts is not None:
        counts[0] -= nbytes


def stats(device: Any) -> dict[str, int]:
    """`Device.memory_stats()`: bytes_in_use, peak_bytes_in_use, bytes_limit, num_allocs,
    largest_alloc_size (and, where the backend knows them, bytes_reserved and
    largest_free_block_bytes)."""
    if device.returned:
        drain(device)
    backend = device.backend
    own = getattr(backend, "memory_stats", None)
    if own is not None:
        return dict(own())
    allocator = getattr(backend, "allocator", None)
    if allocator is not None and hasattr(allocator, "stats"):
        return dict(allocator.stats())
    in_use, peak, num, largest = (_counts(device) or [0, 0, 0, 0])[:4]
    return {"bytes_in_use": in_use, "peak_bytes_in_use": peak, "bytes_limit": host_memory_bytes(),
            "num_allocs": num, "largest_alloc_size": largest}


def _tracks_itself(backend: Any) -> bool:
    return hasattr(backend, "memory_stats") or hasattr(getattr(backend, "allocator", None), "stats")


def host_memory_bytes() -> int:
    """Physical memory of this machine (0 where the OS does not say)."""
    if not _HOST:
        try:
            _HOST.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        except (AttributeError, ValueError, OSError):
            _HOST.append(0)
    return _HOST[0]


_HOST: list[int] = []


def _host_available() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0
