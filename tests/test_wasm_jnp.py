"""jnp / lax programs on the `wasm` device vs the `cpu` (reference) device.

Programs that the primitives do not support yet (they raise on `cpu` too) are
skipped, so this file follows the library as it grows.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("wasmtime")

import jaxweb  # noqa: E402
import jaxweb.numpy as jnp  # noqa: E402

X = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
Y = np.random.default_rng(1).standard_normal((7, 6)).astype(np.float32)
I = np.random.default_rng(2).integers(-50, 50, (5, 7)).astype(np.int32)

PROGRAMS = {
    "arith": lambda: jnp.asarray(X) * 2.0 + jnp.asarray(X) ** 2 - 1.5,
    "unary": lambda: jnp.exp(jnp.asarray(X)) + jnp.tanh(jnp.asarray(X)) + jnp.sin(jnp.asarray(X)),
    "log_sqrt": lambda: jnp.log(jnp.abs(jnp.asarray(X)) + 1.0) + jnp.sqrt(jnp.abs(jnp.asarray(X))),
    "matmul": lambda: jnp.asarray(X) @ jnp.asarray(Y),
    "sum_axes": lambda: jnp.sum(jnp.asarray(X), axis=0) + jnp.max(jnp.asarray(X), axis=1).sum(),
    "mean_var": lambda: jnp.var(jnp.asarray(X), axis=1) + jnp.mean(jnp.asarray(X)),
    "softmax": lambda: (lambda e: e / e.sum(axis=1, keepdims=True))(
        jnp.exp(jnp.asarray(X) - jnp.asarray(X).max(axis=1, keepdims=True))),
    "transpose_flip": lambda: jnp.flip(jnp.asarray(X).T, axis=0)[1:, ::2],
    "pad_concat": lambda: jnp.concatenate([jnp.pad(jnp.asarray(X), ((1, 0), (0, 2))), jnp.ones((1, 9))], axis=0),
    "broadcast": lambda: jnp.asarray(X)[:, None, :] * jnp.asarray(X)[None, :, :],
    "int_ops": lambda: (jnp.asarray(I) // 3) + (jnp.asarray(I) % 7) * (jnp.asarray(I) >> 1),
    "int_div_zero": lambda: jnp.asarray(I) // jnp.asarray(I % 3),
    "where_compare": lambda: jnp.where(jnp.asarray(X) > 0, jnp.asarray(X), -jnp.asarray(X) * 0.1),
    "cast_chain": lambda: jnp.asarray(X * 100).astype(jnp.int8).astype(jnp.float32),
    "bf16": lambda: (jnp.asarray(X).astype(jnp.bfloat16) * 3).astype(jnp.float32),
    "f16": lambda: (jnp.asarray(X).astype(jnp.float16) + 1).astype(jnp.float32),
    "argmax": lambda: jnp.argmax(jnp.asarray(X), axis=1),
    "cumsum": lambda: jnp.cumsum(jnp.asarray(X), axis=1),
    "empty": lambda: jnp.zeros((0, 3)) + 1.0,
    "scalar": lambda: jnp.asarray(3.0) * jnp.asarray(2.0),
}


def _on(platform, fn):
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        return np.asarray(fn())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program(name):
    fn = PROGRAMS[name]
    try:
        want = _on("cpu", fn)
    except Exception as e:  # not implemented by the library yet
        pytest.skip(f"cpu: {type(e).__name__}: {e}")
    got = _on("wasm", fn)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    else:
        np.testing.assert_array_equal(got, want)


def test_wasm_is_a_device():
    d = jaxweb.devices("wasm")[0]
    assert d.platform == "wasm"
    with jaxweb.default_device(d):
        x = jnp.arange(10.0)
    assert "wasm" in str(x.device) if hasattr(x, "device") else True
