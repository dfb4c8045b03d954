"""ONNX's own backend tests through jaxweb.onnx (natively: the `onnx` wheel generates the
node test cases and ships the light models).

Every node case that tests/data/onnx_node_results.json records as passing must still pass on
wasm, and every one recorded as unsupported must still raise jaxweb.onnx.Unsupported at load
(so the report stays honest); scripts/onnx_conformance.py regenerates the file and the table
in docs/onnx_conformance.md. Cases run one operator per test (sharing compilations). webgpu
(wgpu-py) runs a representative case per operator family; the light models run on wasm.
"""
from __future__ import annotations

import collections
import json
import os

import pytest

onnx = pytest.importorskip("onnx")

import jaxweb  # noqa: E402
import jaxweb.onnx  # noqa: E402
from onnx_backend import JaxwebRep, light_case, node_cases, run_case, run_light  # noqa: E402

RESULTS = os.path.join(os.path.dirname(__file__), "data", "onnx_node_results.json")
with open(RESULTS) as _f:
    RECORDED = json.load(_f)["cases"]
BY_OP = collections.defaultdict(list)
for _name, _r in RECORDED.items():
    BY_OP[_r["op"]].append(_name)


def _cases(names):
    want = set(names)
    return [c for c in node_cases() if c.name in want]


def test_recorded_rates_meet_the_goal():
    status = collections.Counter(r["status"].split(":")[0] for r in RECORDED.values())
    total, supported = sum(status.values()), sum(status.values()) - status["unsupported"]
    assert total == len(node_cases())
    assert status["pass"] / supported >= 0.95
    assert status["pass"] / total >= 0.80


@pytest.mark.parametrize("op", sorted(BY_OP))
def test_node_cases_on_wasm(op):
    bad = []
    for case in _cases(BY_OP[op]):
        want = RECORDED[case.name]["status"]
        if want == "pass":
            got = run_case(case, "wasm")
            if got != "pass":
                bad.append(f"{case.name}: {got}")
        elif want.startswith("unsupported"):
            got = run_case(case, "wasm")
            if not got.startswith("unsupported"):
                bad.append(f"{case.name}: {got} (recorded unsupported): rerun scripts/onnx_conformance.py")
    assert not bad, "\n".join(bad)


# one or two cases per operator family: the kernels they make differ by family
WEBGPU_CASES = ("test_add_bcast", "test_relu", "test_sigmoid", "test_softmax_axis_1", "test_matmul_3d",
                "test_gemm_all_attributes", "test_conv_with_strides_padding", "test_convtranspose_pads",
                "test_maxpool_2d_pads", "test_averagepool_2d_pads_count_include_pad", "test_globalaveragepool",
                "test_batchnorm_example", "test_layer_normalization_3d_axis1_epsilon", "test_reduce_mean_keepdims_example",
                "test_reshape_negative_dim", "test_transpose_all_permutations_3", "test_concat_3d_axis_1",
                "test_slice_neg_steps", "test_gather_1", "test_gather_elements_1", "test_scatter_elements_with_axis",
                "test_constant_pad", "test_resize_upsample_scales_linear", "test_top_k", "test_argmax_keepdims_example",
                "test_cumsum_2d_axis_1", "test_einsum_batch_matmul", "test_erf", "test_gelu_tanh_2",
                "test_where_example", "test_attention_4d_causal", "test_if", "test_range_float_type_positive_delta")


def _webgpu_available() -> bool:
    try:
        return bool(jaxweb.devices("webgpu"))
    except RuntimeError:
        return False


@pytest.mark.skipif(not _webgpu_available(), reason="no webgpu device (wgpu-py)")
def test_node_cases_on_webgpu():
    cases = _cases(WEBGPU_CASES)
    assert len(cases) == len(WEBGPU_CASES)
    bad = [f"{c.name}: {s}" for c in cases if (s := run_case(c, "webgpu")) != "pass"]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", ["bvlc_alexnet", "squeezenet"])
def test_light_models_on_wasm(name):
    [(got_name, status, _)] = list(run_light("wasm", [name]))
    assert status == "pass", status


@pytest.mark.slow
@pytest.mark.parametrize("name", ["shufflenet", "zfnet512", "inception_v1", "densenet121"])
def test_big_light_models_on_wasm(name):
    [(got_name, status, _)] = list(run_light("wasm", [name]))
    assert status == "pass", status


# 30-140 s each on the wasm device here (VGG-19: 20 GFLOP of 224x224 convolutions): CI skips them;
# `JAXWEB_ONNX_ALL_LIGHT=1` or scripts/onnx_conformance.py --light runs them.
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("JAXWEB_ONNX_ALL_LIGHT") != "1", reason="JAXWEB_ONNX_ALL_LIGHT=1 runs it")
@pytest.mark.parametrize("name", ["inception_v2", "resnet50", "vgg19"])
def test_biggest_light_models_on_wasm(name):
    [(got_name, status, _)] = list(run_light("wasm", [name]))
    assert status == "pass", status


@pytest.mark.skipif(not _webgpu_available(), reason="no webgpu device (wgpu-py)")
def test_light_model_on_webgpu():
    model, inputs, expected = light_case("squeezenet")
    got = JaxwebRep(model, "webgpu").run(inputs)[0]
    from onnx.backend.test.runner import Runner  # noqa: PLC0415
    Runner.assert_similar_outputs([expected], [got], rtol=1e-3, atol=1e-7)
