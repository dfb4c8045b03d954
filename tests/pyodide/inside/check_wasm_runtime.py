"""The wasm runtime protocol (backends/wasm/runtime.py) on PyodideRuntime, in the JS engine."""
import struct

import pytest

from jaxweb._src.backends.wasm.runtime import PAGE
from jaxweb._src.backends.wasm.runtime_pyodide import PyodideRuntime

# imports env.memory (min 1 page), exports run(ptr, value) = i32.store
RUN_STORE = bytes.fromhex(
    "0061736d01000000" "01060160027f7f00" "020f0103656e76066d656d6f7279020001"
    "03020100" "070701037275 6e0000".replace(" ", "") + "0a0b010900200020013602000b")


@pytest.fixture
def rt():
    return PyodideRuntime(initial_pages=2, threads=1)  # the hand-made modules import unshared memory


def test_load_call_read_write(rt):
    assert rt.validate(RUN_STORE)
    h = rt.load(RUN_STORE)
    rt.call(h, (256, -5))
    assert struct.unpack("<i", rt.read(256, 4))[0] == -5
    rt.call(h, (260, 0xFFFFFFFF))  # taken modulo 2**32 as i32
    assert rt.read(260, 4) == b"\xff\xff\xff\xff"
    rt.write(300, b"abcd")
    assert rt.read(300, 4) == b"abcd"
    rt.write(0, b"")


def test_accesses_outside_the_memory_raise_value_error(rt):
    """read, write, write_soon and copy check their range (not with `assert`, which `python -O`
    drops) before touching anything, naming the operation and the range, as wasmtime's do."""
    end = rt.memory_size()
    rt.write(end - 4, b"abcd")
    for bad, what in ((lambda: rt.read(end - 4, 8), "read of 8 bytes at"), (lambda: rt.read(-4, 4), "read"),
                      (lambda: rt.write(end - 2, b"abcd"), "write of 4 bytes at"),
                      (lambda: rt.write_soon(end, b"abcd"), "write of 4 bytes at"),
                      (lambda: rt.copy(end - 4, 0, 8), "copy destination"),
                      (lambda: rt.copy(0, end - 4, 8), "copy source")):
        with pytest.raises(ValueError, match=f"wasm memory {what}.*outside the memory \\[0, {end}\\)"):
            bad()
    assert rt.read(end - 4, 4) == b"abcd" and rt._soon is None


def test_validate_never_raises(rt):
    assert rt.validate(b"\x00asm") is False
    assert rt.validate(b"not wasm") is False
    with pytest.raises(Exception):
        rt.load(b"not wasm")


def test_grow_keeps_instances_working(rt):
    h = rt.load(RUN_STORE)
    assert rt.memory_size() == 2 * PAGE
    assert rt.grow(3) == 5 * PAGE
    rt.call(h, (4 * PAGE + 8, 77))
    assert struct.unpack("<i", rt.read(4 * PAGE + 8, 4))[0] == 77


def test_two_modules_share_memory(rt):
    a, b = rt.load(RUN_STORE), rt.load(RUN_STORE)
    rt.call(a, (64, 1))
    rt.call(b, (68, 2))
    assert struct.unpack("<2i", rt.read(64, 8)) == (1, 2)


def test_large_roundtrip_is_exact_and_quick(rt):
    import time
    n = 8 << 20
    rt.grow(n // PAGE + 1)
    data = bytes(range(256)) * (n // 256)
    t0 = time.perf_counter()
    rt.write(PAGE, data)
    back = rt.read(PAGE, n)
    dt = time.perf_counter() - t0
    assert back == data
    print(f"8 MiB write+read: {dt * 1e3:.1f} ms")
    assert dt < 2.0
    buf = bytearray(16)
    rt.write(PAGE + 3, memoryview(b"xyz"))
    assert rt.read(PAGE + 3, 3) == b"xyz" and len(buf) == 16


def test_big_reads_are_fresh_whole_copies(rt):
    """`read` hands out an uninitialized bytearray that the shim fills whole: every byte is the
    memory's, even where the allocator reuses the last read's freed block, and writing into
    the result leaves the memory as it was."""
    n = 1 << 20
    rt.grow(2 * n // PAGE + 1)
    a, b = bytes(range(256)) * (n // 256), bytes(reversed(range(256))) * (n // 256)
    rt.write(PAGE, a)
    rt.write(PAGE + n, b)
    first = rt.read(PAGE, n)
    assert first == a
    first[:4] = b"XXXX"
    assert rt.read(PAGE, 4) == a[:4]
    del first
    assert rt.read(PAGE + n, n) == b
    assert rt.read(PAGE, 0) == b""


def _fill_module(shared: bool) -> bytes:
    """run(start, end, ptr): for i in [start, end): i32 at ptr + 4 i = 3 i."""
    from jaxweb._src.backends.wasm.assembler import Func, Module
    f = Func(["i32", "i32", "i32"])
    i = f.local("i32")
    f.get(0).set(i)
    f.block().loop()
    f.get(i).get(1).emit("i32.ge_s").br_if(1)
    f.get(2).get(i).i32(4).emit("i32.mul").emit("i32.add")
    f.get(i).i32(3).emit("i32.mul")
    f.mem("i32.store", 0)
    f.get(i).i32(1).emit("i32.add").set(i)
    f.br(0)
    f.end().end()
    m = Module(memory_pages=1, shared=shared, max_pages=65536 if shared else None)
    m.add(f, "run")
    return m.encode()


def test_call_split_over_the_worker_pool():
    from jaxweb._src import host
    rt = PyodideRuntime(initial_pages=4)
    if rt.workers < 2:
        pytest.skip(f"no wasm worker pool here (crossOriginIsolated: {host.shim().host.crossOriginIsolated})")
    assert rt.shared
    h = rt.load(_fill_module(shared=True))
    n = 50_000
    for total, align in ((n, 4), (7, 1), (1, 1)):
        rt.write(1024, bytes(4 * n))
        rt.call_split(h, total, (1024,), align=align)
        got = struct.unpack(f"<{total}i", rt.read(1024, 4 * total))
        assert list(got) == [3 * i for i in range(total)], (total, align)
    h2 = rt.load(_fill_module(shared=True))  # a module loaded later reaches the workers too
    rt.call_split(h2, 8, (4096,), align=1)
    assert struct.unpack("<8i", rt.read(4096, 32)) == tuple(3 * i for i in range(8))


def test_refused_grow_raises_and_keeps_the_memory(rt):
    """Past 65536 pages the engine throws a RangeError: the shim answers -1, Python
    raises GrowError, and the memory and its instances are unchanged (issue 9)."""
    from jaxweb._src.backends.wasm.runtime import GrowError
    h = rt.load(RUN_STORE)
    rt.call(h, (256, 9))
    with pytest.raises(GrowError):
        rt.grow(65536)
    assert rt.memory_size() == 2 * PAGE and struct.unpack("<i", rt.read(256, 4))[0] == 9
    assert rt.grow(1) == 3 * PAGE
    rt.call(h, (2 * PAGE + 4, 5))
    assert struct.unpack("<i", rt.read(2 * PAGE + 4, 4))[0] == 5


def test_batched_calls_run_in_order_once_at_the_end(rt):
    """Inside batch() launches queue (one JS call per schedule); a read runs them first."""
    h = rt.load(RUN_STORE)
    with rt.batch():
        rt.call(h, (512, 1))
        rt.call(h, (512, 2))  # order kept: the later store wins
        rt.call(h, (516, 0xFFFFFFFF))
        assert rt._batch is not None and len(rt._batch) == 3
        assert struct.unpack("<i", rt.read(512, 4))[0] == 2  # a read flushes what is queued
        rt.call(h, (520, 7))
    assert struct.unpack("<3i", rt.read(512, 12)) == (2, -1, 7)
    try:
        with rt.batch():
            rt.call(h, (600, 5))
            raise KeyError("schedule failed")
    except KeyError:
        pass
    assert struct.unpack("<i", rt.read(600, 4))[0] == 0, "a failed schedule's queued launches must not run"


def test_batched_split_calls_over_the_worker_pool():
    from jaxweb._src import host
    rt = PyodideRuntime(initial_pages=4)
    if rt.workers < 2:
        pytest.skip(f"no wasm worker pool here (crossOriginIsolated: {host.shim().host.crossOriginIsolated})")
    h = rt.load(_fill_module(shared=True))
    n = 20_000
    with rt.batch():
        rt.call_split(h, n, (1024,), align=4)
        rt.call_split(h, 5, (1024 + 4 * n,), align=1)
    got = struct.unpack(f"<{n + 5}i", rt.read(1024, 4 * (n + 5)))
    assert list(got) == [3 * i for i in range(n)] + [3 * i for i in range(5)]


class _Counting:
    """A stand-in for the shim module that counts the calls made into JavaScript."""

    def __init__(self, shim, calls):
        self._shim, self._calls = shim, calls

    def __getattr__(self, name):
        fn = getattr(self._shim, name)

        def counted(*args):
            self._calls.append(name)
            return fn(*args)
        return counted


def test_a_jitted_call_and_a_static_loop_are_one_js_call_each():
    """A jitted program of several kernels, and a fori_loop of 40 iterations (kernels plus
    carry copies per iteration), each go to JavaScript as one runBatch."""
    import jaxweb as jax
    import jaxweb.numpy as jnp
    dev = jax.devices("wasm")[0]
    rt = dev.backend.rt
    x = jax.device_put(jnp.arange(64, dtype=jnp.float32), dev)
    f = jax.jit(lambda x: (jnp.sin(x).sum() * jnp.cos(x), jnp.exp(x).max()))
    loop = jax.jit(lambda x: jax.lax.fori_loop(0, 40, lambda i, c: c * 0.5 + c.mean() * 0.25 + jnp.float32(i), x))
    want_f = [a.tolist() for a in f(x)]
    want_loop = loop(x).tolist()
    calls = []
    real_shim, real_runs = rt._shim, rt._runs
    rt._shim = _Counting(real_shim, calls)
    rt._runs = [None if r is None else (lambda *a, r=r: calls.append("run") or r(*a)) for r in real_runs]
    try:
        got_f = f(x)
        got_loop = loop(x)
        batches = list(calls)
        assert [a.tolist() for a in got_f] == want_f and got_loop.tolist() == want_loop
    finally:
        rt._shim, rt._runs = real_shim, real_runs
    assert batches == ["runBatch", "runBatch"], batches


def test_encoded_launches_replay_in_order_and_name_a_failing_kernel():
    """encode() makes launches one Int32Array of runBatch records; replay() runs them after
    whatever a batch has queued, as often as asked; a launch that traps is named."""
    from jaxweb._src.backends.wasm.assembler import Func, Module
    rt = PyodideRuntime(initial_pages=4)
    shared = rt.shared
    h = rt.load(_fill_module(shared=shared))
    f = Func(["i32", "i32", "i32"])
    f.emit("unreachable")
    m = Module(memory_pages=1, shared=shared, max_pages=65536 if shared else None)
    m.add(f, "run")
    trap = rt.load(m.encode())
    rt.names[h], rt.names[trap] = "fill", "the_trapping_kernel"
    n = 20_000
    enc = rt.encode([(h, n, (1024,), 4 if rt.workers > 1 else None), (h, 5, (1024 + 4 * n,), None)])
    for _ in range(2):
        rt.write(1024, bytes(4 * (n + 5)))
        with rt.batch():
            rt.call(h, (0, 3, 1024 + 4 * (n + 5)))  # queued first: runs before the replay
            rt.replay(enc)
        got = struct.unpack(f"<{n + 8}i", rt.read(1024, 4 * (n + 8)))
        assert list(got) == [3 * i for i in range(n)] + [3 * i for i in range(5)] + [0, 3, 6]
    bad = rt.encode([(h, 5, (1024,), None), (trap, 5, (1024,), None)])
    with pytest.raises(Exception) as e:
        rt.replay(bad)
    assert "while running kernel 'the_trapping_kernel' on the wasm device" in getattr(e.value, "__notes__", [])
    epoch = rt.epoch
    rt.unload(trap)
    assert rt.epoch != epoch


def test_a_replayed_jitted_call_is_one_js_call_with_a_prebuilt_list():
    """From its fourth call (the first plain, two recording the loop's two address sets), a
    jitted training step is a replay: one runBatch of an Int32Array made once, no other call
    into JavaScript but the write of its Python-scalar argument's new value (into the
    executable's own buffer: `writeWords`, or inside the runBatch where the jitted call writes
    it with `write_soon`); the values those of the same steps without replay."""
    import jaxweb as jax
    import jaxweb.numpy as jnp
    from jaxweb._src.backends.wasm import replay
    dev = jax.devices("wasm")[0]
    rt = dev.backend.rt

    def run(steps, on, calls=None):
        replay.ENABLED = on
        try:
            with jax.default_device(dev):  # products big enough to be split over the worker pool
                step = jax.jit(lambda w, x, lr: w - lr * jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w))
                w = jnp.full((256, 128), 0.01) + jnp.arange(128.0) * 1e-4
                x = jnp.ones((256, 256)) * 0.01 + jnp.arange(256.0) * 1e-4
                out = []
                for t in range(steps):
                    if calls is not None and t == steps - 1:
                        real_shim = rt._shim
                        rt._shim = _Counting(real_shim, calls)
                    try:
                        w = step(w, x, 0.5 / (1 + t))
                    finally:
                        if calls is not None and t == steps - 1:
                            rt._shim = real_shim
                    out.append(w.tolist())
                return out
        finally:
            replay.ENABLED = True
    want = run(6, False)
    calls = []
    before = dev.backend.stats["replays"]
    be = dev.backend
    soon, encoded = [], []
    be.write_soon = lambda h, d: soon.append(h) or type(be).write_soon(be, h, d)
    rt.encode = lambda launches: encoded.append(launches) or type(rt).encode(rt, launches)
    try:
        assert run(6, True, calls) == want
    finally:
        del be.write_soon, rt.encode
    if rt.workers > 1:
        assert any(align is not None for launches in encoded for *_, align in launches), "no split launch"
    assert be.stats["replays"] - before >= 2
    # the scalar's bytes go in the replay's call where the jitted call writes them "soon"
    assert calls == (["runBatch"] if soon else ["writeWords", "runBatch"]), calls


def test_writes_made_soon_run_before_anything_that_reads_them(rt):
    """write_soon's bytes reach memory with the next call that runs kernels or touches the
    memory: a replay (same runBatch), a plain call, a read; larger or odd writes at once."""
    h = rt.load(RUN_STORE)
    enc = rt.encode([(h, 0, (0,), None)])  # run(0, 0, 0): stores 0 at address 0
    rt.write_soon(512, struct.pack("<2i", 7, -8))
    assert rt._soon is not None
    calls = []
    real = rt._shim
    rt._shim = _Counting(real, calls)
    try:
        rt.replay(enc)
    finally:
        rt._shim = real
    assert calls == ["runBatch"] and rt._soon is None
    assert struct.unpack("<2i", rt.read(512, 8)) == (7, -8)
    rt.write_soon(520, struct.pack("<i", 5))
    assert struct.unpack("<i", rt.read(520, 4))[0] == 5  # a read runs it first
    rt.write_soon(524, b"abc")  # not whole words: written at once
    assert rt._soon is None and rt.read(524, 3) == b"abc"
    rt.write_soon(600, struct.pack("<i", 1))
    rt.call(h, (600, 2))  # run(ptr, value) stores after the waiting write
    assert struct.unpack("<i", rt.read(600, 4))[0] == 2
