"""The webgl device inside Pyodide (run by tests/pyodide/harness.py): Chromium's WebGL2 on
SwiftShader through ANGLE, driven by runtime_pyodide.py and js_shim/webgl.mjs (Node has no
WebGL: skipped there). Values are compared with the wasm device (no numpy here)."""
import pytest

import jaxweb
import jaxweb.numpy as jnp


def _gl():
    try:
        return jaxweb.devices("webgl")[0]
    except RuntimeError as e:
        pytest.skip(f"no webgl device on this host: {e}")


def _close(a, b, tol=1e-5):
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
        return
    assert abs(a - b) <= tol * (1 + abs(b)), (a, b)


def test_webgl_matches_wasm():
    gl, wasm = _gl(), jaxweb.devices("wasm")[0]
    assert gl.backend.software  # SwiftShader: by name only, never the default
    assert jaxweb.default_backend() != "webgl"

    def step(x, w1, w2):
        def loss(p):
            return jnp.mean((jaxweb.nn.relu(x @ p[0]) @ p[1]) ** 2)
        value, g = jaxweb.value_and_grad(loss)([w1, w2])
        return value, w1 - 0.1 * g[0], w2 - 0.1 * g[1]
    step = jaxweb.jit(step)
    out = {}
    for dev in (gl, wasm):
        with jaxweb.default_device(dev):
            x = jnp.arange(40 * 24, dtype=jnp.float32).reshape(40, 24) / 500.0 - 0.5
            w1 = jnp.cos(jnp.arange(24 * 33, dtype=jnp.float32).reshape(24, 33))
            w2 = jnp.sin(jnp.arange(33 * 17, dtype=jnp.float32).reshape(33, 17))
            value, a, b = step(x, w1, w2)
            out[dev.platform] = [
                float(value), a.sum(axis=0).tolist(), b[3].tolist(),
                (jnp.tanh(x) * 2 + 1).max(axis=1).tolist(),
                (jnp.arange(10, dtype=jnp.int8) * 30).tolist(),
                jnp.arange(30000.0).sum().tolist()]
    assert out["webgl"][4] == out["wasm"][4]  # int8 wrap-around, packed stores
    _close(out["webgl"], out["wasm"], 2e-5)
    moved = jaxweb.device_put(jaxweb.device_put(jnp.arange(5.0), gl) * 2, wasm)
    assert moved.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]


async def test_webgl_async_readback():
    from jaxweb._src import host
    with jaxweb.default_device(_gl()):
        x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3) * 2
        assert await host.async_value(x.sum(axis=1)) == [6.0, 24.0]
        assert (await host.async_block_until_ready([x]))[0] is x


def test_webgl_context_loss_inside_pyodide():
    from jaxweb._src import host
    from jaxweb._src.backends.webgpu.runtime import DeviceLostError
    gl = _gl()
    with jaxweb.default_device(gl):
        x = jnp.arange(4.0) * 2
        assert x.tolist() == [0.0, 2.0, 4.0, 6.0]
        assert host.shim().webgl.loseContext()
        with pytest.raises(DeviceLostError, match="WebGL context was lost"):
            (x + 1).tolist()
        assert (jnp.arange(3.0) * 3 + 1).tolist() == [1.0, 4.0, 7.0]
