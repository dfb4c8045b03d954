"""The webgpu device inside Pyodide (run by tests/pyodide/harness.py): Chromium's Dawn
on SwiftShader, or the `webgpu` npm package in Node. Values are compared with the
wasm device (there is no numpy here); readback waits through JSPI."""
import pytest

import jaxweb
import jaxweb.numpy as jnp
from gpu_vs_wasm import check_matches_wasm, close as _close, device, mlp as _mlp


def _gpu():
    return device("webgpu")


def test_webgpu_matches_wasm():
    check_matches_wasm("webgpu", 3000)


def test_trig_reduces_large_arguments_on_dawn():
    """Payne-Hanek in u32 arithmetic (wgsl.trig_big) through Tint: sin/cos/tan of 2**14 to
    3e38 agree with wasm's float64 reduction to float32 rounding (sin(1e30) was -inf)."""
    gpu, wasm = _gpu(), jaxweb.devices("wasm")[0]
    xs = [16384.0, 35814.152, 1.7e10, -1.4e14, 1e20, 1e30, -3e38, 1.2614588e38, 4.386558e33]
    out = {}
    for dev in (gpu, wasm):
        with jaxweb.default_device(dev):
            x = jnp.asarray(xs, dtype=jnp.float32)
            out[dev.platform] = [f(x).tolist() for f in (jnp.sin, jnp.cos, jnp.tan)]
    for g, w in zip(out["webgpu"], out["wasm"]):
        for a, b in zip(g, w):
            assert abs(a - b) <= 4e-7 * abs(b), (xs, g, w)


def test_gemms_match_wasm():
    """Products on the software adapter's quad GEMM kernel (tiles chosen per product: small
    and large ones, rows and columns past the tile, transposed and batched operands)."""
    gpu, wasm = _gpu(), jaxweb.devices("wasm")[0]
    out = {}
    for dev in (gpu, wasm):
        with jaxweb.default_device(dev):
            a = jnp.sin(jnp.arange(130 * 76, dtype=jnp.float32).reshape(130, 76))
            b = jnp.cos(jnp.arange(76 * 260, dtype=jnp.float32).reshape(76, 260) * 0.3)
            c = jnp.sin(jnp.arange(300 * 300, dtype=jnp.float32).reshape(300, 300) * 0.7)
            f = jaxweb.jit(lambda a, b, c: (a @ b, a.T @ a[:, :40], jnp.matmul(b.reshape(2, 38, 260), b.T), c @ c))
            out[dev.platform] = [r.ravel()[::97].tolist() for r in f(a, b, c)]
    _close(out["webgpu"], out["wasm"], 2e-5)


def test_slices_share_widened_pipelines():
    """A slicing loop on webgpu runs dynamic shaders (the extent in a uniform buffer made
    through the shim): a pipeline per power of two, values equal to wasm's."""
    gpu, wasm = _gpu(), jaxweb.devices("wasm")[0]
    out = {}
    for dev in (gpu, wasm):
        with jaxweb.default_device(dev):
            x = jnp.sin(jnp.arange(300 * 3, dtype=jnp.float32).reshape(300, 3))
            out[dev.platform] = [((x[:n] * 2 + 1).sum(axis=1)).tolist() for n in (33, 40, 57, 64)]
            if dev is gpu:  # 33 compiled static kernels, 40 the widened ones
                made = gpu.backend.stats["pipelines"]
                assert (x[:50] * 2 + 1).sum(axis=1).tolist()[-1] == out["webgpu"][2][49]
                assert gpu.backend.stats["pipelines"] == made  # 50 runs on the 64-row pipelines
    _close(out["webgpu"], out["wasm"], 1e-6)


def test_big_readbacks_go_in_chunks():
    """A readback past gpu.mjs's 8 MB chunk: the chunks land in order (blocking and awaited),
    and every byte of the destination is written — host.uninitialized leaves the heap's old
    bytes there, so the second read lands over the first's freed memory."""
    import array
    import sys
    with jaxweb.default_device(_gpu()):
        n = (20 << 20) // 4 + 3  # three chunks, the last one short
        for k in (3, -5):
            x = jnp.arange(n, dtype=jnp.int32) * k
            data = array.array("i")
            data.frombytes(x.contiguous_buffer().read())
            if sys.byteorder != "little":
                data.byteswap()
            assert data == array.array("i", range(0, k * n, k))
            del data
        assert x[-3:].tolist() == [k * (n - 3), k * (n - 2), k * (n - 1)]


def test_pipelines_compile_together_on_dawn():
    """runtime.pipelines (a GEMM plan's candidates): all compiled before any is awaited, each
    usable; a shader Dawn rejects raises WGSLError, and the backend's batch falls back to one by
    one to name it."""
    from jaxweb._src.backends.webgpu.runtime import WGSLError
    be = _gpu().backend
    code = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" \
           "@compute @workgroup_size(1) fn main() {{ o[0] = {}u; }}\n"
    made = be.rt.pipelines([code.format(7), code.format(8)])
    assert len(made) == 2 and made[0] != made[1]
    bad = code.format("nope")
    with pytest.raises(WGSLError):
        be.rt.pipelines([code.format(9), bad])
    with pytest.raises(WGSLError) as e:
        be._pipelines_of([code.format(10), bad], "check")
    assert e.value.code == bad
    assert be._pipelines_of([code.format(11), code.format(12)], "check")[1] is be._pipeline(code.format(12), "check")


def test_jitted_loop_replays_on_dawn():
    """A training loop's calls replay their encoded commands (one Int32Array through the shim).
    (K-split GEMMs are checked on lavapipe, tests/test_webgpu_gemm_plan.py: forcing the
    shared-memory kernels here made this check take minutes on SwiftShader in Chromium.)"""
    gpu, wasm = _gpu(), jaxweb.devices("wasm")[0]
    be = gpu.backend
    out = {}
    for dev in (gpu, wasm):
        with jaxweb.default_device(dev):
            step = jaxweb.jit(_mlp)
            x = jnp.arange(40 * 24, dtype=jnp.float32).reshape(40, 24) / 500.0 - 0.5
            w1 = jnp.cos(jnp.arange(24 * 33, dtype=jnp.float32).reshape(24, 33))
            w2 = jnp.sin(jnp.arange(33 * 17, dtype=jnp.float32).reshape(33, 17))
            replays = be.stats["replays"]
            for _ in range(4):
                l, w1, w2 = step(x, w1, w2)
            out[dev.platform] = [float(l), w1.sum(axis=0).tolist(), w2[3].tolist()]
            if dev is gpu:
                assert be.stats["replays"] - replays >= 1, be.stats
    _close(out["webgpu"], out["wasm"], 1e-4)


def test_donated_update_reads_in_place_on_dawn():
    """A donated Adam update writes over its three inputs and reads each through its output's
    binding (codegen.tie), with no copy: Dawn rejects a buffer bound read-only and writable, or
    writable twice, in one dispatch (wgpu-py lets the latter through). Values as undonated."""
    be = _gpu().backend
    copies = []
    copy = be.copy

    def counted(dst, src, nbytes):
        copies.append(nbytes)
        copy(dst, src, nbytes)

    def adam(p, m, v, g, t):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        return p - 0.01 * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8), m, v
    out = {}
    be.copy = counted
    try:
        for donate in (False, True):
            with jaxweb.default_device(_gpu()):
                f = jaxweb.jit(adam, donate_argnums=(0, 1, 2) if donate else ())
                p, m, v = jnp.arange(1000, dtype=jnp.float32) / 1000, jnp.zeros(1000), jnp.zeros(1000)
                g = jnp.sin(jnp.arange(1000, dtype=jnp.float32))
                for t in range(1, 6):
                    p, m, v = f(p, m, v, g * t, float(t))
                out[donate] = [p.tolist(), m.tolist(), v.tolist()]
    finally:
        del be.copy
    assert copies == [] and out[True] == out[False], copies


def test_profiler_traces_both_devices_inside_pyodide():
    import glob, gzip, json  # noqa: E401
    gpu, wasm = _gpu(), jaxweb.devices("wasm")[0]
    f = jaxweb.jit(lambda a: (jnp.tanh(a) @ a).sum())
    for dev in (gpu, wasm):
        with jaxweb.default_device(dev):
            x = jnp.ones((96, 96))
            f(x).block_until_ready()
            jaxweb.profiler.start_trace(f"/tmp/trace_{dev.platform}")
            assert float(f(x)) > 0
            jaxweb.profiler.stop_trace()
        path, = glob.glob(f"/tmp/trace_{dev.platform}/plugins/profile/*/*.trace.json.gz")
        events = [e for e in json.load(gzip.open(path, "rt"))["traceEvents"] if e["ph"] == "X"]
        kernels = [e for e in events if e["cat"] == "kernel"]
        assert any("dot_general" in e["name"] for e in kernels), events
        if dev is gpu:
            assert any(e["cat"] == "submits" for e in events)
            if gpu.backend.rt.can_time:
                assert all(e["args"]["timer"] == "gpu timestamps" for e in kernels)
        assert all(e["dur"] >= 0 for e in events)


def test_device_loss_inside_pyodide():
    """device.destroy() loses the device for real: arrays on it raise, later work gets a new
    device (runs last: every webgpu backend in this Pyodide shares the shim's device)."""
    import js
    from jaxweb._src import host
    from jaxweb._src.backends.webgpu.runtime import DeviceLostError
    gpu = _gpu()
    with jaxweb.default_device(gpu):
        x = jnp.arange(4.0) * 2
        assert x.tolist() == [0.0, 2.0, 4.0, 6.0]
        step = jaxweb.jit(lambda w, s: w * s + 1)
        made = jaxweb.jit(lambda: jnp.arange(4.0) * 2 + 1)  # no arguments: runs on any device
        fresh = jaxweb.jit(lambda: jnp.arange(4.0) * 3)  # first called after the loss
        w = jnp.arange(4.0)
        for t in range(6):  # replays from the 4th call: a lost device is then found by the replay's call
            w = step(w, float(t % 3 + 1))
            made()
        assert gpu.backend.stats["replays"] > 0
        host.shim().gpu.destroyDevice()
        host.wait(js.Promise.new(lambda resolve, reject: js.setTimeout(resolve, 100)))  # lost resolves
        assert "destroyed" in gpu.backend.rt.lost()
        assert made().tolist() == [1.0, 3.0, 5.0, 7.0]  # its replay found the loss: run anew, on the new device
        assert fresh().tolist() == [0.0, 3.0, 6.0, 9.0]
        with pytest.raises(DeviceLostError, match="lost"):
            step(w, 2.0)
        v, n = jnp.arange(4.0), gpu.backend.stats["replays"]
        for _ in range(5):  # new arrays: the step runs (and replays) on the new device
            v = step(v, 2.0)
        assert v.tolist() == [31.0 + 32 * i for i in range(4)] and gpu.backend.stats["replays"] > n
        with pytest.raises(DeviceLostError, match="lost"):
            (x + 1).tolist()
        assert (jnp.arange(3.0) * 3 + 1).tolist() == [1.0, 4.0, 7.0]
        assert (jnp.arange(4.0) * 2).tolist() == [0.0, 2.0, 4.0, 6.0]  # a kernel made before the loss
        with pytest.raises(DeviceLostError, match="was on a WebGPU device that was lost"):
            x.tolist()
        assert gpu.backend.stats["devices_lost"] == 1
