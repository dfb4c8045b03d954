"""The wasm device's GEMM and direct-conv routines (backends/wasm/{matmul,conv}.py, staged
by compiler/{gemm,conv}.py) against numpy (float64) or the reference device, on shapes
that reach every branch: packed and in-place B, N not a multiple of 8, transposed and
sliced views, batched and broadcast batches, SAME/VALID/explicit padding, odd widths,
non-square kernels, strides and dilation (im2col), fused producers (a constant, an
activation) and epilogues (bias, relu). Each case also asserts which routine ran."""
import contextlib

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

pytest.importorskip("wasmtime")
WASM = jax.devices("wasm")[0]
CPU = jax.devices("cpu")[0]

CONVS = [((1, 64, 56, 56), (64, 64, 3, 3), "SAME"), ((2, 5, 16, 16), (7, 5, 3, 3), "SAME"),
         ((1, 3, 10, 18), (8, 3, 3, 3), "VALID"), ((1, 4, 16, 16), (9, 4, 5, 5), "SAME"),
         ((1, 8, 16, 24), (12, 8, 3, 1), "SAME"), ((1, 2, 9, 16), (6, 2, 2, 2), "SAME"),
         ((2, 8, 7, 7), (16, 8, 3, 3), "SAME"), ((1, 4, 10, 13), (6, 4, 3, 2), "VALID"),
         ((1, 8, 5, 3), (5, 8, 3, 3), "SAME")]
STRIDED_CONVS = [((1, 16, 20, 20), (8, 16, 3, 3), (2, 2), "SAME", None),
                 ((1, 16, 20, 20), (8, 16, 3, 3), (1, 1), "SAME", (2, 2)),
                 ((2, 8, 15, 15), (12, 8, 3, 3), (2, 2), "VALID", None),
                 ((1, 3, 32, 32), (16, 3, 7, 7), (2, 2), "SAME", None),
                 ((2, 4, 9, 9), (6, 4, 2, 3), (3, 2), ((1, 2), (0, 1)), None)]
MATMULS = [((64, 48), (48, 32)), ((100, 37), (37, 40)), ((16, 16), (16, 16)), ((64, 64), (64, 1001)),
           ((600, 700), (700, 599)), ((3, 40, 24), (3, 24, 16)), ((4, 64, 100), (4, 100, 33)),
           ((5, 32, 20), (20, 24)), ((32, 20), (5, 20, 24)), ((7, 300, 64), (7, 64, 64))]
rng = np.random.default_rng(0)


@contextlib.contextmanager
def modes_run():
    """The wasm program modes executed inside the block."""
    backend, seen = WASM.backend, []
    orig = backend.execute

    def execute(program, *args):
        seen.append(getattr(program, "mode", None))
        return orig(program, *args)
    backend.execute = execute
    try:
        with jax.default_device(WASM):
            yield seen
    finally:
        backend.execute = orig


def close(got, want, k):
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape
    err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
    assert err < 4e-5 * max(8, k) ** 0.5, err


def ref_conv(x, w, padding):
    kh, kw = w.shape[2:]
    pad = (((kh - 1) // 2, kh - 1 - (kh - 1) // 2), ((kw - 1) // 2, kw - 1 - (kw - 1) // 2)) \
        if padding == "SAME" else ((0, 0), (0, 0))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + pad)
    ho, wo = xp.shape[2] - kh + 1, xp.shape[3] - kw + 1
    return sum(np.einsum("oi,nihw->nohw", w[:, :, a, b], xp[:, :, a:a + ho, b:b + wo])
               for a in range(kh) for b in range(kw))


def randn(shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("xs,ws,pad", CONVS)
def test_stride1_conv_runs_as_gemm(xs, ws, pad):
    x, w = randn(xs), randn(ws)
    with modes_run() as seen:
        y = lax.conv_general_dilated(jnp.asarray(x), jnp.asarray(w), (1, 1), pad)
        close(y, ref_conv(x, w, pad), ws[1] * ws[2] * ws[3])
    assert "conv_f32" in seen, seen


@pytest.mark.parametrize("sa,sb", MATMULS)
def test_matmul_path(sa, sb):
    a, b = randn(sa), randn(sb)
    with modes_run() as seen:
        close(jnp.asarray(a) @ jnp.asarray(b), a.astype(np.float64) @ b, sa[-1])
    assert "gemm_f32" in seen, seen


@pytest.mark.parametrize("sa,sb", [((1000, 128), (128, 10)), ((1000, 10), (10, 128)), ((200, 300), (300, 4))])
def test_thin_products_take_the_gemm_path_when_big_enough(sa, sb):
    """An MLP's 10-class layer (N or K = 10) runs the GEMM on 8-column strips, cropped."""
    a, b = randn(sa), randn(sb)
    with modes_run() as seen:
        close(jnp.asarray(a) @ jnp.asarray(b), a.astype(np.float64) @ b, sa[-1])
        close(jnp.asarray(a).T @ (jnp.asarray(a) @ jnp.asarray(b)), a.T.astype(np.float64) @ (a @ b), sa[0] * sa[1])
    assert seen.count("gemm_f32") == 3, seen
    with modes_run() as seen:  # tiny thin products stay one kernel
        close(jnp.asarray(a[:8, :8]) @ jnp.asarray(b[:8, :4]), a[:8, :8].astype(np.float64) @ b[:8, :4], 8)
    assert "gemm_f32" not in seen, seen


def test_matmul_of_transposed_and_sliced_views():
    a, b = randn((200, 130)), randn((200, 72))
    c, d = randn((40, 24)), randn((24, 64))
    e, f = randn((4, 24, 40)), randn((4, 24, 16))
    with modes_run() as seen:
        close(jnp.asarray(a).T @ jnp.asarray(b), a.T.astype(np.float64) @ b, 200)
        close(jnp.asarray(c)[3:30] @ jnp.asarray(d)[:, 16:48], c[3:30].astype(np.float64) @ d[:, 16:48], 24)
        close(jnp.swapaxes(jnp.asarray(e), 1, 2) @ jnp.asarray(f), np.swapaxes(e, 1, 2).astype(np.float64) @ f, 24)
    assert seen.count("gemm_f32") == 3, seen


@pytest.mark.parametrize("xs,ws,st,pad,dil", STRIDED_CONVS)
def test_strided_and_dilated_conv_via_im2col(xs, ws, st, pad, dil):
    x, w = randn(xs), randn(ws)
    with jax.default_device(CPU):
        want = np.asarray(lax.conv_general_dilated(jnp.asarray(x), jnp.asarray(w), st, pad, rhs_dilation=dil))
    with modes_run() as seen:
        got = lax.conv_general_dilated(jnp.asarray(x), jnp.asarray(w), st, pad, rhs_dilation=dil)
        close(got, want.astype(np.float64), ws[1] * ws[2] * ws[3])
    assert "gemm_f32" in seen and "conv_f32" not in seen, seen


def test_fused_producers_and_epilogues_reach_the_routines():
    a, b, bias = randn((70, 50)), randn((50, 44)), randn((44,))
    x, w = randn((1, 6, 14, 14)), randn((8, 6, 3, 3))
    with modes_run() as seen:
        f = jax.jit(lambda a, b, c: jnp.maximum(jnp.tanh(a) @ b + c, 0))
        close(f(jnp.asarray(a), jnp.asarray(b), jnp.asarray(bias)),
              np.maximum(np.tanh(a.astype(np.float64)) @ b + bias, 0), 50)
        close(jnp.ones((40, 50)) @ jnp.asarray(b), np.ones((40, 50)) @ b.astype(np.float64), 50)
        g = jax.jit(lambda x, w: jnp.maximum(lax.conv_general_dilated(jnp.maximum(x, 0), w, (1, 1), "SAME"), 0))
        close(g(jnp.asarray(x), jnp.asarray(w)), np.maximum(ref_conv(np.maximum(x, 0), w, "SAME"), 0), 54)
    assert seen.count("gemm_f32") == 2 and seen.count("conv_f32") == 1, seen


def test_epilogue_of_a_batch_of_one():
    """A (1, M, K) @ (K, N) + bias — a transformer's dense layer on one sentence — reads each
    row of C in its epilogue kernel (it read row 0 for every row: a batch of one keeps 3-D)."""
    x, w, bias = randn((1, 40, 24)), randn((24, 32)), randn((32,))
    with modes_run() as seen:
        close(jnp.maximum(jnp.asarray(x) @ jnp.asarray(w) + jnp.asarray(bias), 0),
              np.maximum(x.astype(np.float64) @ w + bias, 0), 24)
        close(jnp.asarray(x) @ jnp.asarray(w).T[:, :24].T, x.astype(np.float64) @ w, 24)
    assert seen.count("gemm_f32") == 2, seen


def test_strided_conv_data_gradient_takes_the_conv_routine():
    """The data gradient of a stride-2 conv reads the flipped, regrouped kernel: copied to a
    contiguous kernel first, it is the direct conv routine (it was a generic reduction)."""
    x = randn((4, 8, 14, 14))
    w = randn((16, 8, 3, 3)) * 0.2
    ct = randn((4, 16, 7, 7))

    def f(x):
        return lax.conv_general_dilated(x, jnp.asarray(w), (2, 2), "SAME")
    _, vjp = jax.vjp(f, jnp.asarray(x))
    with modes_run() as seen:
        (gx,) = vjp(jnp.asarray(ct))
        got = np.asarray(gx, np.float64)
    assert "conv_f32" in seen, seen
    # reference: scatter each output's cotangent back through the window (SAME: pad lo 0, hi 1)
    xp = np.zeros((4, 8, 15, 15))
    for i in range(3):
        for j in range(3):
            xp[:, :, i:i + 14:2, j:j + 14:2] += np.einsum("nohw,oc->nchw", ct, w[:, :, i, j])
    close(got, xp[:, :, :14, :14], 8 * 9)
