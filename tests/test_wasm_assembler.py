"""The Wasm assembler, runtime and allocator on their own.

Opcode tables are checked against wasmtime's own text-format assembler
(`wat2wasm`), LEB128 against hand values, and a small hand-written module runs.
"""
from __future__ import annotations

import pytest

wasmtime = pytest.importorskip("wasmtime")

from jaxweb._src.backends.wasm import opcodes as O  # noqa: E402
from jaxweb._src.backends.wasm.allocator import Allocator  # noqa: E402
from jaxweb._src.backends.wasm.assembler import Func, Module, sleb, uleb  # noqa: E402
from jaxweb._src.backends.wasm.runtime_wasmtime import WasmtimeRuntime  # noqa: E402


def test_leb128():
    assert uleb(0) == b"\x00" and uleb(127) == b"\x7f" and uleb(128) == b"\x80\x01"
    assert uleb(624485) == b"\xe5\x8e\x26"
    assert sleb(-1) == b"\x7f" and sleb(63) == b"\x3f" and sleb(64) == b"\xc0\x00"
    assert sleb(-123456) == b"\xc0\xbb\x78"


def _encoded(body: str, memory: bool = False) -> bytes:
    mem = "(memory 1)" if memory else ""
    return wasmtime.wat2wasm(f"(module {mem} (func unreachable {body} drop))")


@pytest.mark.parametrize("table", ["NUMERIC", "SIMD", "PREFIX_FC", "MEMORY", "SIMD_MEMORY"])
def test_opcodes_match_wat2wasm(table):
    for name, val in getattr(O, table).items():
        if name.startswith("memory."):
            continue
        if table == "NUMERIC":
            want = bytes([val])
        elif table == "SIMD":
            want = b"\xfd" + uleb(val)
        elif table == "PREFIX_FC":
            want = b"\xfc" + uleb(val)
        elif table == "MEMORY":
            want = bytes([val[0], val[1], 0])
        else:
            want = b"\xfd" + uleb(val[0]) + bytes([val[1], 0])
        assert want in _encoded(name, memory=table.endswith("MEMORY")), name


def test_module_runs():
    rt = WasmtimeRuntime(threads=1)
    f = Func(["i32", "i32", "i32"])
    i = f.local("i32")
    f.i32(0).set(i)
    f.block().loop()
    f.get(i).get(1).emit("i32.ge_s").br_if(1)
    # mem[out + 4i] = mem[in + 4i] * 2.5 (f32)
    f.get(0).get(i).i32(2).emit("i32.shl").emit("i32.add")
    f.get(2).get(i).i32(2).emit("i32.shl").emit("i32.add").mem("f32.load")
    f.f32(2.5).emit("f32.mul").mem("f32.store")
    f.get(i).i32(1).emit("i32.add").set(i).br(0)
    f.end().end()
    m = Module(memory_pages=1, shared=rt.shared, max_pages=65536 if rt.shared else None)
    m.add(f, export="run")
    h = rt.load(m.encode())
    import struct
    rt.write(1024, struct.pack("<3f", 1.0, 2.0, -4.0))
    rt.call(h, (2048, 3, 1024))
    assert struct.unpack("<3f", rt.read(2048, 12)) == (2.5, 5.0, -10.0)
    assert not rt.validate(b"\x00asm\x01\x00\x00\x00\x01")


def test_replays_call_the_encoded_functions_on_their_thread_and_look_up_elsewhere():
    """`encode` looks up each unsplit launch's `run` for `replay` to call directly; a replay on
    another thread (a store is one thread's) or after an unload (stores may have closed) looks
    each launch up as `call` does, and gets the same results."""
    import struct
    import threading
    rt = WasmtimeRuntime(threads=1)

    def store_end(shift: int) -> int:  # run(start, end, ptr): mem[ptr] = end << shift
        f = Func(["i32", "i32", "i32"])
        f.get(2).get(1).i32(shift).emit("i32.shl").mem("i32.store")
        m = Module(memory_pages=1, shared=True, max_pages=65536)
        m.add(f, export="run")
        return rt.load(m.encode())
    h, h2 = store_end(0), store_end(1)
    enc = rt.encode([(h, 7, (256,), None), (h2, 5, (260,), None)])
    assert all(direct is not None for _, _, direct in enc[2])
    rt.replay(enc)
    assert struct.unpack("<2i", rt.read(256, 8)) == (7, 10)
    before = rt.instances()
    other = rt.encode([(h, 9, (256,), None), (h2, 3, (260,), None)])
    t = threading.Thread(target=rt.replay, args=(other,))
    t.start()
    t.join()
    assert struct.unpack("<2i", rt.read(256, 8)) == (9, 6) and rt.instances() == before + 2
    rt.unload(store_end(2))  # the epoch moves on
    rt.replay(enc)
    assert struct.unpack("<2i", rt.read(256, 8)) == (7, 10)


def test_allocator_reuse_and_growth():
    rt = WasmtimeRuntime(initial_pages=1, threads=1)
    a = Allocator(rt)
    p1 = a.alloc(100)
    p2 = a.alloc(100)
    assert p1 % 64 == 0 and p2 % 64 == 0 and p1 != p2 and p1 > 0
    a.free(p1)
    assert a.alloc(120) == p1  # same size class: reused
    big = a.alloc(5 << 20)  # grows memory
    assert rt.memory_size() >= big + (5 << 20)
    rt.write(big + (5 << 20) - 4, b"abcd")
    assert rt.read(big + (5 << 20) - 4, 4) == b"abcd"
    z = a.alloc(0)
    assert z > 0


def test_out_of_bounds_calls_and_copies_raise_instead_of_aborting():
    """wasmtime aborts the process on an out-of-bounds access to a shared memory, so the runtime
    checks first: a launch with an address past the memory's end (call, call_split, a replay's
    encode) and a read, write or copy outside it raise ValueError. Run in a child (under
    `python -O`: no asserts), since a missing check kills the process; after `grow` the same
    address is inside and the launch runs."""
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        from jaxweb._src.backends.wasm.assembler import Func, Module
        from jaxweb._src.backends.wasm.runtime_wasmtime import WasmtimeRuntime
        rt = WasmtimeRuntime(initial_pages=1, threads=1)
        f = Func(["i32", "i32", "i32"])
        f.get(2).mem("i32.load").emit("drop")  # reads the word at its third argument
        m = Module(memory_pages=1, shared=True, max_pages=65536)
        m.add(f, export="run")
        rt.load(m.encode())  # two instances in the store: an unchecked bad launch then aborts
        h = rt.load(m.encode())
        rt.names[h] = "the_reading_kernel"
        end = rt.memory_size()
        bad = [lambda: rt.call(h, (0, 1, end + 64)), lambda: rt.call_split(h, 1, (end + 64,)),
               lambda: rt.encode([(h, 1, (end + 64,), None)]), lambda: rt.read(end - 4, 8),
               lambda: rt.read(-4, 4), lambda: rt.write(end - 2, b"abcd"), lambda: rt.copy(0, end - 2, 4),
               lambda: rt.copy(end - 2, 0, 4)]
        for call in bad:
            try:
                call()
                print("no error")
            except ValueError as e:
                print(e)
        rt.grow(1)
        rt.call(h, (0, 1, end + 64))
        rt.replay(rt.encode([(h, 1, (end + 64,), None)]))
        print("ran")
    """)
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, timeout=120)
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and lines[-1] == "ran", (out.returncode, out.stdout, out.stderr[-2000:])
    assert len(lines) == 9 and "no error" not in lines, lines
    assert all("past the end of the wasm memory (65536 bytes)" in s and "the_reading_kernel" in s for s in lines[:3])
    assert all("outside the memory [0, 65536)" in s for s in lines[3:8]), lines
