"""The wasm allocator alone (backends/wasm/allocator.py), on a runtime that only counts pages:
microseconds per allocation + free, on a heap with ~N free blocks (N = 10, 100, 1000).

    PYTHONPATH=$PWD python benchmarks/bench_wasm_alloc.py [--rounds R]

- plain: allocations without preferences (any jitted call that does not replay, eager ops),
  random sizes, each freed 8 allocations later;
- replay: a replayed call's outputs, `alloc_many` with each output preferring its addresses of
  the last two calls (replay_steps.take_outputs), the previous call's outputs freed after;
- replay + eager: the same with one allocation without preference between calls (a scalar made
  per step), which makes the allocator drop and rebuild its sorted list of free blocks.
Best of R rounds. Pure Python: runs in Pyodide too.
"""
import random
import sys
import time

from jaxweb._src.backends.wasm.allocator import Allocator
from jaxweb._src.backends.wasm.runtime import PAGE


class Pages:
    """A runtime that only counts pages (the allocator never touches memory)."""
    max_pages = 65536

    def __init__(self):
        self.pages = 16

    def memory_size(self) -> int:
        return self.pages * PAGE

    def grow(self, n: int) -> int:
        self.pages += n
        return self.memory_size()


def fragmented(nfree: int) -> tuple[Allocator, random.Random]:
    """An allocator whose heap has `nfree` free blocks between live ones."""
    a, rng = Allocator(Pages()), random.Random(0)
    ptrs = [a.alloc(rng.randrange(64, 1 << 16)) for _ in range(2 * nfree + 1)]
    for p in ptrs[1::2]:
        a.free(p)
    return a, rng


def plain(nfree: int, n: int = 10000) -> float:
    a, rng = fragmented(nfree)
    sizes = [rng.randrange(64, 1 << 16) for _ in range(n)]
    live: list[int] = []
    t = time.perf_counter()
    for s in sizes:
        live.append(a.alloc(s))
        if len(live) > 8:
            a.free(live.pop(0))
    return (time.perf_counter() - t) / n * 1e6


def replay(nfree: int, eager: bool, calls: int = 1000, outs: int = 12) -> float:
    a, rng = fragmented(nfree)
    sizes = [rng.randrange(64, 1 << 20) for _ in range(outs)]
    had: dict[int, tuple] = {}
    prev: list[int] = []
    t = 0.0
    for call in range(calls + 10):
        if call == 10:  # the addresses have settled
            t = time.perf_counter()
        got = a.alloc_many(sizes, [had.get(i, ()) for i in range(outs)])
        for i, p in enumerate(got):
            was = had.get(i)
            had[i] = (was[-1], p) if was else (p,)
        for p in prev:
            a.free(p)
        prev = got
        if eager:
            a.free(a.alloc(64))
    return (time.perf_counter() - t) / (calls * (outs + eager)) * 1e6


def main() -> None:
    argv = sys.argv[1:]
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 3
    print(f"wasm allocator: us per allocation + free, best of {rounds}")
    print("| free blocks | plain | replay | replay + eager |\n| ---: | ---: | ---: | ---: |")
    for nfree in (10, 100, 1000):
        p = min(plain(nfree) for _ in range(rounds))
        r = min(replay(nfree, False) for _ in range(rounds))
        e = min(replay(nfree, True) for _ in range(rounds))
        print(f"| {nfree} | {p:.3f} | {r:.3f} | {e:.3f} |", flush=True)


if __name__ == "__main__":
    main()
