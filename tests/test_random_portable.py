"""jaxweb.random without numpy: a quick subset that also runs inside Pyodide.

Marked `pyodide`, so the harness runs it in Chromium and Node as well as here on every
device. The expected values were printed once by JAX 0.10 (the full comparison is
test_random.py, against tests/data/random_reference.json); floats are compared as
their float32 bit patterns. Samples are drawn at shape (64,) and their first elements
compared: with jax_threefry_partitionable, element i depends only on the key and i,
and that shape shares its kernels with test_random.py's per-device cases.
"""
import math
import struct

import pytest

import jaxweb
import jaxweb.numpy as jnp
import jaxweb.random as R
from jaxweb._src import config as _config

pytestmark = [pytest.mark.pyodide, pytest.mark.on_every_device]


def f32_bits(values):
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in values]


def test_keys_split_fold_in_bits():
    assert R.key_data(R.key(42)).tolist() == [0, 42]
    assert R.PRNGKey(-1).tolist() == [0, 4294967295]
    assert R.key_data(R.split(R.key(3), 3)).tolist() == [
        [3716834203, 3481239269], [1946498123, 2217676430], [1024511538, 2603795180]]
    assert R.key_data(R.fold_in(R.key(7), 5)).tolist() == [3583082021, 1947592014]
    assert R.bits(R.key(2), (64,))[:4].tolist() == [2752176745, 3868056420, 987989481, 3786487241]
    with _config.override("jax_threefry_partitionable", False):
        assert R.key_data(R.split(R.key(3), 3)).tolist() == [
            [877192987, 1614509672], [1950127089, 3448417067], [2823528474, 3529024829]]
        assert R.bits(R.key(2), (4,)).tolist() == [2859854988, 796765312, 2425776485, 230565590]


def test_float_samplers_bits():
    assert f32_bits(R.uniform(R.key(1), (64,))[:4].tolist()) == [1054905456, 1057530888, 1055149928, 1054897532]
    assert f32_bits(R.normal(R.key(1), (64,))[:4].tolist()) == [3189646536, 1034779394, 3188407928, 3189686739]
    assert f32_bits(R.exponential(R.key(2), (64,))[:3].tolist()) == [1065553293, 1075036283, 1048958825]
    assert R.bernoulli(R.key(1), 0.5, (64,))[:6].tolist() == [True, False, True, True, False, False]


def test_integer_samplers():
    assert R.randint(R.key(5), (64,), 0, 10)[:6].tolist() == [1, 8, 3, 6, 4, 1]
    assert R.permutation(R.key(5), 8).tolist() == [0, 2, 4, 1, 3, 5, 7, 6]
    assert R.choice(R.key(5), 10, (4,), replace=False).tolist() == [9, 0, 2, 4]


def test_gamma_loop():
    got = R.gamma(R.key(8), jnp.concatenate([jnp.asarray([0.5, 3.0]), jnp.ones(62)]))[:2].tolist()
    for g, w in zip(got, [0.054642342031002045, 4.718245506286621]):
        assert math.isclose(g, w, rel_tol=2e-6)


def test_typed_keys_jit_vmap():
    k = R.key(0)
    assert str(k.dtype) == "key<fry>" and k.shape == ()
    ks = R.split(k, 3)
    assert ks.shape == (3,) and bool(ks[1] == R.split(k, 3)[1])
    eager = [R.uniform(key, (64,)).tolist() for key in ks]
    assert jaxweb.vmap(lambda key: R.uniform(key, (64,)))(ks).tolist() == eager
    assert jaxweb.jit(lambda key: R.uniform(key, (64,)))(ks[0]).tolist() == eager[0]
    with pytest.raises(TypeError, match="key array cannot be converted to boolean"):
        bool(k)
    with pytest.raises(ValueError, match="accepts a single key"):
        R.normal(ks)
