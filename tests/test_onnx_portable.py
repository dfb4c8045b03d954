"""jaxweb.onnx without numpy or the `onnx` package (marked `pyodide`: also runs inside Pyodide).

TINY is a 478-byte model made with onnx.helper (IR 8, opset 17): Gemm (W in raw_data, b in
float_data) -> Relu -> Mul by a float16 initializer cast to float -> Unsqueeze -> Reshape to
[Shape(x)[0], -1] (int64_data constants): it exercises the protobuf reader's field kinds and
the shape arithmetic folded at trace time. Expected values are onnxruntime's."""
import base64
import io

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.onnx

pytestmark = pytest.mark.pyodide

TINY = base64.b64decode(
    "CAgSC2pheHdlYi10ZXN0OsYDChgKAXgKAVcKAWISAWcaBGdlbW0iBEdlbW0KDAoBZxIBciIEUmVsdQobCgNzMTYSA3MzMiIEQ2FzdCoJ"
    "CgJ0bxgBoAECChAKAXIKA3MzMhIBbSIDTXVsCg4KAXgSAnhzIgVTaGFwZQoiCgJ4cwoEaWR4MBIBbiIGR2F0aGVyKgsKBGF4aXMYAKAB"
    "AgooCgFuCgZtaW51czESBnRhcmdldCIGQ29uY2F0KgsKBGF4aXMYAKABAgoXCgFtCgNvbmUSAm11IglVbnNxdWVlemUKGAoCbXUKBnRh"
    "cmdldBIBeSIHUmVzaGFwZRIEdGlueSo7CAMIBBABQgFXSjAAAAC/zczMvpqZmb7MzEy+zMzMvQAAAADQzMw9zMxMPpqZmT7MzMw+AAAA"
    "P5qZGT8qGQgEEAEiEM3MzD3NzEy+mpmZPs3MzL5CAWIqEwgEEApCA3MxNkoIAEAAOAA8AEIqDQgBEAc6AQBCBGlkeDAqGAgBEAc6Cv//"
    "/////////wFCBm1pbnVzMSoMCAEQBzoBAUIDb25lWhgKAXgSEwoRCAESDQoHEgViYXRjaAoCCANiGAoBeRITChEIARINCgcSBWJhdGNo"
    "CgIIBEIECgAQEQ==")
X = [[1.0, 2.0, 3.0], [-1.0, 0.0, 2.0]]
WANT = [[0.6000000834465027, 0.29999998211860657, 1.7000000476837158, 4.800000190734863],
        [2.4000000953674316, 0.4999999701976776, 1.5999999046325684, 3.000000476837158]]


def _close(got, want, tol=1e-5):
    got = got.tolist() if hasattr(got, "tolist") else got
    return all(abs(a - b) <= tol * (1 + abs(b)) for ra, rb in zip(got, want) for a, b in zip(ra, rb))


def test_load_describes_the_graph():
    m = jaxweb.onnx.load(TINY)
    assert m.opset == 17 and len(m.graph.nodes) == 9
    [x] = m.inputs
    assert (x.name, x.type, x.shape) == ("x", "tensor(float)", ("batch", 3))
    assert m.outputs[0].shape == ("batch", 4)
    assert sorted(m.params) == ["W", "b", "s16"] and m.params["s16"].dtype == jnp.float16
    assert sorted(m.constants) == ["idx0", "minus1", "one"]
    assert m.params["b"].tolist() == pytest.approx([0.1, -0.2, 0.3, -0.4])


def test_apply_eager_jit_and_session():
    m = jaxweb.onnx.load(io.BytesIO(TINY))
    assert _close(m(jnp.asarray(X)), WANT)
    assert _close(jax.jit(m.apply)(m.params, jnp.asarray(X)), WANT)
    sess = jaxweb.onnx.InferenceSession(TINY)
    assert [i.name for i in sess.get_inputs()] == ["x"] and sess.get_outputs()[0].name == "y"
    [y] = sess.run(None, {"x": X})
    assert _close(y, WANT)
    with pytest.raises(ValueError, match="unknown input"):
        sess.run(None, {"z": X})


def test_grad_and_vmap_through_the_model():
    m = jaxweb.onnx.load(TINY)
    g = jax.grad(lambda p, x: jnp.sum(m.apply(p, x) ** 2))(m.params, jnp.asarray(X))
    assert set(g) == set(m.params) and g["W"].shape == (3, 4)
    # d/db of sum((relu(xW+b)*s)^2) = 2 * relu(.) * s^2 summed over rows where positive
    assert abs(float(g["b"][3]) - 2 * 9 * (WANT[0][3] / 3 + WANT[1][3] / 3)) < 1e-3
    rows = jax.vmap(lambda r: m(r[None])[0])(jnp.asarray(X))
    assert _close(rows, WANT)


def test_unsupported_operator_raises_at_load():
    bad = base64.b64decode("CAo6WQoPCgF4EgF5GgExIgRDZWx1Ch8KAXkSAXoaBXdlaXJkIhBTdHJpbmdOb3JtYWxpemVyEgNiYWRaDwoBeBIK"
                           "CggIARIECgIIAmIPCgF6EgoKCAgBEgQKAggCQgQKABAR")
    with pytest.raises(jaxweb.onnx.Unsupported, match=r"StringNormalizer \(opset 17, node 'weird'\)"):
        jaxweb.onnx.load(bad)


def test_corrupt_file_is_a_clear_error():
    with pytest.raises(ValueError):
        jaxweb.onnx.load(TINY[:200])
