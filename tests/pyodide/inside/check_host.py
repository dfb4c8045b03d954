"""Host checks that only make sense inside Pyodide (run by tests/pyodide/harness.py).

They exercise the loader's work (jaxweb installed, shim registered), jaxweb's
numpy-free parts, the wasm and gpu shims through the FFI, and both readback
paths: synchronous through JSPI (we run under runPythonAsync) and async.
"""
import struct

import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import host

# A hand-assembled module: imports env.memory, exports store(ptr, value) = i32.store.
STORE_WASM = bytes.fromhex(
    "0061736d01000000"
    "01060160027f7f00"
    "020f0103656e76066d656d6f7279020001"
    "03020100"
    "0709010573746f72650000"
    "0a0b010900200020013602000b")


def test_host_detected():
    assert host.in_pyodide()
    assert host.kind() in ("browser", "node")
    assert host.shim().host.kind == host.kind()


def test_import_and_pure_python_api():
    assert jnp.promote_types(jnp.int8, jnp.uint8) == jnp.int16
    assert jnp.dtype("float32").itemsize == 4
    leaves, tree = jaxweb.tree_util.tree_flatten({"a": [1, 2], "b": (3,)})
    assert leaves == [1, 2, 3]
    assert jaxweb.tree_util.tree_unflatten(tree, [4, 5, 6]) == {"a": [4, 5], "b": (6,)}


def test_no_numpy_here():
    with pytest.raises(ImportError):
        import numpy  # noqa: F401


def test_make_jaxpr_if_present():
    if not hasattr(jaxweb, "make_jaxpr"):
        pytest.skip("jaxweb.make_jaxpr not implemented yet")
    _needs_a_device()  # today tracing a Python scalar makes a device constant
    text = str(jaxweb.make_jaxpr(lambda x: x * 2 + 1)(1.0))
    assert "mul" in text


def test_wasm_shim_compile_call_read_write():
    w = host.shim().wasm
    mem = w.createMemory(1, 16, False)
    mod = w.compile(host.to_js_bytes(STORE_WASM))
    inst = w.instantiate(mod, mem)
    w.call(inst, "store", 64, 123456789)
    assert struct.unpack("<i", host.js_bytes(w.read(mem, 64, 4)))[0] == 123456789
    w.write(mem, 128, host.to_js_bytes(b"\x01\x02\x03\x04"))
    assert host.js_bytes(w.read(mem, 128, 4)) == b"\x01\x02\x03\x04"
    assert w.growMemory(mem, 1) == 1 and w.memoryPages(mem) == 2
    for kind, h in (("instance", inst), ("module", mod), ("memory", mem)):
        w.release(kind, h)


def test_jnp_computes_on_the_wasm_device():
    _needs_a_device()
    assert jaxweb.default_backend() == "wasm"
    y = jnp.arange(3) * 2
    assert y.tolist() == [0, 2, 4]
    assert str(y) == "[0 2 4]"
    z = (jnp.ones((2, 3), dtype=jnp.float32) * 1.5).sum(axis=1)
    assert z.tolist() == [4.5, 4.5]


def test_jit_grad_vmap_in_pyodide():
    _needs_a_device()
    for name in ("jit", "grad", "vmap"):
        if not hasattr(jaxweb, name):
            pytest.skip(f"jaxweb.{name} not implemented yet")
    f = jaxweb.jit(lambda x: x * 2.0 + 1.0)
    assert f(jnp.arange(3.0)).tolist() == [1.0, 3.0, 5.0]
    assert float(jaxweb.grad(lambda x: x * x)(3.0)) == 6.0
    assert jaxweb.vmap(lambda x: x.sum())(jnp.ones((2, 3))).tolist() == [3.0, 3.0]


def test_sync_wait_through_jspi():
    import js
    assert host.can_wait()
    assert host.wait(js.Promise.resolve(41)) + 1 == 42


def _needs_a_device():
    try:
        jaxweb.devices()
    except RuntimeError as e:
        pytest.skip(f"no jaxweb device in Pyodide yet: {e}")


async def test_async_api_under_pytest():
    _needs_a_device()
    x = jnp.asarray([1, 2, 3])
    assert await host.async_value(x) == [1, 2, 3]
    assert (await host.async_block_until_ready({"x": x}))["x"] is x


def test_gpu_shim_roundtrip_when_available():
    if not host.webgpu_available():
        pytest.skip("no WebGPU adapter on this host")
    g = host.shim().gpu
    import json
    info = json.loads(host.wait(g.init("high-performance", "")))
    assert info["limits"]["maxComputeInvocationsPerWorkgroup"] >= 64
    code = """
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3u) {
  if (i.x < arrayLength(&a)) { a[i.x] = a[i.x] * 2u + 1u; }
}"""
    buf = g.createBuffer(16, 0)
    g.writeBuffer(buf, 0, struct.pack("<4I", 1, 2, 3, 4))  # a Python buffer, read in place
    pipe = host.wait(g.createPipelineAsync(code, "main"))
    from pyodide.ffi import to_js
    import array
    bg = g.createBindGroup(pipe, to_js(array.array("i", [buf])))
    g.run(to_js(array.array("i", [g.OP.DISPATCH, pipe, bg, 1, 1, 1, g.OP.DISPATCH, pipe, bg, 1, 1, 1])))
    got = bytearray(16)
    host.wait(g.readInto(buf, 0, 16, got))  # mapped memory copied straight into Python's buffer
    out = struct.unpack("<4I", got)
    assert out == (7, 11, 15, 19)
    assert g.takeError() == ""
    g.destroyBuffer(buf)
