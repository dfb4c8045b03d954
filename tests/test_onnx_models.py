"""Real torch exports through jaxweb.onnx, checked against onnxruntime's recorded outputs
(tests/data/onnx/*.npz, made by scripts/export_onnx_models.py with torch 2.13; no torch
needed here): a ResNet-18-shaped and a MobileNetV2-shaped CNN and a GPT-style decoder step
with a key/value cache, jitted, on wasm and webgpu; grad through the imported ResNet
fine-tunes its last layer. MiniLM (90 MB, not committed) runs when
`scripts/export_onnx_models.py --full` has put it in .cache/onnx/."""
from __future__ import annotations

import os

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.onnx

HERE = os.path.join(os.path.dirname(__file__), "data", "onnx")
FULL = os.path.join(os.path.dirname(os.path.dirname(__file__)), ".cache", "onnx")


def _check(path: str, platform: str, atol: float = 1e-4):
    rec = np.load(path[:-5] + ".npz")
    sess = jaxweb.onnx.InferenceSession(path)
    feeds = {k[3:]: rec[k] for k in rec.files if k.startswith("in_")}
    with jax.default_device(jax.devices(platform)[0]):
        outs = sess.run(None, feeds)
        for out, info in zip(outs, sess.get_outputs()):
            np.testing.assert_allclose(np.asarray(out), rec["out_" + info.name], rtol=1e-4, atol=atol)


@pytest.mark.parametrize("name", ["resnet18", "mobilenet", "gpt_step"])
def test_exports_match_onnxruntime_on_wasm(name):
    _check(os.path.join(HERE, f"{name}.onnx"), "wasm")


def _webgpu() -> bool:
    try:
        return bool(jax.devices("webgpu"))
    except RuntimeError:
        return False


@pytest.mark.skipif(not _webgpu(), reason="no webgpu device (wgpu-py)")
@pytest.mark.parametrize("name", ["resnet18", "gpt_step"])
def test_exports_match_onnxruntime_on_webgpu(name):
    _check(os.path.join(HERE, f"{name}.onnx"), "webgpu")


def test_fine_tune_the_imported_resnets_last_layer():
    """grad through the whole imported graph, updating only the classifier (Gemm) weights."""
    model = jaxweb.onnx.load(os.path.join(HERE, "resnet18.onnx"))
    head = [k for k, v in model.params.items() if v.ndim == 2]
    assert len(head) == 1, head
    x = jnp.asarray(np.load(os.path.join(HERE, "resnet18.npz"))["in_images"])
    labels = jnp.asarray([3, 7])

    def loss(trainable, x, y):
        logits = model.apply({**model.params, **trainable}, x)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))

    step = jax.jit(jax.value_and_grad(loss))
    params = {k: model.params[k] for k in head}
    losses = []
    with jax.default_device(jax.devices("wasm")[0]):
        for _ in range(5):
            value, g = step(params, x, labels)
            params = jax.tree.map(lambda p, d: p - 0.5 * d, params, g)
            losses.append(float(value))
    assert losses[-1] < 0.5 * losses[0], losses


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(os.path.join(FULL, "minilm.onnx")),
                    reason="run scripts/export_onnx_models.py --full (torch) to export MiniLM")
def test_minilm_export_matches_onnxruntime():
    _check(os.path.join(FULL, "minilm.onnx"), "wasm")
