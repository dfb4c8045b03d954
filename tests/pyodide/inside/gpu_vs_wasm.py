"""What check_webgpu.py and check_webgl.py share: a GPU device found by name (skipped where the
host has none), closeness of nested lists, and a small jitted MLP step plus a few ops computed
on a device, to compare with the wasm device (there is no numpy inside Pyodide)."""
import pytest

import jaxweb
import jaxweb.numpy as jnp


def device(platform):
    try:
        return jaxweb.devices(platform)[0]
    except RuntimeError as e:
        pytest.skip(f"no {platform} device on this host: {e}")


def close(a, b, tol=1e-5):
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y, tol)
        return
    assert abs(a - b) <= tol * (1 + abs(b)), (a, b)


def mlp(x, w1, w2):
    def loss(p):
        h = jaxweb.nn.relu(x @ p[0])
        return jnp.mean((h @ p[1]) ** 2)
    l, g = jaxweb.value_and_grad(loss)([w1, w2])
    return l, w1 - 0.1 * g[0], w2 - 0.1 * g[1]


def check_matches_wasm(platform, n_sum):
    """One MLP step, tanh/max, int8 wrap-around and a sum of `n_sum` floats agree with wasm;
    device_put round-trips. The device is a software one: by name only, never the default."""
    gpu, wasm = device(platform), jaxweb.devices("wasm")[0]
    assert gpu.backend.software
    assert jaxweb.default_backend() != platform
    step = jaxweb.jit(mlp)
    out = {}
    for dev in (gpu, wasm):
        with jaxweb.default_device(dev):
            x = jnp.arange(40 * 24, dtype=jnp.float32).reshape(40, 24) / 500.0 - 0.5
            w1 = jnp.cos(jnp.arange(24 * 33, dtype=jnp.float32).reshape(24, 33))
            w2 = jnp.sin(jnp.arange(33 * 17, dtype=jnp.float32).reshape(33, 17))
            l, a, b = step(x, w1, w2)
            out[dev.platform] = [
                float(l), a.sum(axis=0).tolist(), b[3].tolist(),
                (jnp.tanh(x) * 2 + 1).max(axis=1).tolist(),
                (jnp.arange(10, dtype=jnp.int8) * 30).tolist(),
                jnp.arange(float(n_sum)).sum().tolist()]
    assert out[platform][4] == out["wasm"][4]  # int8 wrap-around, packed stores
    close(out[platform], out["wasm"], 2e-5)
    moved = jaxweb.device_put(jaxweb.device_put(jnp.arange(5.0), gpu) * 2, wasm)
    assert moved.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
