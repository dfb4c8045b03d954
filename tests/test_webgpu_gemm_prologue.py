"""Operands the GEMM routine computes as it loads its tiles (issue 22: fewer dispatches per step).

A matmul factor that is not a plain read — a fused producer (relu(h + b), an MLP's backward
mask), a transposed or strided weight — was computed by a stage-A or pack-B kernel into a
buffer the routine then read; on hardware adapters the shared-memory routine now evaluates it
per element as it fills its tiles (`GemmCaps.prologue`, `GemmSpec.a_expr` / `b_expr`), one launch
fewer each. Here (wgpu-py on lavapipe) the hardware kernels are forced on the software adapter,
with and without K splits, and checked against the cpu backend; the summation order is the
routine's as before (the operand values are the same float32 expressions).
"""
import dataclasses

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import execution
from jaxweb._src.compiler.gemm import GemmCaps

try:
    GPU = jaxweb.devices("webgpu")[0]
except RuntimeError as e:  # no wgpu-py or no adapter here
    pytest.skip(f"no webgpu device: {e}", allow_module_level=True)
CPU = jaxweb.devices("cpu")[0]
rng = np.random.default_rng(5)


def on(device, fn, *args):
    with jaxweb.default_device(device):
        return jaxweb.tree_util.tree_map(np.asarray, fn(*[jnp.asarray(a) for a in args]))


@pytest.fixture(params=["unsplit", "split"])
def hardware(request):
    """The shared-memory kernels with prologues, K split (small tiles) or not (big tiles). Eager
    flushes' schedules are cached by their graph alone (execution._TEMPLATES), not by the
    capabilities they were made under: they are dropped on the way in and out."""
    from jaxweb._src.backends.webgpu import matmul
    be = GPU.backend
    saved = be.tiling, be.capabilities
    be.tiling = matmul.HARDWARE
    plan = (lambda s: (64, min(16, max(1, s.K // 32)))) if request.param == "split" else None
    be.capabilities = dataclasses.replace(saved[1], gemm=GemmCaps(
        nr=128, min_dim=16, conv=False, pack_min_bytes=1 << 62, epilogue=True, prologue=True,
        max_buffers=saved[1].max_buffers, plan=plan))
    execution._TEMPLATES.pop(id(GPU), None)
    be._programs.clear()  # (compiled programs are cached by what they compute: tests list the new ones)
    try:
        yield be
    finally:
        be.tiling, be.capabilities = saved
        execution._TEMPLATES.pop(id(GPU), None)


def new_kernels(be, before):
    return [getattr(p, "name", "") for k, p in be._programs.items() if k not in before]


def test_operands_computed_as_loaded_match_the_reference(hardware):
    x = rng.standard_normal((130, 200)).astype(np.float32)
    w = rng.standard_normal((200, 140)).astype(np.float32)
    before = set(hardware._programs)

    def cases(x, w):
        h = jaxweb.nn.relu(x @ w + w[0])
        return (h @ w[:140, :70],                               # A: relu(h + b) (a fused producer)
                x[:, :140] @ w[:140].T[:, :96],                 # B: a transposed weight
                x[:, :140] @ jnp.where(w[:140, :50] > 0, w[:140, :50], 0.0),  # B: a mask, N past a tile
                jaxweb.nn.sigmoid(jnp.tanh(x[:, :64]).T @ x[:, :33]) + 1,   # A column-major, an epilogue
                jnp.matmul(jnp.exp(x[:128].reshape(2, 64, 200) * (0.1)), w.T[:40].T))  # a batch
    ref, got = on(CPU, cases, x, w), on(GPU, cases, x, w)
    for r, g in zip(ref, got):
        assert g.dtype == r.dtype and g.shape == r.shape
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=3e-4)
    names = new_kernels(hardware, before)
    assert not [n for n in names if n.endswith(("_stage_a", "_pack_b"))], names
    assert any(n.endswith("_gemm") for n in names)


def test_mlp_training_step_without_staging_kernels(hardware):
    """A jitted MLP step (the backward's relu mask and transposed weights as loaded)."""
    w1 = rng.standard_normal((40, 48)).astype(np.float32) * 0.2
    w2 = rng.standard_normal((48, 32)).astype(np.float32) * 0.2
    x = rng.standard_normal((96, 40)).astype(np.float32)

    @jaxweb.jit
    def step(w1, w2, x):
        def loss(w1, w2):
            return jnp.sum(jnp.tanh(jaxweb.nn.relu(x @ w1 + 0.1) @ w2) ** 2)
        g1, g2 = jaxweb.grad(loss, argnums=(0, 1))(w1, w2)
        return w1 - 0.01 * g1, w2 - 0.01 * g2

    def train(w1, w2, x):
        for _ in range(3):
            w1, w2 = step(w1, w2, x)
        return w1, w2
    before = set(hardware._programs)
    for r, g in zip(on(CPU, train, w1, w2, x), on(GPU, train, w1, w2, x)):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)
    names = new_kernels(hardware, before)
    assert not [n for n in names if n.endswith(("_stage_a", "_pack_b"))], names


def test_long_factors_are_still_staged(hardware):
    """A factor longer than PROLOGUE_NODES is computed once by a stage kernel, not per tile; a
    layer norm's (its statistics kernels of their own) is computed as loaded."""
    from jaxweb._src.compiler import gemm
    x = rng.standard_normal((64, 96)).astype(np.float32)
    w = rng.standard_normal((96, 80)).astype(np.float32)

    def long(v):
        for i in range(gemm.PROLOGUE_NODES):
            v = jnp.sin(v) + i
        return v

    def cases(x, w):
        norm = (x - x.mean(1, keepdims=True)) / jnp.sqrt(x.var(1, keepdims=True) + 1e-5)
        return norm @ w, long(x) @ w
    before = set(hardware._programs)
    for r, g in zip(on(CPU, cases, x, w), on(GPU, cases, x, w)):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=3e-4)
    names = new_kernels(hardware, before)
    assert [n for n in names if n.endswith("_stage_a")] == ["sin_add_dot_general_stage_a"], names
