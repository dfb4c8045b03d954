"""NumPy indexing, .at[] updates, take/take_along_axis/nonzero, lax dynamic slices,
gather and scatter, against numpy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax


pytestmark = pytest.mark.on_every_device  # see conftest.py


rng = np.random.RandomState(1)
A = np.arange(60, dtype=np.float32).reshape(3, 4, 5) - 30


def eq(actual, expected):
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    np.testing.assert_array_equal(a, e)


def to_jax_index(idx):
    conv = lambda i: jnp.asarray(i) if isinstance(i, np.ndarray) else i  # noqa: E731
    return tuple(conv(i) for i in idx) if isinstance(idx, tuple) else conv(idx)


# ---------------------------------------------------------------- getitem
I32 = lambda *v: np.array(v, np.int32)  # noqa: E731
INDICES = [
    0, -1, (1, 2), (2, -1, 0), slice(None), slice(1, None), slice(None, None, -1), slice(-2, 0, -1),
    (slice(None), slice(3, 0, -2)), (Ellipsis, 1), (1, Ellipsis), (None,), (None, 1, None), (Ellipsis, None),
    (slice(None), None, slice(None, None, 2), None), (), Ellipsis, (slice(5, 1),),
    I32(0, 2), (I32(0, 2), I32(1, -1)), (slice(None), I32(3, 0, 3)), (I32([0], [2]), slice(None), I32(4, 1)),
    (1, slice(None), I32(0, 3)), (slice(None), 1, I32(0, 3)), (None, 1, None, I32(0, 2)),
    (slice(None), None, I32(0, 2)), (I32(1, 1), Ellipsis), (Ellipsis, I32([[1, 2], [3, 4]])),
    A > 0, A[:, :, 0] > 0, (slice(None), A[0, :, 0] > -25), (1, A[0, :, 0] > -28), (A[:, 0, 0] > -40, slice(None), 2),
    np.array(1, np.int32), (np.int64(2), np.int32(-1)), (I32(), slice(None)),
]


@pytest.mark.parametrize("idx", INDICES, ids=range(len(INDICES)))
def test_getitem_matches_numpy(idx):
    eq(jnp.asarray(A)[to_jax_index(idx)], A[idx])


def test_getitem_numpy_arrays_and_dtypes():
    x = jnp.asarray(A)
    eq(x[np.array([2, 0])], A[[2, 0]])
    eq(x[jnp.asarray(np.array([1, 0], np.uint8))], A[[1, 0]])
    eq(x[jnp.asarray(np.array([1, 0], np.int16)), :, jnp.asarray(np.array([3, 4], np.int8))], A[[1, 0], :, [3, 4]])
    eq(x[np.True_], A[True])
    eq(x[False], A[False])
    b = jnp.asarray(np.array([True, False, True]))
    eq(x[b], A[[True, False, True]])
    ints = np.arange(10, dtype=np.int32)
    eq(jnp.asarray(ints)[::3], ints[::3])


def test_getitem_out_of_bounds_clamps():
    x = jnp.asarray(A)
    eq(x[5], A[2])
    eq(x[-9], A[0])
    eq(x[jnp.asarray(I32(7, -1, -9))], A[[2, 2, 0]])
    eq(x[1, jnp.asarray(I32(4)), 10], A[1, [3], 4])


def test_getitem_zero_d_and_empty():
    s = jnp.asarray(np.float32(3))
    eq(s[()], np.float32(3))
    eq(s[None], np.array([3], np.float32))
    eq(s[...], np.float32(3))
    e = np.zeros((0, 3), np.float32)
    eq(jnp.asarray(e)[:, 1], e[:, 1])
    eq(jnp.asarray(A)[jnp.asarray(np.zeros((0,), np.int32))], A[np.zeros((0,), np.int32)])
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        jnp.asarray(e)[0]


@pytest.mark.parametrize("idx,err,msg", [
    ((0, 0, 0, 0), IndexError, "Too many indices: array is 3-dimensional, but 4 were indexed"),
    (1.0, TypeError, "Indexer must have integer or boolean type, got indexer with type float64"),
    ((Ellipsis, Ellipsis), IndexError, "an index can only have a single ellipsis"),
    ("a", TypeError, "JAX does not support string indexing; got idx='a'"),
    ([1, 2], TypeError, "Using a non-tuple sequence for multidimensional indexing is not allowed"),
    (np.array([True, False]), IndexError, "boolean index did not match shape of indexed array in index 0"),
    (np.array([1.0], np.float32), TypeError, "Indexer must have integer or boolean type"),
])
def test_getitem_errors(idx, err, msg):
    with pytest.raises(err) as e:
        jnp.asarray(A)[to_jax_index(idx)]
    assert msg in str(e.value)


def test_boolean_mask_under_jit_raises():
    from jaxweb._src.numpy.indexing import NonConcreteBooleanIndexError
    with pytest.raises(NonConcreteBooleanIndexError, match="Array boolean indices must be concrete"):
        jaxweb.jit(lambda x: x[x > 0])(A)


def test_getitem_traced_indices():
    f = jaxweb.jit(lambda x, i, j: x[i, 1:, j])
    eq(f(A, np.int32(2), np.int32(-1)), A[2, 1:, -1])
    g = jaxweb.jit(lambda x, i: x[:, i])
    eq(g(A, I32(3, 0)), A[:, [3, 0]])


_slice_part = st.one_of(st.none(), st.integers(-6, 6))
_entry = st.one_of(
    st.integers(-4, 3),
    st.builds(slice, _slice_part, _slice_part, st.one_of(st.none(), st.sampled_from([-3, -2, -1, 1, 2, 3]))),
    st.just(None), st.just(Ellipsis),
    st.lists(st.integers(-3, 2), min_size=1, max_size=3).map(lambda v: np.array(v, np.int32)))


@settings(max_examples=60, deadline=None)
@given(st.lists(_entry, max_size=4))
def test_getitem_hypothesis(entries):
    idx = tuple(entries)
    try:
        expected = A[idx]
    except (IndexError, ValueError):
        return
    eq(jnp.asarray(A)[to_jax_index(idx)], expected)


# ---------------------------------------------------------------- .at[]
def test_at_set_add_duplicates():
    x = np.arange(5, dtype=np.float32)
    i = I32(1, 1, 3, -1)
    eq(jnp.asarray(x).at[i].set(np.float32(9)), np.where(np.isin(np.arange(5), [1, 3, 4]), 9, x).astype(np.float32))
    e = x.copy()
    np.add.at(e, i, np.float32([1, 2, 3, 4]))
    eq(jnp.asarray(x).at[jnp.asarray(i)].add(np.float32([1, 2, 3, 4])), e)
    e = x.copy()
    np.multiply.at(e, i, np.float32([2, 3, 4, 5]))
    eq(jnp.asarray(x).at[i].multiply(np.float32([2, 3, 4, 5])), e)
    eq(jnp.asarray(x).at[i].mul(np.float32(2)), jnp.asarray(x).at[i].multiply(np.float32(2)))
    e = x.copy()
    np.minimum.at(e, i, np.float32([0, -1, 7, 2]))
    eq(jnp.asarray(x).at[i].min(np.float32([0, -1, 7, 2])), e)
    e = x.copy()
    np.maximum.at(e, i, np.float32([0, -1, 7, 2]))
    eq(jnp.asarray(x).at[i].max(np.float32([0, -1, 7, 2])), e)
    # last write wins for duplicates, like numpy
    e = x.copy()
    e[[1, 1, 3]] = [5, 6, 7]
    eq(jnp.asarray(x).at[I32(1, 1, 3)].set(np.float32([5, 6, 7])), e)


@pytest.mark.parametrize("idx", [1, (slice(None), 2), (Ellipsis, slice(None, None, -2)), (I32(0, 2), 1),
                                 (slice(1, None), None, I32(3, 0)), A > 10, (None, 2, slice(None), -1)])
def test_at_matches_numpy(idx):
    x = jnp.asarray(A)
    vals = np.asarray(A[idx] * 0 + 100 + np.arange(np.asarray(A[idx]).size, dtype=np.float32).reshape(A[idx].shape))
    e = A.copy()
    e[idx] = vals
    eq(x.at[to_jax_index(idx)].set(vals), e)
    e = A.copy()
    e[idx] += 1
    eq(x.at[to_jax_index(idx)].add(1), e)
    eq(x.at[to_jax_index(idx)].get(), A[idx])


def test_at_out_of_bounds_dropped_and_modes():
    x = jnp.asarray(np.arange(5, dtype=np.float32))
    eq(x.at[I32(7, -1, -9, 1)].set(np.float32(10)), np.float32([0, 10, 2, 3, 10]))
    eq(x.at[7].set(np.float32(10)), np.arange(5, dtype=np.float32))
    eq(x.at[-6].add(np.float32(3)), np.arange(5, dtype=np.float32))
    eq(x.at[I32(7, -9)].add(np.float32(1), mode="clip"), np.float32([1, 1, 2, 3, 5]))
    eq(x.at[I32(7)].get(mode="fill"), np.float32([np.nan]))
    eq(x.at[I32(7)].get(mode="fill", fill_value=-1), np.float32([-1]))
    eq(x.at[I32(7)].get(), np.float32([4]))


def test_at_other_ops():
    x = jnp.asarray(np.float32([1, 2, 4, 8]))
    eq(x.at[I32(1, 1)].divide(np.float32(2)), np.float32([1, 0.5, 4, 8]))
    eq(x.at[2].power(np.float32(2)), np.float32([1, 2, 16, 8]))
    eq(x.at[I32(0, 3, 3)].apply(jnp.negative), np.float32([-1, 2, 4, -8]))
    eq(x.at[1].subtract(np.float32(5)), np.float32([1, -3, 4, 8]))
    i = jnp.asarray(np.int32([1, 2, 2**31 - 1]))
    eq(i.at[2].add(1), np.int32([1, 2, -(2**31)]))
    b = jnp.asarray(np.array([True, False, False]))
    eq(b.at[1].set(True), np.array([True, True, False]))
    eq(b.at[I32(1, 1)].add(True), np.array([True, True, False]))
    z = jnp.asarray(np.float32([-0.0, 1]))
    assert np.signbit(np.asarray(z.at[1].add(np.float32(1)))[0])
    with pytest.raises(ValueError, match="Cannot broadcast to shape with fewer dimensions"):
        jnp.asarray(A).at[1].set(jnp.ones((2, 4, 5)))
    with pytest.raises(TypeError, match="unexpected keyword"):
        x.at[1].set(1.0, foo=1)


def test_at_traced():
    f = jaxweb.jit(lambda x, i, v: x.at[i].add(v))
    eq(f(np.zeros(4, np.float32), I32(1, 1, 3), np.float32([1, 2, 3])), np.float32([0, 3, 0, 3]))


# ---------------------------------------------------------------- take family
def test_take():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    eq(jnp.take(x, I32(2, 0, -1)), np.take(x, [2, 0, -1]))
    eq(jnp.take(x, I32([0, 1], [3, 2]), axis=1), np.take(x, [[0, 1], [3, 2]], axis=1))
    eq(jnp.take(x, I32(7, -1, -13), mode="fill"), np.float32([7, 11, np.nan]))
    eq(jnp.take(x, I32(7, -1)), np.float32([7, 11]))
    eq(jnp.take(x, I32(20, -1), mode="clip"), np.float32([11, 0]))
    eq(jnp.take(x, I32(5, -1), axis=0, mode="wrap"), np.take(x, [5, -1], axis=0, mode="wrap"))
    eq(jnp.take(np.arange(5, dtype=np.int32), I32(7)), np.int32([-(2**31)]))
    eq(jnp.asarray(x).take(I32(1), axis=1), np.take(x, [1], axis=1))
    with pytest.raises(ValueError, match="Invalid mode 'foo' for np.take"):
        jnp.take(x, I32(1), mode="foo")


def test_take_along_axis():
    x = rng.standard_normal((3, 4, 2)).astype(np.float32)
    idx = np.argsort(x, axis=1).astype(np.int32)
    eq(jnp.take_along_axis(x, idx, 1), np.take_along_axis(x, idx, 1))
    idx2 = rng.randint(0, 3, size=(2, 1, 2)).astype(np.int32)
    eq(jnp.take_along_axis(x, idx2, 0), np.take_along_axis(x, idx2, 0))
    idx3 = rng.randint(0, 2, size=(1, 4, 3)).astype(np.int32)
    eq(jnp.take_along_axis(x, idx3, 2), np.take_along_axis(x, idx3, 2))
    flat = np.float32([5, 1, 3])
    eq(jnp.take_along_axis(flat, I32(7, -1, -9), 0), np.float32([np.nan, 3, np.nan]))
    eq(jnp.take_along_axis(x, np.argsort(x, axis=None).astype(np.int32), None),
       np.take_along_axis(x, np.argsort(x, axis=None), None))


def test_nonzero_family():
    x = np.array([[0, 1, 0], [2, 0, 3]], np.int32)
    for a, e in zip(jnp.nonzero(x), np.nonzero(x)):
        eq(a, e.astype(np.int32))
    eq(jnp.argwhere(x), np.argwhere(x).astype(np.int32))
    eq(jnp.flatnonzero(x), np.flatnonzero(x).astype(np.int32))
    r, c = jnp.nonzero(x, size=5, fill_value=-1)
    eq(r, np.int32([0, 1, 1, -1, -1]))
    eq(c, np.int32([1, 0, 2, -1, -1]))
    eq(jnp.nonzero(x, size=2)[1], np.int32([1, 0]))
    with pytest.raises(jaxweb._src.core.ConcretizationTypeError, match="size argument of jnp.nonzero"):
        jaxweb.jit(jnp.nonzero)(x)
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays"):
        jnp.nonzero(np.int32(1))


def test_nonzero_traced_with_size():
    x = np.array([0.0, 2.0, 0.0, -1.0, 5.0], np.float32)
    (got,) = jaxweb.jit(lambda v: jnp.nonzero(v, size=4, fill_value=9))(x)
    eq(got, np.int32([1, 3, 4, 9]))


# ---------------------------------------------------------------- lax dynamic slices
def test_dynamic_slice():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    eq(lax.dynamic_slice(x, (1, 2), (2, 3)), x[1:3, 2:5])
    eq(lax.dynamic_slice(x, (3, 4), (2, 3)), x[2:4, 2:5])  # clamped
    eq(lax.dynamic_slice(x, (-1, -9), (2, 2)), x[2:4, 0:2])  # -1 -> 3 -> clamped to 2
    eq(lax.dynamic_slice(x, (jnp.asarray(np.int32(-2)), jnp.asarray(np.int32(1))), (1, 2)), x[2:3, 1:3])
    eq(lax.dynamic_slice_in_dim(x, 3, 2, axis=1), x[:, 3:5])
    eq(lax.dynamic_index_in_dim(x, 1, axis=0, keepdims=False), x[1])
    eq(jaxweb.jit(lambda x, i: lax.dynamic_slice(x, (i, i), (2, 2)))(x, np.int32(9)), x[2:4, 3:5])
    eq(lax.dynamic_slice(x, (np.uint8(1), np.uint8(1)), (0, 2)), x[1:1, 1:3])


def test_dynamic_update_slice():
    x = np.zeros((4, 5), np.float32)
    u = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    e = x.copy()
    e[1:3, 2:5] = u
    eq(lax.dynamic_update_slice(x, u, (1, 2)), e)
    eq(lax.dynamic_update_slice(x, u, (3, 4)), lax.dynamic_update_slice(x, u, (2, 2)))
    eq(jaxweb.jit(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 2)))(x, u, np.int32(-3)), e)
    e2 = x.copy()
    e2[:, 1:2] = 7
    eq(lax.dynamic_update_slice_in_dim(x, np.full((4, 1), 7, np.float32), 1, axis=1), e2)
    eq(lax.dynamic_update_index_in_dim(x, np.full((4,), 7, np.float32), 1, 1), e2)
    eq(lax.dynamic_update_slice(x, np.zeros((0, 2), np.float32), (1, 1)), x)


@pytest.mark.parametrize("fn,err,msg", [
    (lambda x: lax.dynamic_slice(x, (0,), (1, 1)), ValueError, "Length of slice indices must match number of operand dimensions (1 vs (2, 3))"),
    (lambda x: lax.dynamic_slice(x, (0, 0), (3, 1)), TypeError, "slice slice_sizes must be less than or equal to operand shape"),
    (lambda x: lax.dynamic_slice(x, (jnp.float32(0), 0), (1, 1)), TypeError, "index arguments to dynamic_slice must be integers"),
    (lambda x: lax.dynamic_update_slice(x, jnp.ones(2), (0, 0)), TypeError, "update must have the same rank as operand"),
    (lambda x: lax.dynamic_update_slice(x, jnp.ones((3, 1)), (0, 0)), TypeError, "update shape must be smaller than operand shape"),
    (lambda x: lax.dynamic_update_slice(x, jnp.ones((1, 1), jnp.int32), (0, 0)), TypeError,
     "lax.dynamic_update_slice requires arguments to have the same dtypes, got float32, int32."),
])
def test_dynamic_errors(fn, err, msg):
    with pytest.raises(err) as e:
        fn(jnp.ones((2, 3)))
    assert msg in str(e.value)


# ---------------------------------------------------------------- gather / scatter
GDN = lax.GatherDimensionNumbers
SDN = lax.ScatterDimensionNumbers


def test_gather_modes_and_fill():
    x = np.arange(5, dtype=np.float32)
    dn = GDN(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    i = np.array([[7], [-1], [2]], np.int32)
    eq(lax.gather(x, i, dn, (1,)), np.float32([4, 0, 2]))
    eq(lax.gather(x, i, dn, (1,), mode="clip"), np.float32([4, 0, 2]))
    eq(lax.gather(x, i, dn, (1,), mode="fill"), np.float32([np.nan, np.nan, 2]))
    eq(lax.gather(x, i, dn, (1,), mode="fill", fill_value=3), np.float32([3, 3, 2]))
    eq(lax.gather(np.arange(5, dtype=np.uint8), i, dn, (1,), mode=lax.GatherScatterMode.FILL_OR_DROP),
       np.uint8([255, 255, 2]))
    eq(lax.gather(np.arange(5) > 2, i, dn, (1,), mode="fill"), np.array([True, True, False]))
    assert lax.GatherScatterMode.from_any(None) is lax.GatherScatterMode.FILL_OR_DROP
    with pytest.raises(ValueError, match='Unknown gather mode "foo"'):
        lax.GatherScatterMode.from_any("foo")


def test_gather_windows_and_batching_dims():
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    # windows of 2x3 in dims (1, 2) at start positions, batch of 2
    i = np.array([[0, 1], [2, 3]], np.int32)
    dn = GDN(offset_dims=(1, 2, 3), collapsed_slice_dims=(), start_index_map=(1, 2))
    e = np.stack([x[:, 0:2, 1:4], x[:, 2:4, 2:5]])  # second start clamped 3 -> 2
    eq(lax.gather(x, i, dn, (3, 2, 3)), e)
    eq(lax.gather(x, i, dn, (3, 2, 3), mode="fill")[1], np.full((3, 2, 3), np.nan, np.float32))
    # operand batching dims: per-row index along dim 1
    j = np.array([[1], [3], [0]], np.int32)
    dnb = GDN(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1,),
              operand_batching_dims=(0,), start_indices_batching_dims=(0,))
    eq(lax.gather(x, j, dnb, (1, 1, 5)), np.stack([x[0, 1], x[1, 3], x[2, 0]]))


def test_gather_errors():
    x = jnp.ones(5)
    dn = GDN(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    with pytest.raises(ValueError, match="indices must have an integer type"):
        lax.gather(x, jnp.ones((1, 1)), dn, (1,))
    with pytest.raises(TypeError, match="Gather op can only collapse slice dims with bound 1, but bound is 2"):
        lax.gather(x, jnp.zeros((1, 1), jnp.int32), dn, (2,))


@pytest.mark.parametrize("mode,expected_add", [(None, [0, 1, 3, 3, 4]), ("clip", [1, 1, 3, 3, 5]),
                                               ("promise_in_bounds", [0, 1, 3, 3, 4])])
def test_scatter_modes(mode, expected_add):
    x = np.arange(5, dtype=np.float32)
    i = np.array([[7], [-1], [2]], np.int32)
    dn = SDN(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    eq(lax.scatter_add(x, i, np.ones(3, np.float32), dn, mode=mode), np.float32(expected_add))


def test_scatter_family_windows():
    x = rng.standard_normal((4, 5)).astype(np.float32)
    i = np.array([[0, 1], [2, 2], [0, 1]], np.int32)
    u = rng.standard_normal((3, 2, 3)).astype(np.float32)
    dn = SDN(update_window_dims=(1, 2), inserted_window_dims=(), scatter_dims_to_operand_dims=(0, 1))
    for fn, comb in [(lax.scatter_add, np.add), (lax.scatter_mul, np.multiply), (lax.scatter_min, np.minimum),
                     (lax.scatter_max, np.maximum)]:
        e = x.copy()
        for k in range(3):
            r, c = i[k]
            e[r:r + 2, c:c + 3] = comb(e[r:r + 2, c:c + 3], u[k])
        np.testing.assert_allclose(np.asarray(fn(x, i, u, dn)), e, rtol=1e-5, atol=1e-6)
    e = x.copy()
    for k in range(3):
        r, c = i[k]
        e[r:r + 2, c:c + 3] = u[k]
    eq(lax.scatter(x, i, u, dn), e)
    e = x.copy()
    for k in range(3):
        r, c = i[k]
        e[r:r + 2, c:c + 3] -= u[k]
    np.testing.assert_allclose(np.asarray(lax.scatter_sub(x, i, u, dn)), e, rtol=1e-5, atol=1e-6)


def test_scatter_operand_batching_dims_and_apply():
    x = np.zeros((3, 4), np.float32)
    i = np.array([[1], [3], [0]], np.int32)
    dn = SDN(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
             operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    e = x.copy()
    e[[0, 1, 2], [1, 3, 0]] = [5, 6, 7]
    eq(lax.scatter(x, i, np.float32([5, 6, 7]), dn), e)
    dn1 = SDN(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    y = np.float32([1, 2, 3])
    eq(lax.scatter_apply(y, np.array([[0], [2], [2]], np.int32), jnp.negative, dn1, update_shape=(3,)),
       np.float32([-1, 2, -3]))


def test_scatter_errors():
    dn = SDN(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.scatter_add(jnp.ones(3), jnp.zeros((1, 1), jnp.int32), jnp.ones(1, jnp.int32), dn)
    with pytest.raises(ValueError, match="Bounds of the scatter dimensions of updates"):
        lax.scatter_add(jnp.ones(3), jnp.zeros((2, 1), jnp.int32), jnp.ones(3), dn)


# ---------------------------------------------------------------- index helpers (values from JAX 0.10)
def test_append_insert_delete():
    a = np.arange(6, dtype=np.int32)
    m = a.reshape(2, 3)
    eq(jnp.append(np.ones((2, 2), np.float32), np.float32(3)), np.float32([1, 1, 1, 1, 3]))
    eq(jnp.append(m, m[:1], axis=0), np.append(m, m[:1], axis=0))
    eq(jnp.insert(a[:5], 1, np.int32([7, 8])), np.int32([0, 7, 8, 1, 2, 3, 4]))
    eq(jnp.insert(a[:5], np.int32([1, 1, 5]), np.int32([7, 8, 9])), np.int32([0, 7, 8, 1, 2, 3, 4, 9]))
    eq(jnp.insert(m, 1, 9, axis=1), np.insert(m, 1, 9, axis=1))
    eq(jnp.insert(m, np.int32([0, 2]), np.int32([7, 8]), axis=1), np.insert(m, [0, 2], [7, 8], axis=1))
    eq(jnp.insert(a, 9, 1), np.int32([0, 1, 2, 3, 4, 5, 1]))
    eq(jnp.insert(a, -9, 1), np.int32([1, 0, 1, 2, 3, 4, 5]))
    eq(jnp.delete(a, np.int32([0, -1, 2])), np.delete(a, [0, -1, 2]))
    eq(jnp.delete(m, slice(None, None, 2), axis=1), np.delete(m, slice(None, None, 2), axis=1))
    eq(jnp.delete(m, 1), np.delete(m, 1))
    with pytest.raises(IndexError):
        jnp.delete(a, 7)


def test_compress_extract_choose_block():
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    eq(jnp.compress(np.array([True, False, True]), m, axis=1), np.compress([True, False, True], m, axis=1))
    eq(jnp.compress(np.array([False, True]), m, axis=0, size=2, fill_value=-1), np.int32([[3, 4, 5], [-1, -1, -1]]))
    with pytest.raises(ValueError, match="size must be positive and not greater"):  # as JAX 0.10
        jnp.compress(np.array([False, True]), m, axis=0, size=3, fill_value=-1)
    mask = m % 3 == 0  # traced condition with a static size (JAX's docstring example)
    eq(jaxweb.vmap(lambda c, a: jnp.extract(c, a, size=3, fill_value=0))(mask, m), np.int32([[0, 0, 0], [3, 0, 0]]))
    eq(jnp.extract(np.arange(4) > 1, np.arange(4, dtype=np.int32) * 2), np.int32([4, 6]))
    ch = [np.ones(3, np.float32), np.zeros(3, np.float32)]
    eq(jnp.choose(np.int32([0, 1, 1]), ch), np.choose([0, 1, 1], ch))
    eq(jnp.choose(np.int32([0, 1, 5]), ch, mode="wrap"), np.float32([1, 0, 0]))
    eq(jnp.choose(np.int32([0, 1, 5]), ch, mode="clip"), np.float32([1, 0, 0]))
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        jnp.choose(np.int32([0, 2, 1]), ch)
    blocks = [[np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)], [np.ones((1, 3), np.float32)]]
    eq(jnp.block(blocks), np.block(blocks))
    eq(jnp.block([np.float32(1), np.ones(2, np.float32)]), np.block([np.float32(1), np.ones(2, np.float32)]))


def test_puts():
    z = np.zeros(5, np.float32)
    eq(jnp.put(z, np.int32([0, 7, -1]), np.float32([1, 2]), inplace=False), np.float32([1, 0, 0, 0, 1]))
    eq(jnp.put(z, np.int32([0, 7, -1]), np.float32([1, 2]), mode="clip", inplace=False), np.float32([1, 0, 0, 0, 2]))
    with pytest.raises(ValueError, match="cannot modify arrays in-place"):
        jnp.put(z, np.int32([0]), 1.0)
    e = np.zeros((2, 3), np.float32)
    np.put_along_axis(e, np.array([[0], [2]]), 1.0, 1)
    eq(jnp.put_along_axis(np.zeros((2, 3), np.float32), np.int32([[0], [2]]), 1.0, 1, inplace=False), e)
    with pytest.raises(ValueError, match="cannot modify arrays in-place"):
        jnp.put_along_axis(z, np.int32([0]), 1.0, 0)
    eq(jnp.fill_diagonal(np.zeros((3, 4), np.float32), np.float32([1, 2]), inplace=False),
       np.float32([[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 1, 0]]))
    e3 = np.zeros((2, 2, 2), np.float32)
    np.fill_diagonal(e3, 5)
    eq(jnp.fill_diagonal(np.zeros((2, 2, 2), np.float32), 5.0, inplace=False), e3)


def test_index_generators():
    eq(jnp.indices((2, 3)), np.indices((2, 3)).astype(np.int32))
    for a, e in zip(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True)):
        eq(a, e.astype(np.int32))
    for fn, nfn, args in [(jnp.tril_indices, np.tril_indices, (3, -1)), (jnp.triu_indices, np.triu_indices, (3, 1, 4)),
                          (jnp.diag_indices, np.diag_indices, (3, 3))]:
        for a, e in zip(fn(*args), nfn(*args)):
            eq(a, e.astype(np.int32))
    m = np.zeros((3, 4))
    for a, e in zip(jnp.triu_indices_from(m, 1), np.triu_indices_from(m, 1)):
        eq(a, e.astype(np.int32))
    for a, e in zip(jnp.ix_(np.int32([0, 1]), np.int32([1, 2, 0])), np.ix_([0, 1], [1, 2, 0])):
        eq(a, e.astype(np.int32))
    r, c = jnp.unravel_index(np.int32([7, -1, 30, -13]), (3, 4))
    eq(r, np.int32([1, 2, 2, 0]))
    eq(c, np.int32([3, 3, 3, 0]))
    mi = (np.int32([1, 5]), np.int32([2, -1]))
    eq(jnp.ravel_multi_index(mi, (3, 4), mode="clip"), np.int32([6, 8]))
    eq(jnp.ravel_multi_index(mi, (3, 4), mode="wrap"), np.int32([6, 11]))
    eq(jnp.ravel_multi_index((np.int32([1, 2]), np.int32([2, 0])), (3, 4)), np.int32([6, 8]))
    eq(jnp.ravel_multi_index((np.int32([1, 2]), np.int32([2, 0])), (3, 4), order="F"),
       np.ravel_multi_index(([1, 2], [2, 0]), (3, 4), order="F").astype(np.int32))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        jnp.ravel_multi_index(mi, (3, 4))


@settings(max_examples=40, deadline=None)
@given(st.lists(_entry, max_size=4))
def test_at_hypothesis(entries):
    idx = tuple(entries)
    try:
        target = A[idx]
        added = A.copy()
        np.add.at(added, idx, np.float32(1))
    except (IndexError, ValueError, TypeError):
        return
    vals = np.arange(target.size, dtype=np.float32).reshape(target.shape) + 100
    expected = A.copy()
    expected[idx] = vals
    x = jnp.asarray(A)
    eq(x.at[to_jax_index(idx)].set(vals), expected)
    eq(x.at[to_jax_index(idx)].add(np.float32(1)), added)


def test_trim_zeros_and_place():
    eq(jnp.trim_zeros(np.int32([0, 0, 1, 2, 0, 3, 0])), np.int32([1, 2, 0, 3]))
    eq(jnp.trim_zeros(np.int32([0, 0, 1, 0]), "b"), np.int32([0, 0, 1]))
    eq(jnp.trim_zeros(np.zeros(3, np.float32)), np.zeros(0, np.float32))
    eq(jnp.place(np.arange(5, dtype=np.int32), np.arange(5) > 1, np.int32([9, 8]), inplace=False),
       np.int32([0, 1, 9, 8, 9]))
    with pytest.raises(ValueError, match="cannot modify arrays in-place"):
        jnp.place(np.arange(5), np.arange(5) > 1, 1)


# ---------------------------------------------------------------- general dimension numbers vs loops
def np_gather(x, idx, dn, sizes, fill):
    """Reference gather by explicit loops over the output (XLA semantics)."""
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offsets = [sizes[d] for d in range(x.ndim) if d not in dropped]
    batch = list(idx.shape[:-1])
    rank = len(batch) + len(offsets)
    oi, bi = iter(offsets), iter(batch)
    shape = tuple(next(oi) if i in dn.offset_dims else next(bi) for i in range(rank))
    out = np.zeros(shape, x.dtype)
    for o in np.ndindex(*shape):
        g = [o[i] for i in range(rank) if i not in dn.offset_dims]
        offs = iter(o[i] for i in dn.offset_dims)
        start = idx[tuple(g)]
        full, ok = [], True
        for d in range(x.ndim):
            if d in dn.operand_batching_dims:
                full.append(g[dn.start_indices_batching_dims[dn.operand_batching_dims.index(d)]])
                continue
            s = int(start[dn.start_index_map.index(d)]) if d in dn.start_index_map else 0
            hi = x.shape[d] - sizes[d]
            ok = ok and 0 <= s <= hi
            s = min(max(s, 0), hi)
            full.append(s + (0 if d in dn.collapsed_slice_dims else next(offs)))
        out[o] = x[tuple(full)] if ok or not fill else np.nan
    return out


def np_scatter_add(x, idx, upd, dn):
    """Reference scatter-add (out-of-bounds windows dropped) by loops over the updates."""
    out = x.copy()
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_ops = [d for d in range(x.ndim) if d not in dropped]
    for u in np.ndindex(*upd.shape):
        g = [u[i] for i in range(upd.ndim) if i not in dn.update_window_dims]
        w = dict(zip(window_ops, (u[i] for i in dn.update_window_dims)))
        start = idx[tuple(g)]
        full, ok = [], True
        for d in range(x.ndim):
            if d in dn.operand_batching_dims:
                full.append(g[dn.scatter_indices_batching_dims[dn.operand_batching_dims.index(d)]])
                continue
            s = int(start[dn.scatter_dims_to_operand_dims.index(d)]) if d in dn.scatter_dims_to_operand_dims else 0
            size = upd.shape[dn.update_window_dims[window_ops.index(d)]] if d in w else 1
            ok = ok and 0 <= s <= x.shape[d] - size
            full.append(s + w.get(d, 0))
        if ok:
            out[tuple(full)] += upd[u]
    return out


GATHER_CASES = [
    # operand shape, indices, dimension numbers, slice sizes
    ((4, 5, 6), np.array([[0, 1], [3, 5], [-1, 2]], np.int32), GDN((0, 2), (0,), (0, 2)), (1, 3, 2)),
    ((2, 5, 3), np.array([[[1], [4], [0], [9]], [[2], [2], [3], [-4]]], np.int32),
     GDN((1,), (1,), (1,), (0,), (0,)), (1, 1, 3)),
    ((3, 4), np.zeros((2, 0), np.int32), GDN((1, 2), (), ()), (2, 3)),
    ((3, 4), np.array([2, 1], np.int32), GDN((0,), (0,), (0, 1)), (1, 3)),
    ((5,), np.array([[[4], [0]], [[2], [5]]], np.int32), GDN((), (0,), (0,)), (1,)),
]


@pytest.mark.parametrize("case", range(len(GATHER_CASES)))
@pytest.mark.parametrize("fill", [False, True])
def test_gather_general_vs_loops(case, fill):
    shape, idx, dn, sizes = GATHER_CASES[case]
    x = rng.standard_normal(shape).astype(np.float32)
    got = lax.gather(x, idx, dn, sizes, mode="fill" if fill else "clip")
    eq(got, np_gather(x, idx, dn, sizes, fill))
    sdn = SDN(dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map, dn.operand_batching_dims,
              dn.start_indices_batching_dims)
    upd = rng.standard_normal(np.asarray(got).shape).astype(np.float32)
    np.testing.assert_allclose(np.asarray(lax.scatter_add(x, idx, upd, sdn)), np_scatter_add(x, idx, upd, sdn),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_low_float_updates(dt):
    x = jnp.arange(5.0).astype(dt)
    i = np.int32([1, 1, 9])
    one = jnp.asarray(1.5).astype(dt)
    eq(x.at[i].add(one).astype("float32"), np.float32([0, 4, 2, 3, 4]))
    eq(x.at[i].max(jnp.asarray(7.0).astype(dt)).astype("float32"), np.float32([0, 7, 2, 3, 4]))
    eq(jnp.take(x, i).astype("float32"), np.float32([1, 1, np.nan]))
    assert x[i].dtype == x.dtype


@pytest.mark.needs_64bit
def test_x64_indices():
    with jaxweb.enable_x64(True):
        x = jnp.arange(6.0)
        i = jnp.asarray(np.int64([5, -1, 2**40]))
        eq(x[i], np.float64([5, 5, 5]))
        eq(x.at[i].add(1.0), np.float64([0, 1, 2, 3, 4, 7]))
        eq(lax.dynamic_slice(x, (np.int64(-2),), (2,)), np.float64([4, 5]))


def test_dynamic_slice_allow_negative_indices():
    x = np.arange(5, dtype=np.int32)
    eq(lax.dynamic_slice(x, (jnp.asarray(np.int32(-2)),), (2,), allow_negative_indices=False), x[0:2])
    eq(lax.dynamic_update_slice(x, np.int32([9]), (jnp.asarray(np.int32(-1)),), allow_negative_indices=[False]),
       np.int32([9, 1, 2, 3, 4]))
    with pytest.raises(ValueError, match="Index -2 is out of bounds for dimension 5 if allow_negative_indices=False"):
        lax.dynamic_slice(x, (-2,), (2,), allow_negative_indices=False)


def test_take_along_axis_clip_normalizes_negative():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    eq(jnp.take_along_axis(x, np.int32([[-1, 9]]), 1, mode="clip"), np.float32([[3, 3], [7, 7]]))
    eq(jnp.take(x[0], np.int32([-1, 9]), mode="clip"), np.float32([0, 3]))


def test_grid_and_concatenation_objects():
    eq(jnp.mgrid[0:3, 0:2], np.mgrid[0:3, 0:2].astype(np.int32))
    np.testing.assert_allclose(np.asarray(jnp.mgrid[0:1:5j]), np.mgrid[0:1:5j])
    assert jnp.mgrid[0:1:0.5].dtype == jnp.float32
    for a, e in zip(jnp.ogrid[0:3, 0:2], np.ogrid[0:3, 0:2]):
        eq(a, e.astype(np.int32))
    eq(jnp.r_[1:4, 0, np.int32([7, 8])], np.int32([1, 2, 3, 0, 7, 8]))
    eq(jnp.r_["0,2", np.int32([1, 2]), np.int32([3, 4])], np.r_["0,2", [1, 2], [3, 4]].astype(np.int32))
    eq(jnp.r_["0,2,0", np.int32([1, 2]), np.int32([3, 4])], np.r_["0,2,0", [1, 2], [3, 4]].astype(np.int32))
    eq(jnp.c_[np.int32([1, 2]), np.int32([3, 4])], np.c_[[1, 2], [3, 4]].astype(np.int32))
    eq(jnp.r_["-1", np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)],
       np.r_["-1", np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)])
    np.testing.assert_allclose(np.asarray(jnp.r_[0:1:3j]), [0, 0.5, 1])
    assert jnp.r_[1, 2.5].dtype == jnp.float32
    assert jnp.s_[1:2, ::3] == np.s_[1:2, ::3] and jnp.index_exp[1:2] == np.index_exp[1:2]
    r, c = jnp.mask_indices(3, jnp.triu, 1)
    eq(r, np.int32([0, 0, 1]))
    eq(c, np.int32([1, 2, 2]))


def test_indexing_without_numpy():
    """Indexing, updates and shape functions run where numpy is absent (Pyodide)."""
    import subprocess
    import sys
    import textwrap
    try:
        jaxweb.devices("wasm")
    except Exception:
        pytest.skip("no numpy-free backend available")
    code = textwrap.dedent("""
        import sys
        sys.modules['numpy'] = None
        import jaxweb.numpy as jnp
        from jaxweb import lax
        x = jnp.arange(12.).reshape(3, 4)
        assert x[1:, ::-2].tolist() == [[7.0, 5.0], [11.0, 9.0]]
        assert x[jnp.asarray([2, 0]), 1].tolist() == [9.0, 1.0]
        assert x.at[jnp.asarray([0, 0]), 1].add(1.)[0].tolist() == [0.0, 3.0, 2.0, 3.0]
        assert x[x > 9].tolist() == [10.0, 11.0]
        assert jnp.pad(x, 1, mode='reflect').shape == (5, 6)
        assert lax.dynamic_slice(x, (1, jnp.asarray(3)), (2, 2)).tolist() == [[6.0, 7.0], [10.0, 11.0]]
        print('ok')
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().endswith("ok"), out.stderr[-2000:]
