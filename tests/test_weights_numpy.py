"""Weights against numpy and the reference safetensors files: .npy/.npz byte for byte
with numpy, each reading the other's files; safetensors files written by the
`safetensors` package read here and written identically; lazy and memory-mapped
reading; nothing half-loaded; fetch_weights with its download cache in CPython."""
import asyncio
import http.server
import io
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.io as jio
import jaxweb.numpy as jnp
import jaxweb.safetensors as st
from jaxweb._src.weights import safetensors_format

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
import record_safetensors as R  # noqa: E402

NP_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float16", "float32"]


def np_bytes(fn, *args, **kw):
    f = io.BytesIO()
    fn(f, *args, **kw)
    return f.getvalue()


@pytest.mark.parametrize("dtype", NP_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 1, 3, 2), (123456789012, 0)])
def test_save_is_numpys_bytes(dtype, shape):
    a = (np.arange(int(np.prod(shape)) or 0) % 7 - 3).astype(dtype).reshape(shape)
    assert np_bytes(jnp.save, jnp.asarray(a)) == np_bytes(np.save, a)


def test_savez_is_numpys_bytes_and_each_reads_the_other():
    arrays = {"w": np.arange(12, dtype=np.float32).reshape(3, 4), "i": np.array([1, -2], np.int8),
              "s": np.array(2.5, np.float32)}
    mine = np_bytes(jnp.savez, jnp.asarray(arrays["i"]), w=jnp.asarray(arrays["w"]), s=jnp.asarray(arrays["s"]))
    theirs = np_bytes(np.savez, arrays["i"], w=arrays["w"], s=arrays["s"])
    assert mine == theirs
    with np.load(io.BytesIO(mine)) as z:
        assert z.files == ["w", "s", "arr_0"] and np.array_equal(z["w"], arrays["w"])
    compressed = np_bytes(np.savez_compressed, **arrays)
    z = jnp.load(compressed)
    for k, v in arrays.items():
        assert np.array_equal(np.asarray(z[k]), v) and z[k].dtype == v.dtype


def test_load_reads_numpy_layouts():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for variant in (np.asfortranarray(a), a.astype(">f4"), np.asfortranarray(a.astype(">i2"))):
        got = jnp.load(np_bytes(np.save, variant))
        assert np.array_equal(np.asarray(got), a.astype(variant.dtype.newbyteorder("="))), variant.dtype
    f64 = jnp.load(np_bytes(np.save, np.array([1.0, 2.0 ** -30])))  # x64 off: float32, as jnp.asarray
    assert f64.dtype == jnp.float32 and f64.tolist() == [1.0, 2.0 ** -30]


def test_save_and_load_paths(tmp_path):
    jnp.save(str(tmp_path / "x"), jnp.arange(3))
    assert np.array_equal(np.load(tmp_path / "x.npy"), np.arange(3))
    jnp.savez(str(tmp_path / "z"), a=jnp.ones(2))
    assert jnp.load(str(tmp_path / "z.npz"))["a"].tolist() == [1.0, 1.0]
    assert jnp.load(tmp_path / "x.npy").tolist() == [0, 1, 2]


def reference_tensors_jaxweb():
    out = {}
    for name, a in R.reference_tensors(np).items():
        code = name[2:].upper()
        if code == "BF16":
            out[name] = jnp.asarray(R.reference_values("BF16"), jnp.bfloat16).reshape(R.reference_tensors(np)[name].shape)
        else:
            out[name] = jnp.asarray(a) if a.dtype.itemsize < 8 else a  # 64-bit: saved from numpy as is
    return out


def test_reads_files_written_by_the_safetensors_package():
    got = st.load_file(str(DATA / "reference_every_dtype.safetensors"))
    want = R.reference_tensors(np, bfloat16=np.float32)
    assert set(got) == set(want)
    for k, v in want.items():
        g = got[k]
        assert g.shape == v.shape, k
        if v.dtype.itemsize == 8 and v.dtype.kind in "iuf":  # x64 off: canonicalized like jnp.asarray
            assert g.dtype == jnp.asarray(np.zeros(1, v.dtype)).dtype, k
            continue
        if k == "t_bf16":  # the file holds the values rounded to bfloat16
            np.testing.assert_allclose(np.asarray(g, np.float32), v, rtol=2 ** -8, err_msg=k)
        else:
            np.testing.assert_array_equal(np.asarray(g, dtype=v.dtype), v, err_msg=k)
    assert got["t_bf16"].dtype == jnp.bfloat16 and got["t_f16"].dtype == jnp.float16
    meta = st.safe_open(str(DATA / "reference_metadata.safetensors"), framework="flax")
    assert meta.metadata() == {"format": "np", "note": "written by safetensors 0.8"} and meta.keys() == ["w"]
    meta.close()


def test_writes_the_safetensors_packages_bytes():
    assert st.save(reference_tensors_jaxweb()) == (DATA / "reference_every_dtype.safetensors").read_bytes()


def test_x64_reads_64_bit_tensors_exactly():
    with jax.enable_x64(True):
        got = st.load_file(str(DATA / "reference_every_dtype.safetensors"))
        assert got["t_i64"].dtype == jnp.int64 and got["t_i64"].reshape(-1).tolist() == [-2 ** 63, 2 ** 63 - 1, 0, 1,
                                                                                (2 ** 63 - 1) // 3, -2 ** 63 // 5]
        assert got["t_f64"].reshape(-1).tolist()[3] == 1e300
        assert got["t_u64"].reshape(-1).tolist()[1] == 2 ** 64 - 1


def test_safe_open_is_lazy_and_memory_mapped(tmp_path, monkeypatch):
    path = tmp_path / "big.safetensors"
    st.save_file({f"w{i}": jnp.full((64, 64), float(i)) for i in range(8)}, str(path))
    reads = []
    real = safetensors_format.array_from_bytes
    monkeypatch.setattr(safetensors_format, "array_from_bytes",
                        lambda data, dt, shape: reads.append(type(data).__name__) or real(data, dt, shape))
    with st.safe_open(str(path), framework="flax") as f:
        assert len(f.keys()) == 8 and reads == []
        assert f.get_tensor("w5").tolist()[0][:2] == [5.0, 5.0]
    assert reads == ["memoryview"]  # one tensor, read straight from the mapped file


def test_nothing_is_half_loaded(tmp_path, monkeypatch):
    path = tmp_path / "tree.safetensors"
    jio.save(str(path), {"a": jnp.ones(2), "z": jnp.ones(3)})
    calls = []
    real = safetensors_format.SafeOpen.get_tensor
    monkeypatch.setattr(safetensors_format.SafeOpen, "get_tensor", lambda self, k: calls.append(k) or real(self, k))
    with pytest.raises(ValueError, match=r"\['z'\] has shape \[3\] in the file but \[4\]"):
        jio.load(str(path), like={"a": jnp.ones(2), "z": jnp.ones(4)})
    assert calls == []  # the mismatch of the last leaf was found before the first was read
    data = bytearray(path.read_bytes())
    with pytest.raises(ValueError, match="out of range"):
        st.load(bytes(data[:-4]))
    assert calls == []


def test_io_load_reads_npz_into_a_template():
    data = np_bytes(np.savez, **{"enc.w": np.ones((2, 2), np.float32), "enc.b": np.zeros(2, np.float32)})
    out = jio.load(data, like={"enc": {"w": jnp.zeros((2, 2)), "b": jnp.ones(2)}})
    assert out["enc"]["w"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match=r"\['enc'\]\['b'\] has shape \[2\] in the file but \[3\]"):
        jio.load(data, like={"enc": {"w": jnp.zeros((2, 2)), "b": jnp.ones(3)}})


class _Counting(http.server.SimpleHTTPRequestHandler):
    hits: list = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        type(self).hits.append(self.path)
        super().do_GET()


def test_fetch_weights_caches_downloads_in_cpython(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    jio.save(str(site / "model.safetensors"), {"w": jnp.arange(4.0)})
    monkeypatch.setenv("JAXWEB_WEIGHTS_CACHE", str(tmp_path / "cache"))
    handler = type("H", (_Counting,), {"hits": []})
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(site)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/model.safetensors"
    try:
        seen = []
        first = asyncio.run(jio.fetch_weights(url, progress=lambda done, total: seen.append((done, total))))
        size = (site / "model.safetensors").stat().st_size
        assert first["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and seen[-1] == (size, size)
        second = asyncio.run(jio.fetch_weights(url))
        assert second["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and len(handler.hits) == 1  # from the cache
        cached = next((tmp_path / "cache").glob("*.bin"))
        cached.write_bytes(cached.read_bytes()[:-3])  # a damaged cache entry is fetched again
        assert asyncio.run(jio.fetch_weights(url))["w"].tolist()[3] == 3.0 and len(handler.hits) == 2
        asyncio.run(jio.clear_cache(url))
        asyncio.run(jio.fetch_weights(url, like={"w": jnp.zeros(4)}))
        assert len(handler.hits) == 3
    finally:
        srv.shutdown()
        srv.server_close()
