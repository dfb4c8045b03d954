"""Array creation: ranges, grids, triangles and *_like against numpy, with JAX's dtypes."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp


pytestmark = pytest.mark.on_every_device  # see conftest.py


def check(got, want, dtype, rtol=1e-6):
    assert got.dtype == dtype, (got.dtype, dtype)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                               rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("args,dtype", [((5,), "int32"), ((5.0,), "float32"), ((2, 9, 3), "int32"),
                                        ((10, 0, -3), "int32"), ((1, 2, 0.25), "float32"),
                                        ((0,), "int32"), ((3, 1), "int32"), ((-2.5, 2.5, 0.7), "float32"),
                                        ((0, 1, 0.1), "float32")])
def test_arange(args, dtype):
    check(jnp.arange(*args), np.arange(*args), dtype)


def test_arange_dtype_and_errors():
    check(jnp.arange(4, dtype=jnp.float16), np.arange(4), "float16")
    check(jnp.arange(jnp.int8(3)), np.arange(3), "int8")
    with jax.enable_x64():
        assert jnp.arange(3).dtype == jnp.int64 and jnp.arange(3.0).dtype == jnp.float64
    with pytest.raises(ZeroDivisionError):
        jnp.arange(0, 5, 0)


@pytest.mark.parametrize("kw", [dict(num=5), dict(num=5, endpoint=False), dict(num=1), dict(num=0),
                                dict(num=7, dtype=jnp.int32)])
def test_linspace(kw):
    want = np.linspace(-1.5, 4, **{k: (np.int32 if v is jnp.int32 else v) for k, v in kw.items()})
    got = jnp.linspace(-1.5, 4, **kw)
    check(got, want, "int32" if kw.get("dtype") is jnp.int32 else "float32")


def test_linspace_retstep_arrays_axis():
    got, step = jnp.linspace(0, 1, 5, endpoint=False, retstep=True)
    check(got, np.linspace(0, 1, 5, endpoint=False), "float32")
    assert float(step) == pytest.approx(0.2)
    lo, hi = np.array([0.0, 1.0]), np.array([[1.0, 3.0], [2.0, 5.0]])
    for axis in (0, 1, -1):
        check(jnp.linspace(jnp.asarray(lo), jnp.asarray(hi), 4, axis=axis), np.linspace(lo, hi, 4, axis=axis), "float32")
    assert float(jnp.linspace(0, 10, 11)[-1]) == 10.0
    with pytest.raises(ValueError):
        jnp.linspace(0, 1, -1)


def test_logspace_geomspace():
    check(jnp.logspace(0, 3, 4), np.logspace(0, 3, 4), "float32", 1e-5)
    check(jnp.logspace(0, 3, 4, base=2.0, endpoint=False), np.logspace(0, 3, 4, base=2.0, endpoint=False),
          "float32", 1e-5)
    check(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4), "float32", 1e-5)
    check(jnp.geomspace(-2, -32, 5), np.geomspace(-2, -32, 5), "float32", 1e-5)


@pytest.mark.parametrize("N,M,k", [(3, None, 0), (3, 4, 1), (4, 2, -1), (0, 3, 0), (2, 2, 5)])
def test_eye_tri(N, M, k):
    check(jnp.eye(N, M, k), np.eye(N, M, k), "float32")
    check(jnp.tri(N, M, k), np.tri(N, M, k), "float32")
    check(jnp.eye(N, M, k, dtype=jnp.int8), np.eye(N, M, k), "int8")


def test_identity():
    check(jnp.identity(3, dtype=jnp.bool_), np.identity(3), "bool")


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_tril_triu(k):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    check(jnp.tril(jnp.asarray(x), k), np.tril(x, k), "float32")
    check(jnp.triu(jnp.asarray(x), k), np.triu(x, k), "float32")
    with pytest.raises(ValueError):
        jnp.tril(jnp.ones(3))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse):
    xs = [np.arange(3), np.linspace(0, 1, 2).astype(np.float32), np.arange(4)]
    for n in (1, 2, 3):
        got = jnp.meshgrid(*[jnp.asarray(x) for x in xs[:n]], indexing=indexing, sparse=sparse)
        want = np.meshgrid(*xs[:n], indexing=indexing, sparse=sparse)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(np.asarray(g), w)
    with pytest.raises(ValueError):
        jnp.meshgrid(jnp.ones(2), indexing="yx")


def test_like_functions():
    x = jnp.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    check(jnp.zeros_like(x), np.zeros((2, 3)), "int8")
    check(jnp.ones_like(x, dtype=jnp.float16), np.ones((2, 3)), "float16")
    check(jnp.full_like(x, 2.7), np.full((2, 3), 2), "int8")
    check(jnp.full_like(x, 3, shape=(4,)), np.full(4, 3), "int8")
    check(jnp.empty_like(x), np.zeros((2, 3)), "int8")
    assert jnp.zeros_like(1.0).weak_type and not jnp.zeros_like(jnp.float32(1)).weak_type
    check(jnp.full_like(jnp.zeros((2, 2)), jnp.asarray([1.0, 2.0])), [[1, 2], [1, 2]], "float32")


def test_asarray_edge_cases():
    assert jnp.asarray([True, False]).dtype == jnp.bool_
    assert jnp.asarray([[np.float32(1), np.float32(2)]]).dtype == jnp.float32
    assert jnp.asarray([1, 2.5]).dtype == jnp.float32
    assert jnp.asarray([np.int8(1), 2]).dtype == jnp.int8
    assert jnp.asarray([]).dtype == jnp.float32 and jnp.asarray([]).shape == (0,)
    assert jnp.array(3, ndmin=2).shape == (1, 1)
    with pytest.raises(OverflowError):
        jnp.asarray([2 ** 40])
    with pytest.raises(ValueError):
        jnp.asarray([[1, 2], [3]])
    check(jnp.full((2, 2), 1.0), np.ones((2, 2)), "float32")
    check(jnp.zeros((2, 0)), np.zeros((2, 0)), "float32")
    check(jnp.ones(3, jnp.uint8), np.ones(3), "uint8")


def test_asarray_sequences_with_arrays_and_bfloat16():
    assert jnp.asarray([jnp.ones(2), jnp.zeros(2)]).tolist() == [[1, 1], [0, 0]]
    assert jnp.asarray([[1, 2], jnp.asarray([3, 4])]).tolist() == [[1, 2], [3, 4]]
    assert jnp.asarray([jnp.float16(1), 2.0]).dtype == jnp.float16
    assert jnp.asarray((np.float64(1.5), 2)).dtype == jnp.float32
    assert not jnp.asarray(np.float64(2.0)).weak_type
    got = jnp.asarray(np.array([1.5, 2, 1.00390625], dtype=np.float32), dtype=jnp.bfloat16)
    assert got.dtype == jnp.bfloat16 and got.tolist() == [1.5, 2.0, 1.0]
    assert jnp.asarray([1, 2], dtype=jnp.bfloat16).tolist() == [1.0, 2.0]
