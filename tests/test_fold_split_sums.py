"""A K-split product's partial sums added by the kernels that read it (compiler/fold.py):
no split-sum launch where every reader is an ordinary kernel, the output is not the
program's, and the extra reads fit `GemmCaps.fold_bytes`. The hardware GEMM kernels and a
plan splitting every product are forced on the local adapter (conftest.hardware_gemm); values
are checked against numpy (the partials are added in the split-sum kernel's order).
"""
import contextlib
import dataclasses

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp

import conftest

try:
    GPU = jaxweb.devices("webgpu")[0]
except RuntimeError as e:  # no wgpu-py or no adapter here
    pytest.skip(f"no webgpu device: {e}", allow_module_level=True)
rng = np.random.default_rng(11)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@contextlib.contextmanager
def folding(fold_bytes: int = 1 << 25):
    """Hardware GEMM kernels, every product's K split in 4, folds within `fold_bytes`."""
    with conftest.hardware_gemm(GPU, plan=lambda s, after: (64, 4)) as be:
        be.capabilities = dataclasses.replace(be.capabilities, gemm=dataclasses.replace(
            be.capabilities.gemm, fold_bytes=fold_bytes))
        yield be


def launches(f, *args) -> list[str]:
    with jaxweb.default_device(GPU):
        return [k.name for k in jaxweb.jit(f).lower(*args).compile()._exe.schedule.launches]


def run(f, *args):
    with jaxweb.default_device(GPU):
        return jaxweb.tree_util.tree_map(np.asarray, jaxweb.jit(f)(*args))


def close(got, want, tol=1e-4):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol)


def _readers(x, w, v, b):
    """h = x @ w + b read by a column sum, a row sum and a thin product (N = 10)."""
    h = x @ w + b
    return jnp.tanh(h).sum(0), jnp.maximum(h, 0).sum(1), jnp.maximum(h, 0) @ v


def test_partial_sums_added_by_every_reader():
    x, w, v, b = randn(96, 256), randn(256, 80), randn(80, 10), randn(80)
    with folding():
        names = launches(_readers, x, w, v, b)
        got = run(_readers, x, w, v, b)
    assert not any(n.endswith("_split_sum") for n in names), names
    assert any(n.endswith("_gemm") for n in names), names
    h = x @ w + b
    close(got[0], np.tanh(h).sum(0), 1e-3)
    close(got[1], np.maximum(h, 0).sum(1), 1e-3)
    close(got[2], np.maximum(h, 0) @ v, 1e-3)


def test_values_equal_the_split_sum_pass():
    """The readers add the partials in the split-sum kernel's order: the same floats."""
    x, w, v, b = randn(96, 256), randn(256, 80), randn(80, 10), randn(80)
    with folding():
        folded = run(_readers, x, w, v, b)
    with folding(0):
        assert any(n.endswith("_split_sum") for n in launches(_readers, x, w, v, b))
        summed = run(_readers, x, w, v, b)
    for a, s in zip(folded, summed):
        np.testing.assert_array_equal(a, s)


def _gathers(x, w, ids, y, labels):
    """Readers of h = x @ w at positions loaded from other inputs: a clipped take, h[ids] and a
    cross-entropy's label pick (take_along_axis)."""
    h = x @ w
    picked = jnp.take_along_axis(h[:50], labels[:, None], axis=1)[:, 0]
    return (jnp.tanh(jnp.take(jnp.tanh(h), ids, axis=0, mode="clip") + h[:50] * y).sum(0),
            (h[ids] * y).sum(1), picked)


def test_readers_that_gather_read_their_indices_from_the_right_inputs():
    """Final read of 2026-12-05, FINDING 1: a folded reader's gather index loaded another input
    through the reader's old input numbering (wrong buffer: errors of 14-724)."""
    x, w, y = randn(96, 256), randn(256, 80), randn(50, 80)
    ids = rng.integers(0, 96, (50,)).astype(np.int32)
    labels = rng.integers(0, 80, (50,)).astype(np.int32)
    with folding():
        folded = run(_gathers, x, w, ids, y, labels)
    with folding(0):
        summed = run(_gathers, x, w, ids, y, labels)
    h = x.astype(np.float64) @ w
    want = (np.tanh(np.tanh(h[ids]) + h[:50] * y).sum(0), (h[ids] * y).sum(1),
            np.take_along_axis(h[:50], labels[:, None], axis=1)[:, 0])
    for a, s, ref in zip(folded, summed, want):
        np.testing.assert_array_equal(a, s)
        close(a, ref, 1e-3)


def test_not_folded_past_the_budget_for_outputs_or_products():
    x, w, v, b = randn(96, 256), randn(256, 80), randn(80, 10), randn(80)
    with folding(1000):  # the readers re-read far more than 1000 bytes
        assert any(n.endswith("_split_sum") for n in launches(_readers, x, w, v, b))
    with folding():
        # the product is a program output: its buffer must exist
        out = lambda x, w, b: (x @ w + b, jnp.tanh(x @ w + b))
        assert any(n.endswith("_split_sum") for n in launches(out, x, w, b))
        got = run(out, x, w, b)
        close(got[0], x @ w + b)
        close(got[1], np.tanh(x @ w + b))
        # read by another GEMM routine (a big product): not an ordinary kernel
        w2 = randn(80, 64)
        chain = lambda x, w, w2: jnp.tanh((x @ w) @ w2)
        assert any(n.endswith("_split_sum") for n in launches(chain, x, w, w2))
        close(run(chain, x, w, w2), np.tanh((x @ w) @ w2), 1e-3)


def test_attention_block_under_a_gpu_configuration():
    """All of it at once, as on a GPU: hardware GEMM kernels, every K split (products read by
    products keep their sums pass), short rows inline (the softmax's row sum of exp in its row-max
    kernel; its 16-key rows feed a product, which computes no nested reduction; a 48-wide layer
    norm past the bound: kernels)."""
    from jaxweb._src import execution
    from jaxweb._src.backends.webgpu import codegen
    B, T, D = 2, 16, 48
    x, wq, wk, wv, wo = randn(B, T, D), randn(D, D), randn(D, D), randn(D, D), randn(D, D)

    def block(x, wq, wk, wv, wo):
        q, k, v = x @ wq, x @ wk, x @ wv
        a = jax_softmax(q @ k.transpose(0, 2, 1) / np.sqrt(D).astype(np.float32))
        h = x + (a @ v) @ wo
        mu = h.mean(-1, keepdims=True)
        return (h - mu) / jnp.sqrt(((h - mu) ** 2).mean(-1, keepdims=True) + 1e-5)

    def ref(x, wq, wk, wv, wo):
        s = (x @ wq) @ (x @ wk).transpose(0, 2, 1) / np.sqrt(D)
        e = np.exp(s - s.max(-1, keepdims=True))
        h = x + ((e / e.sum(-1, keepdims=True)) @ (x @ wv)) @ wo
        return (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5)
    with folding() as be:
        saved = be.capabilities
        be.capabilities = dataclasses.replace(saved, inline_reduce=codegen.INLINE_REDUCE)
        execution._TEMPLATES.pop(id(GPU), None)
        try:
            got = run(block, x, wq, wk, wv, wo)
        finally:
            be.capabilities = saved
    close(got, ref(x, wq, wk, wv, wo), 1e-3)


def jax_softmax(s):
    return jaxweb.nn.softmax(s, axis=-1)
