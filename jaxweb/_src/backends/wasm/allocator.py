"""One allocator over the runtime's linear memory.

Buffers are rounded up to power-of-two size classes (64 B minimum, so every
buffer is 64-byte aligned: good for v128 loads) and freed blocks go to a free list
per class for reuse. New blocks come from a bump pointer; when it passes the end
of memory, memory grows (at least doubling, to keep growth rare). Offset 0..63 is
never handed out, so a null pointer is never a valid buffer. Zero-byte buffers get
a real 64-byte block so kernels may read their (masked) first element safely.
"""
from __future__ import annotations

from .runtime import PAGE

MIN_CLASS = 6  # 64 bytes


class Allocator:
    def __init__(self, runtime):
        self.rt = runtime
        self.top = 1 << MIN_CLASS
        self.free_lists: dict[int, list[int]] = {}
        self.sizes: dict[int, int] = {}
        self.live_bytes = 0

    @staticmethod
    def size_class(nbytes: int) -> int:
        return max(MIN_CLASS, (max(nbytes, 1) - 1).bit_length())

    def alloc(self, nbytes: int) -> int:
        c = self.size_class(nbytes)
        fl = self.free_lists.get(c)
        if fl:
            ptr = fl.pop()
        else:
            ptr = self.top
            self.top += 1 << c
            self._ensure(self.top)
        self.sizes[ptr] = c
        self.live_bytes += 1 << c
        return ptr

    def free(self, ptr: int) -> None:
        c = self.sizes.pop(ptr)
        self.live_bytes -= 1 << c
        self.free_lists.setdefault(c, []).append(ptr)

    def _ensure(self, end: int) -> None:
        size = self.rt.memory_size()
        if end <= size:
            return
        want = max(end, 2 * size)
        self.rt.grow((want - size + PAGE - 1) // PAGE)
