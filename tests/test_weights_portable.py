"""Weights in and out without numpy (marked `pyodide`: also runs inside Pyodide):
safetensors round trips for every dtype, bytes laid out by hand from the format's
specification, .npy headers as numpy writes them, pytrees with structure kept, and
the errors for corrupt, truncated and oversized files."""
import io
import json
import math
import struct

import pytest

import jaxweb as jax
import jaxweb.io as jio
import jaxweb.numpy as jnp
import jaxweb.optax as optax
import jaxweb.safetensors as st

pytestmark = pytest.mark.pyodide

EVERY_DTYPE = {
    "bool": [True, False, True], "uint8": [0, 255, 7], "int8": [-128, 127, 0], "int16": [-32768, 32767, 5],
    "uint16": [0, 65535, 9], "int32": [-2 ** 31, 2 ** 31 - 1, 3], "uint32": [0, 2 ** 32 - 1, 11],
    "float16": [0.5, -65504.0, 0.0009765625], "bfloat16": [1.5, -3.0e38, 0.0078125],
    "float32": [1.25, -3.4e38, 1e-30],
}


def tensors():
    return {f"t_{name}": jnp.asarray(vals, dtype=name) for name, vals in EVERY_DTYPE.items()}


def test_safetensors_round_trip_every_dtype():
    ts = tensors()
    ts["scalar"] = jnp.asarray(2.5, jnp.float32)
    ts["empty"] = jnp.zeros((0, 3), jnp.int8)
    ts["matrix"] = jnp.arange(6, dtype=jnp.int16).reshape(2, 3).T  # a view: saved in C order
    data = st.save(ts, metadata={"author": "jaxweb", "ünï": "çødé"})
    back = st.load(data)
    assert set(back) == set(ts)
    for k, v in ts.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape, k
        assert back[k].tolist() == v.tolist(), k
    assert st.metadata(data) == {"author": "jaxweb", "ünï": "çødé"}


def test_safetensors_layout_follows_the_reference_writer():
    data = st.save({"b": jnp.ones(2, jnp.float16), "a": jnp.ones(1, jnp.int32), "c": jnp.ones(3, jnp.uint8),
                    "d": jnp.ones(1, jnp.bfloat16)})
    n = struct.unpack("<Q", data[:8])[0]
    assert (8 + n) % 8 == 0
    header = json.loads(data[8:8 + n])
    assert list(header) == ["a", "d", "b", "c"]  # widest dtype first (format order), then by name
    assert header["a"]["data_offsets"] == [0, 4] and header["c"]["data_offsets"] == [10, 13]
    assert len(data) == 8 + n + 13


def hand_made_file():
    """A file laid out by hand from the specification: header length, JSON, little-endian data."""
    header = json.dumps({"__metadata__": {"k": "v"},
                         "x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "m": {"dtype": "I16", "shape": [2, 2], "data_offsets": [8, 16]},
                         "h": {"dtype": "BF16", "shape": [], "data_offsets": [16, 18]},
                         "f": {"dtype": "F16", "shape": [1], "data_offsets": [18, 20]},
                         "b": {"dtype": "BOOL", "shape": [3], "data_offsets": [20, 23]}}).encode()
    data = (struct.pack("<2f", 1.5, -2.0) + struct.pack("<4h", 1, -2, 300, -32768) +
            struct.pack("<H", 0x4049) + struct.pack("<e", 0.25) + bytes([1, 0, 1]))
    return struct.pack("<Q", len(header)) + header + data


def test_reads_bytes_laid_out_by_hand():
    out = st.load(hand_made_file())
    assert out["x"].tolist() == [1.5, -2.0] and out["x"].dtype == jnp.float32
    assert out["m"].tolist() == [[1, -2], [300, -32768]] and out["m"].dtype == jnp.int16
    assert out["h"].tolist() == 3.140625 and out["h"].dtype == jnp.bfloat16 and out["h"].shape == ()
    assert out["f"].tolist() == [0.25] and out["b"].tolist() == [True, False, True]
    with st.safe_open(hand_made_file(), framework="flax") as f:
        assert f.keys() == ["b", "f", "h", "m", "x"] and f.metadata() == {"k": "v"}
        assert f.get_tensor("m").shape == (2, 2)


def corrupt(header_obj=None, data=b"", raw_header=None, length=None):
    raw = raw_header if raw_header is not None else json.dumps(header_obj).encode()
    return struct.pack("<Q", len(raw) if length is None else length) + raw + data


F32x2 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize("data,problem", [
    (b"\x01\x02", "truncated"),
    (corrupt({"x": F32x2}, b"\0" * 8, length=10 ** 9), "exceeds"),
    (corrupt({"x": F32x2}, b"\0" * 8, length=500), "truncated: header length 500"),
    (corrupt(raw_header=b'{"x": [1, 2'), "not valid JSON"),
    (corrupt(raw_header=b"[1, 2]"), "not a JSON object"),
    (corrupt({"x": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8), "unknown dtype 'F33'"),
    (corrupt({"x": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}}, b"\0" * 2), "not supported"),
    (corrupt({"x": F32x2}, b"\0" * 4), "out of range"),
    (corrupt({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8), "needs 12"),
    (corrupt({"x": F32x2, "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),
     "overlapping tensors"),
    (corrupt({"x": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12), "hole"),
    (corrupt({"x": F32x2}, b"\0" * 9), "1 bytes after the last tensor"),
    (corrupt({"x": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8), "invalid shape"),
    (corrupt(raw_header=b'{"x": %s, "x": %s}' % (json.dumps(F32x2).encode(), json.dumps(F32x2).encode()),
             data=b"\0" * 8), "duplicate key"),
    (corrupt({"__metadata__": {"a": 1}, "x": F32x2}, b"\0" * 8), "__metadata__"),
])
def test_bad_safetensors_raise_value_error_naming_the_problem(data, problem, tmp_path):
    with pytest.raises(ValueError, match="<bytes>: .*" + problem.replace("(", r"\(").replace("[", r"\[")):
        st.load(data)
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=str(path).replace("\\", "\\\\") + ": "):
        st.load_file(str(path))


def test_npy_header_is_numpys():
    f = io.BytesIO()
    jnp.save(f, jnp.arange(3, dtype=jnp.float32))
    want = (b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" + b" " * 60
            + b"\n" + struct.pack("<3f", 0, 1, 2))
    assert f.getvalue() == want
    f = io.BytesIO()
    jnp.save(f, jnp.asarray([1.0, 2.0], jnp.bfloat16))  # bfloat16 as jax.numpy.save writes it
    assert f.getvalue()[10:26] == b"{'descr': '<V2',"
    assert jnp.load(f.getvalue()).dtype == jnp.bfloat16 and jnp.load(f.getvalue()).tolist() == [1.0, 2.0]


def test_npz_round_trip_without_numpy():
    f = io.BytesIO()
    jnp.savez(f, jnp.arange(4), w=jnp.ones((2, 2), jnp.bfloat16), flag=jnp.asarray(True))
    z = jnp.load(f.getvalue())
    assert z.files == ["w", "flag", "arr_0"] and "w" in z and len(z) == 3
    assert z["arr_0"].tolist() == [0, 1, 2, 3] and z["w"].dtype == jnp.bfloat16 and z["flag"].tolist() is True


@pytest.mark.parametrize("data,problem", [
    (b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'", "truncated: header of 16 bytes"),
    (b"\x93NUMPY\x09\x00", "unsupported .npy format version 9.0"),
    (b"\x93NUMPY\x02\x00" + struct.pack("<I", 10 ** 8), "exceeds the 10000-byte limit"),
    (b"\x93NUMPY\x01\x00\x40\x00" + b"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }".ljust(63) + b"\n",
     "unsupported dtype '<c8'"),
    (b"\x93NUMPY\x01\x00\x40\x00" + b"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }".ljust(63) + b"\n"
     + b"\0" * 8, "truncated: float32\\[4\\] needs 16 data bytes, file has 8"),
    (b"\x93NUMPY\x01\x00\x40\x00" + b"{'descr': '<f4', 'shape': (4,), }".ljust(63) + b"\n", "not numpy's dict"),
    (b"PK\x03\x04garbage", "not a valid .npz"),
    (b"not a file", "neither a .npy nor an .npz"),
])
def test_bad_npy_npz_raise_value_error(data, problem):
    with pytest.raises(ValueError, match="<bytes>.*" + problem):
        z = jnp.load(data)
        z["x"]


def test_pytree_round_trip_keeps_structure():
    tree = {"layers": [{"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}, {"w": jnp.full((3, 1), 2.0), "b": None}],
            "scale": (jnp.asarray(0.5, jnp.bfloat16), 3, 2.5, True), "empty": {}}
    f = io.BytesIO()
    jio.save(f, tree)
    back = jio.load(f.getvalue())
    assert jax.tree.structure(back) == jax.tree.structure(tree)
    assert back["scale"][1:] == (3, 2.5, True) and type(back["scale"][1]) is int
    assert back["layers"][1]["w"].tolist() == [[2.0], [2.0], [2.0]]
    names = sorted(st.load(f.getvalue()))  # also an ordinary safetensors file, dotted names
    assert names == ["layers.0.b", "layers.0.w", "layers.1.w", "scale.0", "scale.1", "scale.2", "scale.3"]


def test_optimizer_state_round_trip_with_template():
    params = {"w": jnp.ones(3), "b": jnp.zeros(2)}
    opt = optax.adamw(0.1)
    state = opt.init(params)
    _, state = opt.update(params, state, params)
    f = io.BytesIO()
    jio.save(f, state)
    with pytest.raises(ValueError, match="ScaleByAdamState.*like="):
        jio.load(f.getvalue())
    back = jio.load(f.getvalue(), like=opt.init(params))
    assert type(back[0]).__name__ == "ScaleByAdamState" and back[0].count.tolist() == 1
    assert back[0].nu["w"].tolist() == state[0].nu["w"].tolist()


def test_template_mismatch_names_the_path():
    f = io.BytesIO()
    jio.save(f, {"enc": {"w": jnp.ones((2, 2))}, "dec": [jnp.ones(3)]})
    data = f.getvalue()
    with pytest.raises(ValueError, match=r"\['enc'\]\['w'\] has shape \[2, 2\] in the file but \[2, 3\]"):
        jio.load(data, like={"enc": {"w": jnp.ones((2, 3))}, "dec": [jnp.ones(3)]})
    with pytest.raises(ValueError, match=r"\['dec'\]\[1\] \(tensor 'dec.1'\) is not in the file"):
        jio.load(data, like={"enc": {"w": jnp.ones((2, 2))}, "dec": [jnp.ones(3), jnp.ones(3)]})
    with pytest.raises(ValueError, match="tensor 'dec.0' in the file has no place in the template"):
        jio.load(data, like={"enc": {"w": jnp.ones((2, 2))}})
    out = jio.load(data, like={"enc": {"w": jnp.ones((2, 2), jnp.bfloat16)}, "dec": [jnp.ones(3)]})
    assert out["enc"]["w"].dtype == jnp.bfloat16  # the template's dtype wins


def test_saving_a_non_array_leaf_names_its_path():
    with pytest.raises(TypeError, match=r"\['meta'\]"):
        jio.save(io.BytesIO(), {"meta": "text", "w": jnp.ones(1)})
    with pytest.raises(ValueError, match="two leaves get the tensor name 'a.b'"):
        jio.save(io.BytesIO(), {"a.b": jnp.ones(1), "a": {"b": jnp.ones(1)}})


def test_values_survive_exactly():
    x = jnp.asarray([math.pi, -1e-38, 3.4e38, float("inf")], jnp.float32)
    assert st.load(st.save({"x": x}))["x"].tolist() == x.tolist()
