"""Attention's batched products on the GEMM routines (compiler/gemm.py, gemm_index.py), on
every device that has them, against the reference backend.

The products are written as users write them — `einsum('bhqd,bhkd->bhqk')`, `q @ k.swapaxes`,
heads cut out of a `(b, t, 3 h d)` projection by reshape and transpose, `P @ V` put back as
`(b, t, h d)`, one operand without the heads dim (broadcast), the scale and mask fused after
the product — at odd t, d = 64, h = 6, b = 1 and 8, in float32 and (wasm, webgpu) float16 and
bfloat16. Each case also counts the `gemm_f32` routines the program ran and asserts that no
generic kernel reduced over the head dim (the path they took before)."""
import contextlib
import zlib

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src.compiler.kernel import Kernel, Routine

import conftest

CPU = jax.devices("cpu")[0]
D = 64


def _devices() -> list:
    out = ["wasm"] if conftest._available("wasm") else []
    if conftest._available("webgpu"):  # its software adapter's kernel, and a GPU's (forced) splitting K
        out += ["webgpu", "webgpu-shared-split"]
    if conftest._webgl_bridge_unavailable() is None:
        out.append("webgl")
    return out


@contextlib.contextmanager
def device(platform: str):
    """The device of `platform`; "webgpu-shared-split": webgpu with a hardware adapter's
    shared-memory kernels (operands that are not plain reads computed as loaded) and every
    product's K split in two or more (partials summed after)."""
    if platform == "webgl":
        conftest._use_webgl_bridge()
    dev = jax.devices(platform.split("-")[0])[0]
    if platform != "webgpu-shared-split":
        yield dev
        return
    with conftest.hardware_gemm(dev, plan=lambda s, after: (64, max(2, s.K // 32))):
        yield dev


def _split(x, heads):
    b, t, _ = x.shape
    q, k, v = jnp.split(x, 3, axis=-1)
    return [z.reshape(b, t, heads, -1).transpose(0, 2, 1, 3) for z in (q, k, v)]


def attention(x, heads):
    q, k, v = _split(x, heads)
    p = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / q.shape[-1] ** 0.5, axis=-1)
    b, _, t, _ = q.shape
    return (p @ v).transpose(0, 2, 1, 3).reshape(b, t, -1)


# name -> (function, argument shapes given (b, h, t), products)
CASES = {
    "einsum": (lambda q, k: jnp.einsum("bhqd,bhkd->bhqk", q, k), lambda b, h, t: [(b, h, t, D)] * 2, 1),
    "matmul_swapaxes": (lambda q, k: q @ k.swapaxes(-1, -2), lambda b, h, t: [(b, h, t, D)] * 2, 1),
    "heads_of_projection": (lambda x: (lambda q, k, v: q @ k.transpose(0, 1, 3, 2))(*_split(x, 6)),
                            lambda b, h, t: [(b, t, 3 * h * D)], 1),
    "pv_back_to_tokens": (lambda x, p: (p @ _split(x, 6)[2]).transpose(0, 2, 1, 3).reshape(x.shape[0], x.shape[1], -1),
                          lambda b, h, t: [(b, t, 3 * h * D), (b, h, t, t)], 1),
    "keys_without_heads": (lambda q, k: q @ k[:, None].swapaxes(-1, -2), lambda b, h, t: [(b, h, t, D), (b, t, D)], 1),
    "queries_without_heads": (lambda q, k: q[:, None] @ k.swapaxes(-1, -2),
                              lambda b, h, t: [(b, t, D), (b, h, t, D)], 1),
    "scale_and_mask": (lambda q, k, m: jnp.einsum("bhqd,bhkd->bhqk", q, k) * 0.125 + m,
                       lambda b, h, t: [(b, h, t, D), (b, h, t, D), (t, t)], 1),
    "transposed_output": (lambda q, k: jnp.einsum("bhqd,bhkd->bkhq", q, k), lambda b, h, t: [(b, h, t, D)] * 2, 1),
    "transposed_output_scaled": (lambda q, k, m: jnp.einsum("bhqd,bhkd->bkhq", q, k) * 0.125 + m,
                                 lambda b, h, t: [(b, h, t, D), (b, h, t, D), (t, 1, t)], 1),
    "attention": (lambda x: attention(x, 6), lambda b, h, t: [(b, t, 3 * h * D)], 2),
}
# webgl (SwiftShader through a Chromium bridge) is slow: a sample unless JAXWEB_TEST_WEBGL=1
WEBGL_CASES = set(CASES) if conftest.WEBGL_ALL else {"heads_of_projection", "attention"}


def run(device, fn, args, dtype):
    """fn's jitted value on `device` (as float64) and the launches its programs ran there."""
    backend, seen = device.backend, []
    orig = backend.submit

    def submit(prepared, *a, **k):
        seen.extend(prepared.schedule.launches)
        return orig(prepared, *a, **k)
    with jax.default_device(device):
        xs = [jnp.asarray(a).astype(dtype) for a in args]
        jax.block_until_ready(xs)
        backend.submit = submit
        try:
            out = np.asarray(jax.jit(fn)(*xs).astype(jnp.float32), np.float64)
        finally:
            del backend.submit
    return out, seen


def head_reductions(launches) -> list:
    """Generic kernels reducing over D terms: a product that did not take the GEMM path."""
    return [k.name for k in launches if isinstance(k, Kernel) and k.reduce_op == "add" and k.reduce_shape == (D,)]


@pytest.mark.parametrize("platform", _devices())
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("b,t,dtype", [(1, 17, "float32"), (8, 33, "float32"), (2, 17, "float16"),
                                       (2, 17, "bfloat16")])
def test_attention_products_run_as_gemms(platform, name, b, t, dtype):
    if platform == "webgl" and (name not in WEBGL_CASES or dtype != "float32" or b == 8 and not conftest.WEBGL_ALL):
        pytest.skip("webgl: a sample (JAXWEB_TEST_WEBGL=1 runs all its float32 cases)")
    if platform == "webgpu-shared-split" and dtype != "float32":
        pytest.skip("the forced hardware kernels: float32 (the other dtypes are staged the same way)")
    fn, shapes, products = CASES[name]
    rng = np.random.default_rng(zlib.crc32(f"{name} {b} {t}".encode()))
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes(b, 6, t)]
    want, _ = run(CPU, fn, args, dtype)
    with device(platform) as dev:
        got, launches = run(dev, fn, args, dtype)
    tol = {"float32": 2e-5, "float16": 4e-3, "bfloat16": 3e-2}[dtype]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))
    assert sum(isinstance(k, Routine) and k.routine == "gemm_f32" for k in launches) == products, \
        [k.name for k in launches]
    assert not head_reductions(launches), head_reductions(launches)


@pytest.mark.parametrize("platform", _devices())
def test_heads_of_a_projection_are_read_in_place(platform):
    """Q sliced out of a (b, t, 3 h d) projection: its (batch, head) strides (t 3hd, d) do not
    flatten to one, so the routine indexes the pair (GemmSpec.bi = h) instead of a staging
    kernel copying Q (likewise V, read in place where the device reads B in place)."""
    fn, shapes, _ = CASES["heads_of_projection"]
    args = [np.random.default_rng(1).standard_normal(s).astype(np.float32) for s in shapes(2, 6, 17)]
    want, _ = run(CPU, fn, args, "float32")
    with device(platform) as dev:
        got, launches = run(dev, fn, args, "float32")
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())
    gemm, = [k for k in launches if isinstance(k, Routine)]
    assert gemm.spec.bi == 6 and gemm.spec.B == 12, gemm.spec
    assert not [k.name for k in launches if k.name.endswith("_stage_a")], [k.name for k in launches]
