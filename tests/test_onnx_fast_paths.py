"""jaxweb.onnx's fast paths for transformer exports give onnxruntime's answers: float32 Erf/Gelu
in float32 polynomials (mathlib's float32 erf, its ulps tested in test_wasm_math; Gelu in
onnx/fast_math.py), Gather with host-known runs of indices read as a slice, MatMul of two 4-D stacks through one collapsed batch dimension (natively: onnx.helper
builds the graphs, onnxruntime is the oracle)."""
from __future__ import annotations

import math

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import jaxweb as jax  # noqa: E402
import jaxweb.numpy as jnp  # noqa: E402
import jaxweb.onnx  # noqa: E402


def _model(nodes, inputs, outputs, inits=(), opset=20):
    g = helper.make_graph(nodes, "t", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _both(model: bytes, feeds: dict, device: str = "wasm"):
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    m = jaxweb.onnx.load(model)
    with jax.default_device(jax.devices(device)[0]):
        got = jax.jit(m.apply)(m.params, *[jnp.asarray(v) for v in feeds.values()])
    got = got if isinstance(got, (tuple, list)) else [got]
    return [np.asarray(g) for g in got], want


def test_erf_and_gelu_nodes_match_onnxruntime():
    x = np.linspace(-6, 6, 4001, dtype=np.float32).reshape(1, -1)
    vi = helper.make_tensor_value_info
    model = _model([helper.make_node("Erf", ["x"], ["e"]), helper.make_node("Gelu", ["x"], ["g"])],
                   [vi("x", TensorProto.FLOAT, [1, 4001])],
                   [vi("e", TensorProto.FLOAT, [1, 4001]), vi("g", TensorProto.FLOAT, [1, 4001])])
    (erf, gelu), want = _both(model, {"x": x})
    np.testing.assert_allclose(erf, want[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gelu, want[1], rtol=1e-5, atol=1e-7)
    exact = np.array([v * math.erfc(-v / math.sqrt(2)) / 2 for v in x[0].astype(np.float64)])
    np.testing.assert_allclose(gelu[0], exact, rtol=1e-5, atol=1e-30)  # the tail too, not 0


@pytest.mark.parametrize("ids, axis", [(np.arange(4096).reshape(32, 1, 1, 128), 0),  # a run: a reshape
                                       (np.array([[2, 3], [4, 5]]), 1), (np.array([-3, -2, -1]), 1),
                                       (np.zeros((2, 3), np.int64), 0), (np.array([[1]]), 1),
                                       (np.array([0, 2, 1]), 1)])  # not a run: the gather
def test_gather_with_host_known_indices(ids, axis):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 6) if ids.size == 4096 else (4, 6)).astype(np.float32)
    idx = numpy_helper.from_array(ids.astype(np.int64), "idx")
    out_shape = list(x.shape[:axis]) + list(ids.shape) + list(x.shape[axis + 1:])
    vi = helper.make_tensor_value_info
    model = _model([helper.make_node("Gather", ["x", "idx"], ["y"], axis=axis)],
                   [vi("x", TensorProto.FLOAT, list(x.shape))], [vi("y", TensorProto.FLOAT, out_shape)], [idx])
    [got], [want] = _both(model, {"x": x})
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shapes", [((2, 3, 5, 4), (2, 3, 4, 6)), ((2, 3, 5, 4), (1, 3, 4, 6)),
                                    ((2, 2, 3, 5, 4), (2, 2, 3, 4, 6)), ((2, 3, 5, 4), (4, 6))])
def test_matmul_of_stacks_matches_onnxruntime(shapes):
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    vi = helper.make_tensor_value_info
    model = _model([helper.make_node("MatMul", ["a", "b"], ["y"])],
                   [vi("a", TensorProto.FLOAT, list(a.shape)), vi("b", TensorProto.FLOAT, list(b.shape))],
                   [vi("y", TensorProto.FLOAT, None)])
    [got], [want] = _both(model, {"a": a, "b": b})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
