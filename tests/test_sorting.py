"""sort / argsort / lexsort / top_k against numpy, with JAX's NaN and -0.0 ordering."""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax


pytestmark = pytest.mark.on_every_device  # see conftest.py


rng = np.random.RandomState(2)


def randn(*shape, dtype="float32"):
    return rng.standard_normal(shape).astype(dtype)


def eq(a, b):
    """Equal values and shapes (dtypes may differ: numpy's default int is int64)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape,axis", [((7,), -1), ((3, 5), 0), ((3, 5), 1), ((2, 3, 4), 1), ((0, 3), 0),
                                        ((4, 0), 1), ((1,), 0)])
def test_sort_argsort_random(shape, axis):
    x = randn(*shape)
    same(jnp.sort(x, axis=axis), np.sort(x, axis=axis))
    same(jnp.argsort(x, axis=axis), np.argsort(x, axis=axis, kind="stable").astype(np.int32))


def test_sort_ints_ties_and_flatten():
    x = rng.randint(-3, 3, size=(4, 9)).astype(np.int8)
    same(jnp.sort(x), np.sort(x))
    same(jnp.argsort(x, axis=1), np.argsort(x, axis=1, kind="stable").astype(np.int32))
    same(jnp.sort(x, axis=None), np.sort(x, axis=None))
    u = np.array([3, 0, 255, 7], np.uint8)
    same(jnp.sort(u), np.sort(u))
    b = np.array([True, False, True, False])
    same(jnp.sort(b), np.sort(b))
    same(jnp.argsort(b), np.array([1, 3, 0, 2], np.int32))


def test_sort_nan_inf_and_signed_zero():
    x = np.array([3., np.nan, 1., 3., -0., 0., 1., -np.inf, np.inf], np.float32)
    out = np.asarray(jnp.sort(x))
    same(out[:-1], np.array([-np.inf, -0., 0., 1., 1., 3., 3., np.inf], np.float32))
    assert np.isnan(out[-1])
    assert np.signbit(out[1]) and not np.signbit(out[2])  # stable: -0.0 and 0.0 tie
    # descending (values from JAX): NaN first, equal elements keep their order
    d = np.asarray(jnp.sort(x[:7], descending=True))
    assert np.isnan(d[0])
    same(jnp.argsort(x[:7], descending=True), np.array([1, 0, 3, 2, 6, 4, 5], np.int32))
    same(jnp.argsort(x[:7]), np.array([4, 5, 2, 6, 0, 3, 1], np.int32))


def test_lax_sort_multi_operand():
    k1 = np.array([2, 1, 2, 1, 0], np.int32)
    k2 = np.array([0.5, 0.2, 0.1, 0.3, 0.9], np.float32)
    v = np.arange(5, dtype=np.float32)
    s1, s2, sv = lax.sort((k1, k2, v), num_keys=2)
    same(s1, np.array([0, 1, 1, 2, 2], np.int32))
    same(sv, np.array([4, 1, 3, 2, 0], np.float32))
    a, b = lax.sort_key_val(k1, v)
    same(b, np.array([4, 1, 3, 0, 2], np.float32))
    x = randn(3, 4)
    same(lax.sort(x, dimension=0), np.sort(x, axis=0))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        lax.sort(x, dimension=2)
    with pytest.raises(TypeError, match="same shape"):
        lax.sort((x, x[0]))


def test_lexsort():
    a = np.array([1, 5, 1, 4, 3, 4, 4], np.int32)
    b = np.array([9, 4, 0, 4, 0, 2, 1], np.int32)
    same(jnp.lexsort((b, a)), np.lexsort((b, a)).astype(np.int32))
    k = rng.randint(0, 3, size=(2, 3, 6))
    same(jnp.lexsort(list(k[:, 0]), axis=-1), np.lexsort(list(k[:, 0])).astype(np.int32))


def test_top_k():
    x = randn(3, 7)
    vals, idx = lax.top_k(x, 3)
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    same(idx, order.astype(np.int32))
    same(vals, np.take_along_axis(x, order, axis=1))
    # ties by index, NaN largest (values from JAX)
    v, i = lax.top_k(np.array([1., 3., 3., np.nan, 2.], np.float32), 3)
    assert np.isnan(np.asarray(v)[0])
    same(i, np.array([3, 1, 2], np.int32))
    v, i = lax.top_k(np.array([[1, 5, 5, 2]], np.int32), 2)
    same(v, np.array([[5, 5]], np.int32)), same(i, np.array([[1, 2]], np.int32))
    v, i = lax.top_k(x, 2, axis=0)
    same(i, np.argsort(-x, axis=0, kind="stable")[:2].astype(np.int32))
    assert lax.top_k(x, 0)[0].shape == (3, 0)
    with pytest.raises(ValueError, match="k argument to top_k must be no larger than size along axis"):
        lax.top_k(np.ones((2, 2), np.float32), 3)


# ---------------------------------------------------------------- order statistics, search, partition
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint"])
def test_quantile_percentile(method):
    x = randn(4, 6)
    q = np.array([0.0, 0.3, 0.5, 0.77, 1.0], np.float32)
    np.testing.assert_allclose(jnp.quantile(x, q, axis=1, method=method), np.quantile(x, q, axis=1, method=method),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jnp.percentile(x, 30.0, axis=(0, 1), method=method),
                               np.percentile(x, 30.0, method=method), rtol=1e-5)
    assert jnp.quantile(x, q, axis=0, keepdims=True).shape == (5, 1, 6)


def test_quantile_nearest_nan_and_dtypes():
    # JAX's 'nearest' rounds exact halves down (values from JAX)
    same(jnp.quantile(np.arange(6, dtype=np.float32), np.array([0.1, 0.3, 0.5, 0.7, 0.9], np.float32),
                      method="nearest"), np.array([0., 1., 2., 3., 4.], np.float32))
    x = np.array([[1., 2., 3., 4.], [5., 6., 7., np.nan]], np.float32)
    out = np.asarray(jnp.quantile(x, 0.5, axis=1))
    assert out[0] == 2.5 and np.isnan(out[1])
    same(jnp.nanquantile(x, 0.5, axis=1), np.array([2.5, 6.0], np.float32))
    same(jnp.nanmedian(x, axis=1), np.array([2.5, 6.0], np.float32))
    assert np.isnan(float(jnp.nanmedian(np.full(3, np.nan, np.float32))))
    assert jnp.quantile(np.arange(4), 0.5).dtype == jnp.float32
    np.testing.assert_allclose(jnp.median(x[0]), 2.5)


def test_partition():
    # JAX's order: the kth+1 smallest ascending, then the rest from largest down (values from JAX)
    same(jnp.partition(np.array([3., 1., 2., 5., 4.], np.float32), 2), np.array([1., 2., 3., 5., 4.], np.float32))
    same(jnp.argpartition(np.array([3., 1., 2., 5., 4.], np.float32), 2), np.array([1, 2, 0, 3, 4], np.int32))
    same(jnp.argpartition(np.array([1., 1., 1.], np.float32), 0), np.array([0, 1, 2], np.int32))
    same(jnp.argpartition(np.array([[3., 1., 2.], [0., 5., 4.]], np.float32), 1, axis=0),
         np.array([[1, 0, 0], [0, 1, 1]], np.int32))
    x = randn(3, 7)
    p = np.asarray(jnp.partition(x, 3, axis=1))
    s = np.sort(x, axis=1)
    same(p[:, 3], s[:, 3])
    assert (p[:, :3] <= p[:, 3:4]).all() and (p[:, 4:] >= p[:, 3:4]).all()


def test_searchsorted():
    a = np.sort(randn(10))
    v = randn(3, 4)
    same(jnp.searchsorted(a, v), np.searchsorted(a, v).astype(np.int32))
    same(jnp.searchsorted(a, v, side="right"), np.searchsorted(a, v, side="right").astype(np.int32))
    same(jnp.searchsorted(a, a[3], side="right"), np.int32(4))
    b = np.array([1., 2., 2., 3., np.nan], np.float32)
    same(jnp.searchsorted(b, np.array([2., np.nan, 0., 5.], np.float32)), np.array([1, 4, 0, 4], np.int32))
    same(jnp.searchsorted(b, np.array([2., np.nan], np.float32), side="right"), np.array([3, 5], np.int32))
    perm = np.argsort(v[0])
    same(jnp.searchsorted(v[0], 0.0, sorter=perm), np.int32(np.searchsorted(v[0], 0.0, sorter=perm)))
    with pytest.raises(ValueError, match="invalid value for keyword 'side'"):
        jnp.searchsorted(a, 0.0, side="middle")


# ---------------------------------------------------------------- set operations
def test_unique():
    x = rng.randint(-3, 4, size=(4, 5))
    vals, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    got = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, e in zip(got, (vals, idx, inv.reshape(x.shape), cnt)):
        assert np.array_equal(np.asarray(g), e)
    f = np.array([3., 1., np.nan, 3., 2., np.nan, 1., -0.], np.float32)
    out = np.asarray(jnp.unique(f))
    assert np.array_equal(out[:4], [0., 1., 2., 3.]) and np.isnan(out[4]) and out.shape == (5,)
    assert np.signbit(out[0])  # JAX keeps the first of the equal zeros (here -0.0)
    assert jnp.unique(f, equal_nan=False).shape == (6,)
    # size / fill_value (values from JAX)
    eq(jnp.unique(np.array([3, 1, 3]), size=4, fill_value=0), np.array([1, 3, 0, 0]))
    eq(jnp.unique(np.array([3, 1, 3]), size=4), np.array([1, 3, 1, 1]))
    eq(jnp.unique(np.array([3, 1, 3, 5]), size=2), np.array([1, 3]))
    assert jnp.unique(np.zeros((0,), np.float32)).shape == (0,)
    r = jnp.unique_all(np.array([2, 2, 0]))
    eq(r.values, np.array([0, 2])), eq(r.counts, np.array([1, 2], np.int32))


def test_unique_axis():
    a = rng.randint(0, 3, size=(8, 2))
    got = jnp.unique(a, axis=0, return_index=True, return_inverse=True, return_counts=True)
    expect = np.unique(a, axis=0, return_index=True, return_inverse=True, return_counts=True)
    for g, e in zip(got, expect):
        eq(g, np.asarray(e).reshape(-1) if np.asarray(e).ndim == 1 or g.ndim == 1 else e)
    b = rng.randint(0, 2, size=(2, 6, 1))
    eq(jnp.unique(b, axis=1), np.unique(b, axis=1))
    # padding repeats the smallest row unless fill_value is given (values from JAX)
    rows = np.array([[1, 2], [1, 2], [0, 5]])
    eq(jnp.unique(rows, axis=0, size=4), [[0, 5], [1, 2], [0, 5], [0, 5]])
    eq(jnp.unique(rows, axis=0, size=3, fill_value=9), [[0, 5], [1, 2], [9, 9]])


def test_isin_and_set_ops():
    a, b = rng.randint(0, 8, size=10), rng.randint(0, 8, size=6)
    eq(jnp.isin(a.reshape(2, 5), b), np.isin(a.reshape(2, 5), b))
    eq(jnp.isin(a, b, invert=True), np.isin(a, b, invert=True))
    assert not bool(jnp.isin(np.float32(np.nan), np.array([np.nan], np.float32)))
    eq(jnp.union1d(a, b), np.union1d(a, b))
    eq(jnp.intersect1d(a, b), np.intersect1d(a, b))
    eq(jnp.setdiff1d(a, b), np.setdiff1d(a, b))
    eq(jnp.setxor1d(a, b), np.setxor1d(a, b))
    vals, i1, i2 = jnp.intersect1d(a, b, return_indices=True)
    evals, ei1, ei2 = np.intersect1d(a, b, return_indices=True)
    eq(vals, evals), eq(i1, ei1.astype(np.int32)), eq(i2, ei2.astype(np.int32))
    eq(jnp.setdiff1d(np.array([3, 1, 2]), np.array([2]), size=3, fill_value=-1), np.array([1, 3, -1]))


def test_unique_under_jit_needs_size():
    f = jaxweb.jit(lambda v: jnp.unique(v, size=3, fill_value=-1))
    eq(f(np.array([2, 2, 0, 5, 5])), np.array([0, 2, 5]))
    with pytest.raises(TypeError, match="Abstract tracer value encountered"):
        jaxweb.jit(jnp.unique)(np.array([2, 2, 0]))


@pytest.fixture()
def network(monkeypatch):
    """Send every row longer than 16 through the bitonic network (lax/bitonic.py)."""
    from jaxweb._src.lax import bitonic
    monkeypatch.setattr(bitonic, "BITONIC_FROM", 16)
    monkeypatch.setattr(bitonic, "RANK_PAIRS", 0)


def test_bitonic_network_sorts_as_ranks_do(network):
    x = randn(3, 37)
    x[0, :5] = np.nan
    x[1, ::3] = 0.5  # ties: the order must be stable
    x[2, :4] = -0.0
    x[2, 4:8] = 0.0
    same(jnp.sort(x, axis=1), np.sort(x, axis=1))
    same(jnp.argsort(x, axis=1), np.argsort(x, axis=1, kind="stable").astype(np.int32))
    xi = rng.randint(0, 5, (40, 2)).astype(np.int32)
    same(jnp.argsort(xi, axis=0), np.argsort(xi, axis=0, kind="stable").astype(np.int32))
    same(jnp.argsort(xi[:32, 0] > 2), np.argsort(xi[:32, 0] > 2, kind="stable").astype(np.int32))
    k1, k2, v = xi[:, 0], xi[:, 1], randn(40)
    out = lax.sort((jnp.asarray(k1), jnp.asarray(k2), jnp.asarray(v)), num_keys=2)
    order = np.lexsort((k2, k1))
    for got, want in zip(out, (k1[order], k2[order], v[order])):
        same(got, want)
    c = (rng.randint(0, 4, 40) + 1j * randn(40)).astype(np.complex64)  # real part, then imaginary
    same(jnp.sort(c), np.sort(c))
    g = jaxweb.grad(lambda a: (jnp.sort(a) * jnp.arange(37.0)).sum())(jnp.asarray(x[1]))
    want = np.zeros(37, np.float32)
    want[np.argsort(x[1], kind="stable")] = np.arange(37.0)
    eq(g, want)


def test_long_rows_sort_by_the_network():
    from jaxweb._src.lax import bitonic
    x = randn(9, 4100)
    x[:, ::7] = 1.0
    assert bitonic.use_network(4100, 9)
    same(jnp.argsort(x, axis=1), np.argsort(x, axis=1, kind="stable").astype(np.int32))
