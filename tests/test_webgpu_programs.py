"""The webgpu device (wgpu-py; Mesa lavapipe on CPU machines): matmuls and the GEMM kernels
(tiled at sizes that are not multiples of its tile, shared-memory and epilogue variants, the
tuner), jitted programs (a training step, one submit per call, loops), and the device itself:
adapters, 64-bit dtypes, errors naming kernels, the buffer pool, device loss.

Values are checked against `cpu` (the numpy oracle) as in tests/test_webgpu.py, with
tests/webgpu_check.py's `check`.
"""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import device as _device
from jaxweb._src import execution

from webgpu_check import CPU, GPU, check, own_rng  # noqa: F401 (own_rng: an autouse fixture)

rng = np.random.default_rng(0)  # replaced for each test (own_rng)


@pytest.mark.parametrize("m,k,n", [(17, 16, 16), (65, 33, 70), (130, 75, 67), (64, 128, 64)])
def test_matmul_tiles(m, k, n):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    check(lambda x, y: x @ y, a, b, rtol=1e-5, atol=1e-4)
    check(lambda x, y: jaxweb.nn.relu(x @ y + 0.5), a, b, rtol=1e-5, atol=1e-4)  # epilogue kernel
    check(lambda x, y: x.T.T @ (2 * y), a, b, rtol=1e-5, atol=1e-4)         # staged operand


def test_matmul_transposed_operands():
    a = rng.standard_normal((40, 72)).astype(np.float32)
    b = rng.standard_normal((40, 64)).astype(np.float32)
    check(lambda x, y: (x.T @ y, x[:, :66].T @ y, x[:, 1:67].T @ y, y.T @ x), a, b, rtol=1e-5, atol=1e-4)


def test_batched_matmul_and_matvec():
    a = rng.standard_normal((3, 40, 50)).astype(np.float32)
    b = rng.standard_normal((3, 50, 20)).astype(np.float32)
    check(lambda x, y: (jnp.matmul(x, y), jnp.einsum("bij,bkj->bik", x, x)), a, b, rtol=1e-5, atol=1e-4)
    check(lambda x, v: x[0] @ v, a, b[0, :, 0], rtol=1e-5, atol=1e-4)


def test_conv():
    x = rng.standard_normal((2, 3, 12, 12)).astype(np.float32)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    check(lambda a, b: jaxweb.lax.conv_general_dilated(a, b, (1, 1), "SAME"), x, w, rtol=1e-5, atol=1e-4)


def _mlp_step(params, x, y):
    def loss(p):
        h = jaxweb.nn.relu(x @ p[0] + p[1])
        logits = h @ p[2] + p[3]
        return -jnp.mean(jnp.sum(jaxweb.nn.log_softmax(logits) * y, axis=-1))
    l, g = jaxweb.value_and_grad(loss)(params)
    return l, [p - 0.1 * d for p, d in zip(params, g)]


def test_jitted_mlp_training_step():
    params = [rng.standard_normal((20, 32)).astype(np.float32) * 0.3, np.zeros(32, np.float32),
              rng.standard_normal((32, 10)).astype(np.float32) * 0.3, np.zeros(10, np.float32)]
    x = rng.standard_normal((24, 20)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 24)]
    step = jaxweb.jit(_mlp_step)

    def train(x, y, *p):
        p = list(p)
        losses = []
        for _ in range(3):
            l, p = step(p, x, y)
            losses.append(l)
        return losses, p
    check(train, x, y, *params, rtol=2e-5, atol=2e-6)


def test_one_submit_per_jitted_call():
    f = jaxweb.jit(lambda x: (jnp.exp(x).sum() * x).max(axis=0) + x.T @ x)
    with jaxweb.default_device(GPU):
        x = jnp.asarray(rng.standard_normal((32, 32)).astype(np.float32))
        f(x).block_until_ready()
        before = dict(GPU.backend.stats)
        f(x).block_until_ready()
    assert GPU.backend.stats["submits"] - before["submits"] == 1
    assert GPU.backend.stats["dispatches"] - before["dispatches"] >= 3


def test_loops_on_device():
    def f(x):
        c, ys = jaxweb.lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(3), x)
        return c, ys, jaxweb.lax.fori_loop(0, 5, lambda i, v: v * 1.5 + i, x[0])
    check(f, rng.standard_normal((6, 3)).astype(np.float32), rtol=1e-6)


def test_device_put_both_ways():
    a = rng.standard_normal((4, 5)).astype(np.float32)
    wasm = jaxweb.devices("wasm")[0]
    x = jaxweb.device_put(jnp.asarray(a), GPU)
    assert x.devices() == {GPU}
    y = jaxweb.device_put(x * 2, wasm)
    assert y.devices() == {wasm}
    z = jaxweb.device_put(y + 1, GPU)
    np.testing.assert_allclose(np.asarray(z), a * 2 + 1, rtol=1e-6)
    b = jaxweb.device_put(jnp.asarray(np.arange(5, dtype=np.int8)), GPU)
    np.testing.assert_array_equal(np.asarray(jaxweb.device_put(b, CPU)), np.arange(5, dtype=np.int8))


def test_software_adapter_is_never_the_default():
    assert GPU.backend.software  # lavapipe / SwiftShader here
    assert _device.default_backend() != "webgpu"
    assert jaxweb.devices("webgpu")[0] is GPU
    assert "webgpu" in repr(GPU).lower() and GPU.platform == "webgpu"


def test_64_bit_dtypes_are_a_clear_error():
    from jaxweb import config
    config.update("jax_enable_x64", True)
    try:
        with jaxweb.default_device(GPU):
            with pytest.raises(TypeError, match="float64.*wasm"):
                np.asarray(jnp.ones(3, jnp.float64) * 2)
            with pytest.raises(TypeError, match="int64"):
                np.asarray(jnp.arange(3, dtype=jnp.int64) + 1)
    finally:
        config.update("jax_enable_x64", False)


def test_integer_arguments_tangents_on_webgpu():
    """Integer inputs' tangents (float0, no bytes) are made on the device too: grad through a
    jitted call with an integer argument works, or raises JAX's own error, never a dtype error."""
    from jaxweb import lax
    with jaxweb.default_device(GPU):
        assert float(jaxweb.grad(jaxweb.jit(lambda x, n: x * n))(2.0, 3)) == 3.0
        g = jaxweb.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2, x))
        with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
            jaxweb.grad(g)(1.0, 3)


def test_gpu_errors_carry_the_wgsl():
    from jaxweb._src.backends.webgpu.runtime import WGSLError
    with pytest.raises(WGSLError, match="generated WGSL"):
        GPU.backend.rt.pipeline("fn main() { let x: f32 = 1u; }")


def test_jax_platforms_selects_webgpu():
    import os
    import subprocess
    import sys
    code = ("import jaxweb, jaxweb.numpy as jnp; "
            "print(jaxweb.default_backend(), (jnp.arange(4.0) * 2).sum().devices(), float((jnp.arange(4.0) * 2).sum()))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "JAX_PLATFORMS": "webgpu"},
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["webgpu", "{WebGPUDevice(id=0)}", "12.0"], out.stderr[-2000:]


def _epilogue_cases(x, y):
    """Products whose kernels have epilogues: bias and activations, N past a tile and not a
    multiple of 4, a batch, an operand read transposed, math expansions (logistic), three
    outputs (a weight gradient with Adam's update after it)."""
    grad, w = x[:, :40].T @ x[:, 40:72], y[:40, :32]
    mu, nu = 0.1 * grad + 0.9 * w, 0.001 * grad * grad + 0.999 * w * w
    return (jnp.maximum(x[:, :33] @ y[:33, :17] + y[0, :17], 0.0), w - 0.01 * mu / (jnp.sqrt(nu) + 1e-8), mu, nu,
            jaxweb.nn.sigmoid(jnp.matmul(x[:128].reshape(2, 64, 76), y[:, :130])) * 2 - x[:64, :1],
            (x @ y[:, :256]) * 2 + 1,
            x[:, :40] @ y[:40, :40] + x[:40, :40].T.sum() + y[:40, :40].T[0])


@pytest.mark.parametrize("epilogue", [False, True])
def test_shared_memory_gemm_of_hardware_adapters(epilogue):
    """The shared-memory kernel hardware adapters get (workgroup memory, barriers), run here:
    vec4 and element-wise loads, tails of every tile dimension, several tilings; epilogues as
    separate kernels or applied by the GEMM as it stores, with operands that are not plain reads
    computed as its tiles are loaded (as a hardware adapter's are) or staged."""
    import dataclasses

    from jaxweb._src.backends.webgpu import matmul
    from jaxweb._src.compiler.gemm import GemmCaps
    be = GPU.backend
    saved = be.tiling, be.capabilities
    try:
        for t in (matmul.HARDWARE, matmul.Tiling(64, 64, 8, 4, 4), matmul.Tiling(128, 64, 8, 8, 4)):
            be.tiling = t
            be.capabilities = dataclasses.replace(saved[1], gemm=GemmCaps(
                nr=t.BN, min_dim=16, conv=False, pack_min_bytes=1 << 30, epilogue=epilogue,
                prologue=epilogue, epilogue_outs=4 if epilogue else 1))
            # eager schedules are cached by graph and routines by spec, neither by the tiling
            execution._TEMPLATES.pop(id(GPU), None)
            be._programs.clear()
            a = rng.standard_normal((130, 76)).astype(np.float32)
            b = rng.standard_normal((76, 260)).astype(np.float32)
            check(lambda x, y: (jaxweb.jit(lambda p, q: p @ q)(x, y), x[:, :33] @ y[:33, :17],
                                jnp.matmul(x.reshape(2, 65, 76), y),
                                x[:, 1:] @ y[1:, 1:129],     # unaligned A rows, unaligned B in place
                                x[:, :75] @ y[:75, :128],    # K not a multiple of 4, BK
                                x.T[:, :64] @ x[:64, :128],  # column-major A (vec4 loads)
                                x[:, :75].T[:, :64] @ y[:64, :128],  # ... M not a multiple of 4
                                x[:, 1:].T[:, :64] @ y[:64, :128],   # ... unaligned
                                *_epilogue_cases(x, y)), a, b, rtol=1e-5, atol=1e-4)
    finally:
        be.tiling, be.capabilities = saved
        execution._TEMPLATES.pop(id(GPU), None)
        be._programs.clear()


def test_gemm_epilogues_run_inside_the_kernel():
    """On the adapter's own GEMM kernel (the quad kernel here) an epilogue is applied as C is
    stored: no epilogue kernel is made, and the values are the reference's."""
    a = rng.standard_normal((130, 76)).astype(np.float32)
    b = rng.standard_normal((76, 260)).astype(np.float32)
    be = GPU.backend
    before = set(be._programs)
    check(_epilogue_cases, a, b, rtol=1e-5, atol=1e-4)
    names = [getattr(p, "name", "") for k, p in be._programs.items() if k not in before]
    assert any(n.endswith("_gemm") for n in names) and not any(n.endswith("_epilogue") for n in names), names


def _run_gemm(spec, shader, a_flat, b_flat):
    """C (spec.B, M, N8) from a GEMM kernel run on the runtime directly."""
    rt = GPU.backend.rt
    bufs = [rt.create_buffer(4 * spec.B * spec.M * spec.N8), rt.create_buffer(a_flat.nbytes),
            rt.create_buffer(b_flat.nbytes)]
    rt.write(bufs[1], 0, a_flat.tobytes())
    rt.write(bufs[2], 0, b_flat.tobytes())
    pipe = rt.pipeline(shader.code)
    rt.submit([("dispatch", pipe, rt.bind_group(pipe, bufs), *shader.grid)])
    out = np.frombuffer(rt.read(bufs[0], 0, 4 * spec.B * spec.M * spec.N8), np.float32)
    for b in bufs:
        rt.destroy_buffer(b)
    return out.reshape(spec.B, spec.M, spec.N8)


def test_software_gemm_kernels():
    """Software adapters' GEMM kernels on their own: the quad kernel at every tile shape
    (A or B swapped, k tails, rows and columns past the tile, a batch, transposed A, B
    packed into strips or read in place), and the direct kernel of adapters without subgroups."""
    from jaxweb._src.backends.webgpu import matmul, quadgemm
    from jaxweb._src.compiler.gemm import GemmSpec
    sub = GPU.backend.subgroups
    if sub is None:
        pytest.skip("this adapter has no subgroups")
    B, M, K, N = 2, 37, 11, 21
    a = rng.standard_normal((B, M, K)).astype(np.float32)
    b = rng.standard_normal((B, K, N)).astype(np.float32)
    want = a @ b

    def strips(nr):  # B' in strips of nr columns, zero past N
        n8 = -(-N // nr) * nr
        out = np.zeros((B, n8 // nr, K, nr), np.float32)
        for j in range(N):
            out[:, j // nr, :, j % nr] = b[:, :, j]
        return out.ravel()

    row_major = dict(a_off=0, a_si=K, a_sk=1, a_sb=M * K)
    col_major = dict(a_off=0, a_si=1, a_sk=M, a_sb=M * K)
    at = np.ascontiguousarray(a.transpose(0, 2, 1)).ravel()
    groups = ((4, 4, 4), (1, 2, 8), (2, 1, 16))  # quads across, down; k steps per iteration
    for i, (P, Q) in enumerate(quadgemm._SHAPES):
        tile = quadgemm.QuadTile(P, Q, *groups[i % 3])
        for a_layout, a_in in ((row_major, a.ravel()), (col_major, at))[:1 + (P == Q == 2)]:
            spec = GemmSpec(M=M, N=N, K=K, B=B, nr=8, packed=True, **a_layout)
            sh = quadgemm.build(spec, matmul._b_layout(spec, matmul.QUAD), sub, tile)
            got = _run_gemm(spec, sh, a_in, strips(8))
            np.testing.assert_allclose(got[:, :, :N], want, rtol=1e-5, atol=1e-5, err_msg=repr(tile))
    wide = np.zeros((B, K, 24), np.float32)
    wide[:, :, :N] = b  # B read in place, rows 24 apart; the tile chosen for the product
    spec = GemmSpec(M=M, N=24, K=K, B=B, nr=8, packed=False, b_off=0, b_sk=24, b_sb=K * 24, **row_major)
    got = _run_gemm(spec, matmul.build(spec, matmul.QUAD, sub), a.ravel(), wide.ravel())
    np.testing.assert_allclose(got[:, :, :N], want, rtol=1e-5, atol=1e-5)
    spec = GemmSpec(M=M, N=N, K=K, B=B, nr=64, packed=True, **row_major)
    got = _run_gemm(spec, matmul.build(spec, matmul.SOFTWARE), a.ravel(), strips(64))
    np.testing.assert_allclose(got[:, :, :N], want, rtol=1e-5, atol=1e-5)


def test_gemm_batches_past_the_grid_limit():
    """A batch of more than 65535 products (one grid dimension's limit): every GEMM kernel's
    workgroups loop over the batches."""
    from jaxweb._src.backends.webgpu import matmul
    from jaxweb._src.compiler.gemm import GemmSpec
    B, M, K, N = 65537, 3, 2, 8
    a = rng.standard_normal((B, M, K)).astype(np.float32)
    b = rng.standard_normal((B, K, N)).astype(np.float32)
    want = a @ b
    tilings = [matmul.SOFTWARE, matmul.Tiling(64, 64, 8, 4, 4)]
    if GPU.backend.subgroups is not None:
        tilings.append(matmul.QUAD)
    for t in tilings:
        nr = t.BN
        wide = np.zeros((B, K, nr), np.float32)
        wide[:, :, :N] = b  # B' as one strip nr wide (rows nr apart)
        spec = GemmSpec(M=M, N=nr, K=K, B=B, nr=nr, packed=False, b_off=0, b_sk=nr, b_sb=K * nr,
                        a_off=0, a_si=K, a_sk=1, a_sb=M * K)
        sh = matmul.build(spec, t, GPU.backend.subgroups)
        assert sh.grid[2] == 65535
        got = _run_gemm(spec, sh, a.ravel(), wide.ravel())
        np.testing.assert_allclose(got[:, :, :N], want, rtol=1e-5, atol=1e-5, err_msg=repr(t))
    x = rng.standard_normal((B, 16, 16)).astype(np.float32)
    with jaxweb.default_device(GPU):  # and through the scheduler
        got = np.asarray(jnp.matmul(jnp.asarray(x), jnp.asarray(x)))
    np.testing.assert_allclose(got, x @ x, rtol=1e-5, atol=1e-4)


def test_tuner_times_the_candidates_and_keeps_the_fastest(monkeypatch):
    """Hardware adapters pick their GEMM tiling by timing the candidates before the first
    schedule (run here on lavapipe, at a small size); the winner sets the strip width."""
    from jaxweb._src.backends.webgpu import backend as wb, matmul, tuner
    best, times = tuner.tune(GPU.backend.rt, n=96)
    assert set(times) == set(tuner.CANDIDATES) and best is min(times, key=times.get)
    assert all(0 < t < 60 for t in times.values())
    monkeypatch.setattr(tuner, "SIZE", 96)
    monkeypatch.setattr(tuner, "SPLIT_M", 128)  # the few-tiles class: 4 small tiles, K split 1-8 ways
    monkeypatch.setattr(tuner, "SPLIT_K", 256)
    be = wb.WebGPUBackend()
    be._caps = None  # as a hardware adapter starts
    assert be.capabilities.gemm.nr == be.tiling.BN and be.tiling in tuner.CANDIDATES
    assert set(be.tuned) == set(tuner.CANDIDATES)
    assert set(be.tuned_splits) == {1, 2, 4, 8} and be.capabilities.gemm.plan is not None
    with jaxweb.default_device(_device.Device("webgpu", 9, be)):
        a = rng.standard_normal((70, 130)).astype(np.float32)
        got = np.asarray(jaxweb.jit(lambda x: x @ x.T)(jnp.asarray(a)))
    np.testing.assert_allclose(got, a @ a.T, rtol=1e-5, atol=1e-4)
    fake = type("Rt", (), {"info": {"limits": {"maxComputeInvocationsPerWorkgroup": 128}}})()
    assert tuner.tune(fake) == (matmul.SOFTWARE, {})  # no shared-memory tiling fits: untimed


def test_submit_errors_name_the_kernels():
    from jaxweb._src.backends.webgpu.runtime import WGSLError
    be = GPU.backend
    with jaxweb.default_device(GPU):
        x = jnp.arange(8.0) * 2
        np.asarray(x)
    # any static kernel's program (which one depends on the tests run before in this process), with
    # buffers as big as its bindings declare (a sized shader's, on software adapters; not a GEMM
    # routine's, whose sized operands no min_bytes describes: quadgemm.py)
    p = next(q for q in be._programs.values() if not q.shader.dynamic and not q.name.endswith("_gemm"))
    bad = be.alloc(max(p.shader.min_bytes or (), default=0) or 16)
    be._pending.append(("dispatch", p.pipeline, be.rt.bind_group(p.pipeline, [bad.buf] * (p.shader.n_out + p.shader.n_in)),
                        1 << 20, 1 << 20, 1))  # more workgroups than any limit allows
    with pytest.raises(WGSLError, match="kernels: "):
        be.flush()
    np.testing.assert_array_equal(np.asarray(jnp.arange(3.0, device=GPU) + 1), [1, 2, 3])  # still usable


def test_first_call_pipelines_compiled_together(monkeypatch):
    """Where the runtime can start pipelines without waiting (Pyodide: pipeline_soon), a schedule's
    new kernels are all started before one wait (WebGPUBackend.prepare) and its Programs get
    the pipelines; a shader the runtime rejects raises WGSLError naming its kernel, and nothing
    half-made stays cached (the same call works once the runtime accepts it). Here a stand-in
    for Pyodide's pair, over wgpu-py's synchronous compile."""
    from jaxweb._src.backends.webgpu.backend import Soon
    from jaxweb._src.backends.webgpu.runtime import WGSLError
    be = GPU.backend
    rt = be.rt
    waits, reject = [], []

    def wait(started):
        waits.append(len(started))
        return [(None, "rejected on purpose") if reject else (rt.pipeline(code), None) for code in started]
    monkeypatch.setattr(rt, "pipeline_soon", lambda code: code, raising=False)
    monkeypatch.setattr(rt, "pipelines_wait", wait, raising=False)
    a = rng.standard_normal((5, 13)).astype(np.float32)
    check(lambda x: jaxweb.jit(lambda y: jnp.tanh(y) @ y.T + jnp.cbrt(y).sum(axis=1))(x), a, rtol=1e-5, atol=1e-5)
    assert waits and max(waits) >= 2  # several kernels started, then one wait
    assert not any(type(getattr(p, "pipeline", None)) is Soon for p in be._programs.values())
    waits.clear()
    reject.append(True)
    f = jaxweb.jit(lambda y: jnp.arctan(y[:, :11]) * 3 - jnp.expm1(y).max())
    with jaxweb.default_device(GPU):
        with pytest.raises(WGSLError, match="rejected on purpose") as e:
            f(jnp.asarray(a[:3]))
    assert waits and any("kernel '" in n for n in e.value.__notes__)
    assert not any(type(getattr(p, "pipeline", None)) is Soon for p in be._programs.values())
    reject.clear()
    check(lambda x: f(x), a[:3], rtol=1e-5, atol=1e-5)


def test_complex64_linear_algebra():
    """The complex factorizations (conjugate transposes, complex Householder and Jacobi
    rotations, the Schur form's QR loop) are float-pair kernels and loops on webgpu too."""
    z = (rng.standard_normal((2, 4, 4)) + 1j * rng.standard_normal((2, 4, 4))).astype(np.complex64)
    h = (z @ np.conj(np.swapaxes(z, -1, -2)) + np.eye(4)).astype(np.complex64)
    check(lambda a: (jnp.linalg.cholesky(a), jnp.linalg.eigvalsh(a), jnp.linalg.slogdet(a)), h,
          rtol=1e-4, atol=1e-5)
    check(lambda a: (jnp.linalg.solve(a, a[..., :1]), jnp.linalg.qr(a)[1], jnp.linalg.svdvals(a)), z,
          rtol=1e-4, atol=1e-4)
    check(lambda a: jnp.sort_complex(jnp.linalg.eigvals(a)), z[0], rtol=1e-4, atol=1e-4)


def test_buffers_freed_mid_schedule_outlive_its_commands(monkeypatch):
    """With the pool full, a freed buffer is destroyed — but only after the commands recorded
    in the same submit that bind it (at n = 8192 on the H200 a GEMM's staging buffer was
    destroyed first: 'no bind group with handle')."""
    from jaxweb._src.backends.webgpu import backend as wb
    monkeypatch.setattr(wb, "POOL_BYTES", 0)
    # multiples of 1/16: both GEMMs are exact in any summation order, so the values compared
    # differ only by tanh's rounding (normal data left some within float32 noise of the tolerance)
    x = (rng.integers(-4, 5, (40, 30)) / 16).astype(np.float32)
    check(jaxweb.jit(lambda a: jnp.tanh((a @ a.T + 1.0) @ a) * 2.0), x, rtol=2e-5, atol=2e-5)


def test_a_full_pool_drops_the_least_recently_freed(monkeypatch):
    """A new buffer is costly (Dawn clears it on first use), so a full pool makes room for the
    buffer just freed: a loop's output is reused however full the pool was before (at
    n = 8192 the matmul outputs filled it and x*2+1 over 256 MB made a new buffer per call)."""
    from jaxweb._src.backends.webgpu import backend as wb
    monkeypatch.setattr(wb, "POOL_BYTES", 3 * 1024)
    be = wb.WebGPUBackend()
    hs = [be.alloc(1024) for _ in range(4)]
    for h in hs:
        be.free(h)
    assert be.pool.bytes == 3 * 1024 and len(be.pool) == 3
    assert be.alloc(1000).buf is hs[3].buf  # the last freed is kept, the first one went
    assert hs[0] not in be.pool.free[1024] and all(h.buf is not hs[0].buf for h in be.pool.free[1024])
    big = be.alloc(2048)
    be.free(big)  # room for it: the older of the two 1 KiB buffers left goes
    assert be.pool.free[1024] == [hs[2]] and be.pool.bytes == 3 * 1024
    assert be.alloc(2048).buf is big.buf and be.pool.bytes == 1024
    with jaxweb.default_device(_device.Device("webgpu", 8, be)):  # and values stay right
        x = jnp.arange(300.0)
        for i in range(4):
            y = x * 2 + i
        assert y[299].tolist() == 601.0


def test_a_value_webgpu_cannot_compute_does_not_poison_later_reads():
    """A float64 value made under x64 stays pending on webgpu (it cannot compute it); later
    reads of 32-bit values on the device must still work."""
    from jaxweb._src import execution
    try:
        with jaxweb.default_device(GPU):
            with jaxweb.enable_x64(True):
                x = jnp.arange(6.0)
                with pytest.raises(TypeError, match="(float|int)64"):
                    np.asarray(x[jnp.asarray(np.int64([5, -1]))])
            np.testing.assert_array_equal(np.asarray(jnp.arange(3.0) + 1), [1, 2, 3])
    finally:
        execution._QUEUES.pop(id(GPU), None)  # the stale value must not reach the next test


def test_device_loss_is_a_clear_error_and_a_new_device_follows():
    """A lost device (driver reset, GPU removed, device.destroy()) raises DeviceLostError for
    the arrays it held, never their stale bytes; later work runs on a new device."""
    from jaxweb._src.backends.webgpu.backend import WebGPUBackend
    from jaxweb._src.backends.webgpu.runtime import DeviceLostError
    dev = _device.Device("webgpu", 7, WebGPUBackend())  # its own device: the module's GPU stays
    double = jaxweb.jit(lambda v: v * 2)
    scale = jaxweb.jit(lambda v, s: v * s)  # its scalar argument's buffer is the program's own
    with jaxweb.default_device(dev):
        x = jnp.arange(4.0) * 2
        assert x.tolist() == [0.0, 2.0, 4.0, 6.0]
        assert double(jnp.arange(3.0)).tolist() == [0.0, 2.0, 4.0]
        assert scale(jnp.arange(3.0), 3.0).tolist() == [0.0, 3.0, 6.0]
        old = dev.backend.rt
        old.device.destroy()
        with pytest.raises(DeviceLostError, match="lost"):
            (x + 1).tolist()
        assert dev.backend.stats["devices_lost"] == 1 and dev.backend.rt is not old
        assert (jnp.arange(3.0) * 3 + 1).tolist() == [1.0, 4.0, 7.0]  # on the new device
        # kernels compiled for the lost device (cached programs, a prepared jitted call) run again
        assert (jnp.arange(4.0) * 2).tolist() == [0.0, 2.0, 4.0, 6.0]
        assert double(jnp.arange(3.0)).tolist() == [0.0, 2.0, 4.0]
        assert scale(jnp.arange(3.0), 3.0).tolist() == [0.0, 3.0, 6.0]  # made anew, on the new device
        with pytest.raises(DeviceLostError, match="was on a WebGPU device that was lost"):
            x.tolist()
        y = jnp.ones(5) * 2  # allocations, pipelines and bind groups all work again
        assert jaxweb.jit(lambda a: (a @ a.T).sum())(jnp.ones((20, 20))).tolist() == 8000.0
        assert y.tolist() == [2.0] * 5 and dev.backend.stats["devices_lost"] == 1


def test_gemm_epilogue_past_the_binding_limit_runs_as_a_kernel():
    """A GEMM whose epilogue would take the routine past the adapter's storage-buffer limit
    (C, staged A, packed B and its inputs) keeps its epilogue kernel, with the same values."""
    import dataclasses
    be = GPU.backend
    saved = be.capabilities
    a = rng.standard_normal((40, 36)).astype(np.float32)
    w = rng.standard_normal((36, 20)).astype(np.float32)
    c = rng.standard_normal((40, 20)).astype(np.float32)
    try:
        be.capabilities = dataclasses.replace(saved, gemm=dataclasses.replace(saved.gemm, max_buffers=5))
        before = set(be._programs)
        check(lambda x, y, z: (x * 2) @ (y + 1) + x[:, :20] + y[:20, :].sum(0) * z, a, w, c, rtol=1e-5, atol=1e-4)
        names = [getattr(p, "name", "") for k, p in be._programs.items() if k not in before]
        assert any(n.endswith("_epilogue") for n in names), names
    finally:
        be.capabilities = saved
