"""The webgl device inside Pyodide (run by tests/pyodide/harness.py): Chromium's WebGL2 on
SwiftShader through ANGLE, driven by runtime_pyodide.py and js_shim/webgl.mjs (Node has no
WebGL: skipped there). Values are compared with the wasm device (no numpy here)."""
import pytest

import jaxweb
import jaxweb.numpy as jnp
from gpu_vs_wasm import check_matches_wasm, device


def _gl():
    return device("webgl")


def test_webgl_matches_wasm():
    check_matches_wasm("webgl", 30000)


async def test_webgl_async_readback():
    from jaxweb._src import host
    with jaxweb.default_device(_gl()):
        x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3) * 2
        assert await host.async_value(x.sum(axis=1)) == [6.0, 24.0]
        assert (await host.async_block_until_ready([x]))[0] is x


def test_webgl_context_loss_inside_pyodide():
    from jaxweb._src import host
    from jaxweb._src.backends.gpu.device import DeviceLostError
    gl = _gl()
    with jaxweb.default_device(gl):
        x = jnp.arange(4.0) * 2
        assert x.tolist() == [0.0, 2.0, 4.0, 6.0]
        assert host.shim().webgl.loseContext()
        with pytest.raises(DeviceLostError, match="WebGL context was lost"):
            (x + 1).tolist()
        assert (jnp.arange(3.0) * 3 + 1).tolist() == [1.0, 4.0, 7.0]
