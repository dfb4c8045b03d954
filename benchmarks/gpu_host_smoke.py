"""The Node host on a GPU machine: jaxweb in Pyodide + Node 24 + Dawn, end to end.

Run inside Pyodide (no numpy) by `bash scripts/run_on_gpu.sh benchmarks/gpu_host_smoke.py`.
Prints the WebGPU adapter Dawn found, checks a WGSL dispatch through js_shim/gpu.mjs,
measures the per-dispatch cost of a command list handed over in one call, checks against
wasm a slicing loop on webgpu's widened (dynamic) pipelines, sin/cos/tan of large
arguments, a uint8 image batch scaled by a scalar's power and GEMMs with epilogues, and
runs a jnp matmul on the wasm device. Prints figures; asserts only correctness.
"""
import array
import json
import struct
import time

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import host

print("host:", host.kind(), "| devices:", jaxweb.devices())
if host.webgpu_available():
    from pyodide.ffi import to_js
    g = host.shim().gpu
    info = json.loads(host.wait(g.init("high-performance", "")))
    print("adapter:", {k: info.get(k) for k in ("vendor", "architecture", "device", "description")})
    code = """
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3u) {
  if (i.x < arrayLength(&a)) { a[i.x] = a[i.x] * 2u + 1u; }
}"""
    buf = g.createBuffer(16, 0)
    g.writeBuffer(buf, 0, struct.pack("<4I", 1, 2, 3, 4))
    pipe = host.wait(g.createPipelineAsync(code, "main"))
    bg = g.createBindGroup(pipe, to_js(array.array("i", [buf])))
    g.run(to_js(array.array("i", [g.OP.DISPATCH, pipe, bg, 1, 1, 1] * 2)))
    got = bytearray(16)
    host.wait(g.readInto(buf, 0, 16, got))
    out = struct.unpack("<4I", got)
    assert out == (7, 11, 15, 19), out
    print("dispatch roundtrip: ok", out)
    for n in (1, 100, 1000):
        cmds = to_js(array.array("i", [g.OP.DISPATCH, pipe, bg, 1, 1, 1] * n))
        t = time.perf_counter()
        g.run(cmds)
        host.wait(g.readInto(buf, 0, 16, got))
        dt = time.perf_counter() - t
        print(f"{n:5d} dispatches in one call + 16-byte readback: {dt * 1e3:8.2f} ms "
              f"({dt / n * 1e6:7.1f} us per dispatch)")
    gpu, wasm = jaxweb.devices("webgpu")[0], jaxweb.devices("wasm")[0]

    def both(fn):
        """fn() on the webgpu device, then on wasm: (webgpu's result, wasm's)."""
        out = []
        for dev in (gpu, wasm):
            with jaxweb.default_device(dev):
                out.append(fn())
        return out

    def pairs(g, w):
        """The (webgpu, wasm) number pairs of two nested lists of one shape."""
        if isinstance(g, list):
            return [p for a, b in zip(g, w) for p in pairs(a, b)]
        return [(g, w)]

    def slicing_loop():
        x = jnp.sin(jnp.arange(3000 * 5, dtype=jnp.float32).reshape(3000, 5))
        return [float((x[:n] * 2 + 1).sum()) for n in range(1025, 2049, 97)]
    made = gpu.backend.stats["pipelines"]
    g, w = both(slicing_loop)
    print(f"slicing loop: {len(g)} extents, {gpu.backend.stats['pipelines'] - made} new pipelines")
    assert all(abs(a - b) <= 1e-3 * (1 + abs(b)) for a, b in pairs(g, w)), (g, w)
    print("dynamic shaders match wasm: ok")
    xs = [3.1415927, 252.89821, 35814.152, 1.7e10, -1.4e14, 1e30, -3e38, 1.2614588e38, 4.386558e33]
    g, w = both(lambda: [f(jnp.asarray(xs, dtype=jnp.float32)).tolist() for f in (jnp.sin, jnp.cos, jnp.tan)])
    worst = max(abs(a - b) / abs(b) for a, b in pairs(g, w))
    assert worst <= 4e-7, (worst, g, w)
    print(f"sin/cos/tan up to 3e38 (Payne-Hanek) match wasm: ok (worst relative difference {worst:.2e})")

    def scaled_images():
        img = (jnp.arange(64 * 784) % 251).astype(jnp.uint8).reshape(64, 784)
        v = img.astype(jnp.float32) / 255 / (1 - 0.9 ** jnp.asarray(7).astype(jnp.float32))
        return [float(v.sum()), v[5, 100:108].tolist()]
    g, w = both(scaled_images)
    assert abs(g[0] - w[0]) <= 1e-5 * abs(w[0]), (g, w)
    assert all(abs(a - b) <= 1e-6 * abs(b) for a, b in pairs(g[1], w[1])), (g, w)
    print("uint8 inputs read by words, index-free values hoisted, match wasm: ok")

    def dense_layers():
        x = jnp.sin(jnp.arange(300 * 76, dtype=jnp.float32).reshape(300, 76))
        w = jnp.cos(jnp.arange(76 * 133, dtype=jnp.float32).reshape(76, 133))
        f = jaxweb.jit(lambda x, w: (jnp.maximum(x @ w + w[0], 0.0), jaxweb.nn.sigmoid(x @ w[:, :17]) * 2))
        return [r.ravel()[::37].tolist() for r in f(x, w)]
    g, w = both(dense_layers)
    assert all(abs(a - b) <= 1e-4 * (1 + abs(b)) for a, b in pairs(g, w)), (g, w)
    print("GEMM epilogues applied by the GEMM kernel match wasm: ok")
else:
    print("no WebGPU adapter found")

for n in (256, 512):
    a = jnp.ones((n, n)) * 0.5
    b = jnp.ones((n, n))
    (a @ b).block_until_ready()
    t = time.perf_counter()
    c = (a @ b).block_until_ready()
    dt = time.perf_counter() - t
    assert c[0, 0].item() == n * 0.5
    print(f"wasm matmul n={n}: {2 * n ** 3 / dt / 1e9:6.1f} GFLOP/s")
print("gpu_host_smoke: done")
