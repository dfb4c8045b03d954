"""What the two GPU devices (webgpu, webgl) share beyond the op tables: the errors, the buffer
pool, and the contract around a lost device.

Both devices defer work (`execute` appends to a pending list, `submit` ends with one `flush`),
keep freed buffers in a pool of size classes, and number their devices (`gen`: +1 after each
loss) so that a handle made by a lost device raises `DeviceLostError` instead of reading
garbage. The subclasses say how a device is made, flushed and asked whether it was lost
(`rt.lost()`, `_renew`, `_lost`, `flush`).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ... import dtypes
from ..base import Backend

#: renderer/adapter names of CPU implementations (never chosen by default)
SOFTWARE_NAMES = ("llvmpipe", "lavapipe", "swiftshader", "softpipe", "warp", "software", "basic render")


def is_software(*names: str) -> bool:
    text = " ".join(names).lower()
    return any(s in text for s in SOFTWARE_NAMES)


class DeviceLostError(RuntimeError):
    """The GPU device was lost (driver reset, GPU removed, tab in the background too long,
    `device.destroy()`, a lost WebGL context): arrays it held are gone; the backend makes a
    new device."""


def numbered(code: str) -> str:
    return "\n".join(f"{i + 1:4d}  {line}" for i, line in enumerate(code.splitlines()))


class ShaderError(RuntimeError):
    """A GPU error (compilation, validation, out of memory) with the shader it happened in."""

    lang = "shader"

    def __init__(self, message: str, code: str = ""):
        self.code = code
        text = message if not code else f"{message}\n--- generated {self.lang} ---\n{numbered(code)}"
        super().__init__(text)


def size_class(nbytes: int) -> int:
    """nbytes rounded up to 2**k * (4, 5, 6 or 7) / 4, at least 256 (whole 16-byte texels too)."""
    n = max(nbytes, 256)
    top = 1 << (n - 1).bit_length()
    step = top // 8
    return -(-n // step) * step


class Handle:
    """A pooled GPU buffer (`buf`: the runtime's buffer or texture, `cap` bytes), or a view of
    one from byte `off`, made by the backend's device number `gen` (a new one after each loss)."""

    __slots__ = ("buf", "cap", "off", "base", "gen")

    def __init__(self, buf: Any, cap: int, off: int = 0, base: "Handle | None" = None, gen: int = 0):
        self.buf, self.cap, self.off, self.base, self.gen = buf, cap, off, base, gen


class Pool:
    """Free GPU buffers by size class, at most a byte limit, the least recently freed dropped
    first to make room. An entry is what the backend keeps for a buffer (webgpu: its `Handle`, so
    that taking one back makes nothing; webgl: the texture), matched by identity."""

    def __init__(self):
        self.free: dict[int, list] = {}  # size class -> free buffers (last freed last)
        self.lru: OrderedDict[int, tuple] = OrderedDict()  # id(buf) -> (class, buf), oldest first
        self.bytes = 0

    def take(self, cap: int, prefer: tuple = ()) -> Any:
        """A free buffer of class `cap`: the first of `prefer` that is free (webgpu replay.py's
        memory plan), else the last freed; or None."""
        return self.take_many((cap,), (prefer,))[0]

    def take_many(self, caps: list[int], prefer: list[tuple]) -> list:
        """`take(cap, want)` for each pair (a replayed call's outputs: webgpu `alloc_many`);
        None where the pool has no buffer of that class. One loop, no call per buffer: a
        training step takes one per output, every call."""
        pools, lru, out = self.free, self.lru, []
        for cap, want in zip(caps, prefer):
            free = pools.get(cap)
            if not free:
                out.append(None)
                continue
            for buf in want:
                entry = lru.get(id(buf))
                if entry is not None and entry[1] is buf and entry[0] == cap:
                    if free[-1] is not buf:
                        i = len(free) - 2
                        while free[i] is not buf:  # from the top: it was freed recently
                            i -= 1
                        free[i], free[-1] = free[-1], buf
                    break
            buf = free.pop()
            del lru[id(buf)]
            self.bytes -= cap
            out.append(buf)
        return out

    def give(self, cap: int, buf: Any, limit: int) -> list:
        """Keep `buf` (of class `cap`) within `limit` bytes; returns the buffers to destroy
        (the least recently freed, or `buf` itself when it alone is over the limit)."""
        if cap > limit:
            return [buf]
        gone = []
        while self.bytes + cap > limit:
            old_cap, old = self.lru.popitem(last=False)[1]
            self.free[old_cap].remove(old)
            self.bytes -= old_cap
            gone.append(old)
        self.free.setdefault(cap, []).append(buf)
        self.lru[id(buf)] = (cap, buf)
        self.bytes += cap
        return gone

    def clear(self) -> None:
        self.free, self.bytes = {}, 0
        self.lru.clear()

    def __len__(self) -> int:
        return len(self.lru)


class GPUBackend(Backend):
    """The webgpu and webgl backends' common part (see the module doc). A subclass sets
    `device_name` ("WebGPU device", "WebGL context"), `dtype_check` (its op tables'
    check_dtype) and `grain` (the bytes its runtime reads and writes in: a word, a texel),
    says where byte `lo` is for its runtime (`_at`, `_extent`), and has `rt` (with `lost()`,
    `read`, `write`), `gen`, `lost_reason`, `_pending`, `_after`, `_renew(reason)`,
    `_lost(error)` and `flush()`."""

    device_name = "GPU device"
    dtype_check = None
    grain = 4
    _scratch: Any = None  # set while a replay runs kernels: where their temporaries come from

    def _at(self, lo: int) -> int:
        """Byte `lo` (a multiple of `grain`) as the runtime's position."""
        return lo

    def _extent(self, lo: int, hi: int) -> tuple:
        """Bytes [lo, hi) as the runtime's read arguments after the buffer."""
        return lo, hi - lo

    def _renew_if_lost(self) -> None:
        """Before new work: a device lost since the last call is replaced (cheap check)."""
        reason = self.rt.lost()
        if reason:
            self._renew(reason)

    def _raise_if_lost(self, error: Exception) -> None:
        """Raise DeviceLostError (from `error`) if the device is gone (then replaced: `_lost`); else return."""
        lost = self._lost(error)
        if lost is not error:
            raise lost from error

    def _live(self, handle: Any) -> Any:
        if handle.gen != self.gen:
            raise DeviceLostError(f"this array was on a {self.device_name} that was lost ({self.lost_reason}); "
                                  f"its values are gone: recompute it")
        return handle

    def _lost_message(self, reason: str) -> str:
        return (f"the {self.device_name} was lost ({reason}): arrays on it are gone; jaxweb made a new "
                f"{self.device_name.split()[-1]} for what follows. Recompute them (or keep copies on another "
                f"device with jax.device_put).")

    def _trust_readback(self) -> None:
        """A browser's lost device may still hand back bytes: never trust them."""
        if self.rt.lost():
            raise self._lost(RuntimeError("lost during a readback"))

    # ------------------------------------------------------------ memory
    def offset(self, handle: Handle, nbytes: int) -> Handle:
        root = handle.base or handle
        return Handle(root.buf, root.cap, handle.off + nbytes, root, root.gen)

    def _span(self, off: int, nbytes: int) -> tuple[int, int]:
        g = self.grain
        return off // g * g, -(-(off + nbytes) // g) * g

    def _read_span(self, buf: Any, lo: int, hi: int):
        try:
            data = self.rt.read(buf, *self._extent(lo, hi))
        except Exception as e:
            raise self._lost(e) from e
        self._trust_readback()
        return data

    def write(self, handle: Handle, data) -> None:
        data = bytes(data)
        if not data:
            return
        self._live(handle)
        self.flush()
        off, end = handle.off, handle.off + len(data)
        lo, hi = self._span(off, len(data))
        if lo != off or hi != end:  # the runtime writes whole grains: merge with the bytes around
            whole = bytearray(self._read_span(handle.buf, lo, hi))
            whole[off - lo: end - lo] = data
            data = bytes(whole)
        try:
            self.rt.write(handle.buf, self._at(lo), data)
        except Exception as e:
            raise self._lost(e) from e

    def read(self, handle: Handle, nbytes: int) -> memoryview:
        if nbytes == 0:
            return memoryview(b"")
        self._live(handle)
        self.flush()
        lo, hi = self._span(handle.off, nbytes)
        return memoryview(self._read_span(handle.buf, lo, hi))[handle.off - lo: handle.off - lo + nbytes]

    async def read_async(self, handle: Handle, nbytes: int) -> memoryview:
        """`read` awaiting the runtime's readback (a promise, a fenced pixel-pack buffer) instead
        of blocking, where it has one."""
        reader = getattr(self.rt, "read_async", None)
        if reader is None or nbytes == 0:
            return self.read(handle, nbytes)
        self._live(handle)
        self.flush()
        lo, hi = self._span(handle.off, nbytes)
        try:
            data = await reader(handle.buf, *self._extent(lo, hi))
        except Exception as e:
            raise self._lost(e) from e
        self._trust_readback()
        return memoryview(data)[handle.off - lo: handle.off - lo + nbytes]

    def check_dtype(self, dt: Any) -> None:
        if dt is dtypes.float0:  # integer inputs' tangents hold no bytes (grad with int arguments)
            return
        # complex arrays are pairs of their real part's dtype by the time kernels see them
        type(self).dtype_check(dtypes.real_part_dtype(dt))

    def _temp(self, nbytes: int) -> Any:
        """A buffer freed once the pending commands have been handed over (`_scratch`'s while a
        replay runs kernels, webgpu/replay.py: its pool holds buffers still to be read)."""
        if self._scratch is not None:
            return self._scratch(nbytes)
        h = self.alloc(nbytes)
        self._after.append(h)
        return h

    def submit(self, prepared, inputs, alloc=None, free=None):
        if not self._pending:
            self._renew_if_lost()
        try:
            return super().submit(prepared, inputs, alloc, free)
        finally:
            self.flush()

    async def synchronize_async(self) -> None:
        self.flush()
        waiter = getattr(self.rt, "finish_async", None)
        if waiter is not None:
            await waiter()

    def synchronize(self) -> None:
        """Hand over what is pending and wait until the GPU finished it (`block_until_ready`)."""
        self.flush()
        try:
            self.rt.finish()
        except Exception as e:
            raise self._lost(e) from e
        if self.rt.lost():
            raise self._lost(RuntimeError("lost while finishing"))
