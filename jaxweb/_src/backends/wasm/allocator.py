"""One allocator over the runtime's linear memory: segregated free lists with
splitting and coalescing (in the manner of TLSF), grown on demand.

Why this shape: a wasm memory can grow but never shrink, so the peak size of the
heap is what a page keeps for good. Blocks are therefore sized to the request
(no power-of-two classes), free blocks merge with their neighbours at once, and
memory grows by what is needed, not by doubling.

- A block is the request rounded up to `ALIGN` = 64 bytes (v128 loads stay
  aligned): internal waste is under 64 bytes per buffer. Zero-byte buffers get a
  real 64-byte block so kernels may read their (masked) first element. Offsets
  0..63 are never handed out, so a null pointer is never a buffer.
- Free blocks sit in size bins: one bin per size up to 1 KiB, then `1 << SUB_BITS`
  bins per power of two. A request takes the best fit among the first `SCAN`
  blocks of its own bin, else the smallest of the first `SCAN` blocks of the next
  non-empty bin (found with a bitmap); the rest of the block is split off as a
  free block.
- A freed block merges with free neighbours; a free run that reaches the top of
  the heap goes back to the untouched tail, so a later large request can use it.
- When nothing fits, the top moves up; past the end of memory, memory grows by
  what is needed rounded up to a chunk (`max(1 MiB, memory / 8)`: few grows, small
  overshoot), retried with exactly what is needed, never past the engine's
  maximum (`runtime.max_pages`, 65536 pages = 4 GiB for wasm32). The heap's state
  changes only after the memory is large enough, so a refused request leaves
  everything as it was and raises `ResourceExhaustedError` (RESOURCE_EXHAUSTED).

- A request may name addresses it prefers (`prefer`, set around `alloc` by the
  replay's memory plan, replay.py): the first one that lies in free memory with
  room for the block is taken there, the free block around it split. A jitted
  training loop then gets the same few addresses every step, and replays. Finding
  the free block that holds an address needs the free blocks' starts in order;
  that sorted list is built on the first preference and kept up to date while
  preferences keep coming, and dropped at the first allocation that asks none,
  so ordinary allocations and frees never pay for it.

Frees can arrive from garbage-collector finalizers in the middle of an
allocation; they are deferred until the allocator is consistent again.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right, insort

from ...errors import ResourceExhaustedError
from .runtime import PAGE, GrowError

ALIGN = 64
SMALL = 16  # bins 1..15 hold blocks of exactly 64 * bin bytes
SUB_BITS = 3  # then 8 bins per power of two
SCAN = 16  # blocks looked at per bin when choosing the best fit
MAX_PAGES = 65536  # wasm32: 4 GiB
GROW_MIN_PAGES = 16  # 1 MiB
GROW_FRACTION = 8  # grow by at least 1/8 of the memory


def bin_of(size: int) -> int:
    """The bin of a block of `size` bytes (a positive multiple of ALIGN); monotone in size."""
    g = size >> 6
    if g < SMALL:
        return g
    fl = g.bit_length() - 1
    return SMALL + ((fl - 4) << SUB_BITS) + ((g >> (fl - SUB_BITS)) & ((1 << SUB_BITS) - 1))


NBINS = bin_of(MAX_PAGES * PAGE) + 1


class Allocator:
    """Offsets into `runtime`'s memory: `alloc(nbytes) -> ptr`, `free(ptr)`."""

    def __init__(self, runtime, limit: int | None = None):
        self.rt = runtime
        self.limit = limit if limit is not None else getattr(runtime, "max_pages", MAX_PAGES) * PAGE
        self.top = ALIGN  # the heap is [ALIGN, top); beyond it the memory is untouched
        self.used: dict[int, int] = {}  # ptr -> block size
        self.free_at: dict[int, int] = {}  # free block ptr -> size
        self.free_end: dict[int, int] = {}  # free block end -> ptr
        self.starts: list[int] | None = None  # free block ptrs, sorted, while preferences come
        self.prefer: tuple = ()  # addresses the next `alloc` takes first where free (replay.py)
        self.bins: list[dict[int, None]] = [{} for _ in range(NBINS)]
        self.nonempty = 0  # bit b set when bins[b] has blocks
        self.in_use = self.peak = self.num_allocs = self.largest_alloc = 0
        self._busy = False
        self._deferred: list[int] = []

    # ------------------------------------------------------------ public
    @staticmethod
    def block_bytes(nbytes: int) -> int:
        """The size of the block a request of `nbytes` gets."""
        return max(ALIGN, (nbytes + ALIGN - 1) // ALIGN * ALIGN)

    def alloc(self, nbytes: int) -> int:
        """A 64-byte aligned block of at least `nbytes`; ResourceExhaustedError if none fits."""
        size = self.block_bytes(nbytes)
        if size > self.limit - ALIGN:
            raise self._exhausted(nbytes)
        prefer = self.prefer
        if not prefer:
            self.starts = None  # no preference: stop keeping the sorted starts
        self._busy = True
        try:
            ptr = None
            for want in prefer:
                ptr = self._take_at(want, size, nbytes)
                if ptr is not None:
                    break
            else:
                ptr = self._take_free(size)
            if ptr is None:
                ptr = self._take_top(nbytes, size)
            self.used[ptr] = size
            self.in_use += size
            self.num_allocs += 1
            self.peak = max(self.peak, self.in_use)
            self.largest_alloc = max(self.largest_alloc, size)
        finally:
            self._busy = False
            if self._deferred:
                self._drain()
        return ptr

    def alloc_many(self, sizes: list[int], prefer: list[tuple]) -> list[int]:
        """`alloc` of each of `sizes`, each preferring the addresses in its `prefer` (a replayed
        call's outputs): all or none, those made given back if one fails."""
        out: list[int] = []
        try:
            for nbytes, want in zip(sizes, prefer):
                self.prefer = want
                out.append(self.alloc(nbytes))
        except BaseException:
            for ptr in out:
                self.free(ptr)
            raise
        finally:
            self.prefer = ()
        return out

    def free(self, ptr: int) -> None:
        if self._busy:
            self._deferred.append(ptr)
            return
        self._busy = True
        try:
            self._release(ptr)
        finally:
            self._busy = False
            if self._deferred:
                self._drain()

    def block_size(self, ptr: int) -> int:
        """Bytes of the live block at `ptr` (readable from ptr)."""
        return self.used[ptr]

    def available(self) -> int:
        """The largest request that could succeed now (a free block, or the tail)."""
        return max(self.largest_free_block(), self.limit - self.top)

    def largest_free_block(self) -> int:
        if not self.nonempty:
            return 0
        b = self.nonempty.bit_length() - 1
        return max(self.free_at[p] for p in self.bins[b])

    def stats(self) -> dict[str, int]:
        """XLA's allocator statistics (the keys of `Device.memory_stats()`)."""
        reserved = self.rt.memory_size()
        return {"bytes_in_use": self.in_use, "peak_bytes_in_use": self.peak, "bytes_limit": self.limit,
                "num_allocs": self.num_allocs, "largest_alloc_size": self.largest_alloc,
                "bytes_reserved": reserved, "peak_bytes_reserved": reserved,  # a wasm memory never shrinks
                "largest_free_block_bytes": self.available()}

    # ------------------------------------------------------------ free blocks
    def _link(self, ptr: int, size: int) -> None:
        if self.starts is not None:
            insort(self.starts, ptr)
        self.free_at[ptr] = size
        self.free_end[ptr + size] = ptr
        b = bin_of(size)
        self.bins[b][ptr] = None
        self.nonempty |= 1 << b

    def _unlink(self, ptr: int) -> int:
        if self.starts is not None:
            del self.starts[bisect_left(self.starts, ptr)]
        size = self.free_at.pop(ptr)
        del self.free_end[ptr + size]
        b = bin_of(size)
        blocks = self.bins[b]
        del blocks[ptr]
        if not blocks:
            self.nonempty &= ~(1 << b)
        return size

    def _best_in(self, b: int, size: int) -> int | None:
        best, best_size = None, 0
        for n, p in enumerate(self.bins[b]):
            s = self.free_at[p]
            if s >= size and (best is None or s < best_size):
                best, best_size = p, s
                if s == size:
                    break
            if n + 1 >= SCAN:
                break
        return best

    def _take_free(self, size: int) -> int | None:
        b = bin_of(size)
        ptr = self._best_in(b, size) if self.bins[b] else None
        if ptr is None:
            higher = self.nonempty >> (b + 1)
            if not higher:
                return None
            ptr = self._best_in(b + (higher & -higher).bit_length(), size)
        rest = self._unlink(ptr) - size
        if rest:
            self._link(ptr + size, rest)  # never ends at top: free blocks there merge into it
        return ptr

    def _take_at(self, ptr: int, size: int, nbytes: int) -> int | None:
        """A block of `size` at `ptr` if that memory is free (in a free block, or past the
        top: the gap below it then becomes a free block), else None."""
        if ptr >= self.top:
            if ptr + size > self.limit:
                return None
            try:
                self._ensure(ptr + size, nbytes)
            except ResourceExhaustedError:  # a preference only: allocate as usual
                return None
            if ptr > self.top:
                self._link(self.top, ptr - self.top)
            self.top = ptr + size
            return ptr
        starts = self.starts
        if starts is None:
            starts = self.starts = sorted(self.free_at)
        i = bisect_right(starts, ptr) - 1
        if i < 0:
            return None
        start = starts[i]
        end = start + self.free_at[start]
        if ptr + size > end:
            return None
        self._unlink(start)
        if ptr > start:
            self._link(start, ptr - start)
        if end > ptr + size:
            self._link(ptr + size, end - ptr - size)
        return ptr

    def _release(self, ptr: int) -> None:
        size = self.used.pop(ptr)
        self.in_use -= size
        prev = self.free_end.get(ptr)
        if prev is not None:
            size += self._unlink(prev)
            ptr = prev
        if ptr + size in self.free_at:
            size += self._unlink(ptr + size)
        if ptr + size == self.top:
            self.top = ptr
        else:
            self._link(ptr, size)

    def _drain(self) -> None:
        while self._deferred:
            self.free(self._deferred.pop())

    # ------------------------------------------------------------ growth
    def _take_top(self, nbytes: int, size: int) -> int:
        end = self.top + size
        if end > self.limit:
            raise self._exhausted(nbytes)
        self._ensure(end, nbytes)
        ptr, self.top = self.top, end
        return ptr

    def _ensure(self, end: int, nbytes: int) -> None:
        have = self.rt.memory_size()
        if end <= have:
            return
        need = -(-(end - have) // PAGE)
        room = (self.limit - have) // PAGE
        if need > room:
            raise self._exhausted(nbytes)
        want = min(room, max(need, GROW_MIN_PAGES, have // PAGE // GROW_FRACTION))
        for pages in dict.fromkeys((want, need)):
            try:
                self.rt.grow(pages)
                return
            except (GrowError, MemoryError):
                continue
        raise self._exhausted(nbytes, room=have - self.top)  # the engine refused: only what it has

    def _exhausted(self, nbytes: int, room: int | None = None) -> ResourceExhaustedError:
        room = self.limit - self.top if room is None else room
        return ResourceExhaustedError(nbytes, max(self.largest_free_block(), room), self.in_use, self.limit)
