"""Reductions, arg-reductions and cumulative ops (lax and jnp) against numpy."""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax


pytestmark = pytest.mark.on_every_device  # see conftest.py


rng = np.random.RandomState(0)


def randn(*shape, dtype="float32"):
    return rng.standard_normal(shape).astype(dtype)


def close(a, b, tol=1e-5):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------- lax
LAX_REDUCTIONS = [("reduce_sum", np.sum), ("reduce_prod", np.prod), ("reduce_max", np.max),
                  ("reduce_min", np.min)]


@pytest.mark.parametrize("name,ref", LAX_REDUCTIONS)
@pytest.mark.parametrize("shape,axes", [((3, 4, 5), (1,)), ((3, 4, 5), (0, 2)), ((2, 3), (0, 1)),
                                        ((4,), ()), ((2, 0, 3), (0, 2))])
def test_lax_reductions(name, ref, shape, axes):
    x = randn(*shape)
    if 0 in [shape[a] for a in axes] and name in ("reduce_max", "reduce_min"):
        fill = -np.inf if name == "reduce_max" else np.inf
        close(getattr(lax, name)(x, axes), np.full([d for i, d in enumerate(shape) if i not in axes], fill))
        return
    close(getattr(lax, name)(x, axes), ref(x, axis=axes) if axes else x)


def test_lax_reductions_int_wrap_and_nan():
    x = np.array([[100, 100, 100], [-128, -1, 1]], np.int8)
    assert lax.reduce_sum(x, (1,)).tolist() == [44, -128]
    assert lax.reduce_prod(x, (1,)).tolist() == [64, -128]
    assert lax.reduce_sum(x, (1,)).dtype == jnp.int8
    y = np.array([1.0, np.nan, 3.0], np.float32)
    assert np.isnan(float(lax.reduce_max(y, (0,)))) and np.isnan(float(lax.reduce_min(y, (0,))))
    z = np.array([-0.0, -0.0], np.float32)
    assert np.signbit(float(lax.reduce_max(z, (0,))))


def test_lax_float16_sum_accumulates_in_f32():
    x = np.full((4096,), 1.0, np.float16)
    out = lax.reduce_sum(x, (0,))
    assert out.dtype == jnp.float16 and float(out) == 4096.0  # f16 accumulation would stop at 2048


def test_bool_reductions():
    b = np.array([[True, False, True], [True, True, True], [False, False, False]])
    assert lax.reduce_and(b, (1,)).tolist() == [False, True, False]
    assert lax.reduce_or(b, (1,)).tolist() == [True, True, False]
    assert lax.reduce_xor(b, (1,)).tolist() == [False, True, False]
    assert lax.reduce_max(b, (0,)).tolist() == [True, True, True]


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint32"])
def test_bitwise_reductions(dtype):
    info = np.iinfo(dtype)
    x = rng.randint(info.min, int(info.max) + 1, size=(3, 5), dtype=np.int64).astype(dtype)
    for name, ufunc in (("reduce_and", np.bitwise_and), ("reduce_or", np.bitwise_or),
                        ("reduce_xor", np.bitwise_xor)):
        got = getattr(lax, name)(x, (1,))
        assert got.dtype == jnp.dtype(dtype)
        assert np.array_equal(np.asarray(got), ufunc.reduce(x, axis=1)), name
    assert int(lax.reduce_and(np.zeros((0,), dtype), (0,))) == (-1 if info.min < 0 else info.max)


def test_argmax_argmin():
    x = randn(4, 5, 3)
    for axis in range(3):
        assert np.array_equal(np.asarray(lax.argmax(x, axis, jnp.int32)), np.argmax(x, axis))
        assert np.array_equal(np.asarray(lax.argmin(x, axis, jnp.int32)), np.argmin(x, axis))
    # ties: first index; NaN: first NaN wins (values from JAX)
    assert int(lax.argmax(np.array([1., 3., 3.], np.float32), 0, jnp.int32)) == 1
    assert int(lax.argmax(np.array([1., np.nan, np.nan], np.float32), 0, jnp.int32)) == 1
    assert int(lax.argmin(np.array([1., np.nan], np.float32), 0, jnp.int32)) == 1
    assert int(lax.argmax(np.array([-0.0, 0.0], np.float32), 0, jnp.int32)) == 0
    assert lax.argmax(np.array([1, 5, 5], np.uint8), 0, jnp.int16).dtype == jnp.int16
    with pytest.raises(ValueError, match="argmin and argmax require non-empty reduced dimension"):
        lax.argmax(np.zeros((2, 0), np.float32), 1, jnp.int32)


def test_lax_reduce_monoids():
    x = randn(3, 4)
    close(lax.reduce(x, 0.0, lax.add, (1,)), x.sum(1))
    close(lax.reduce(x, -np.inf, lax.max, (0,)), x.max(0))
    close(lax.reduce(x, 1.0, lax.add, (0, 1)), x.sum() + 1)
    close(lax.reduce(x, np.float32(0), lambda a, b: a * b, (1,)), 0 * x.prod(1))


def test_lax_reduce_axis_errors():
    with pytest.raises(ValueError, match=r"reduction axes \(2,\) contains out-of-bounds indices for float32\[2,2\]"):
        lax.reduce_sum(np.ones((2, 2), np.float32), (2,))
    with pytest.raises(TypeError, match="reduce_and does not accept dtype float32"):
        lax.reduce_and(np.ones((2,), np.float32), (0,))


# ---------------------------------------------------------------- cumulative
@pytest.mark.parametrize("name,ref", [("cumsum", np.cumsum), ("cumprod", np.cumprod),
                                      ("cummax", np.maximum.accumulate), ("cummin", np.minimum.accumulate)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative(name, ref, axis, reverse):
    x = randn(4, 5)
    expect = np.flip(ref(np.flip(x, axis), axis=axis), axis) if reverse else ref(x, axis=axis)
    close(getattr(lax, name)(x, axis, reverse=reverse), expect)


def test_cumlogsumexp_and_nan():
    x = randn(3, 6)
    close(lax.cumlogsumexp(x, 1), np.logaddexp.accumulate(x, axis=1))
    close(lax.cumlogsumexp(np.array([-np.inf, -np.inf, 0.0], np.float32)), [-np.inf, -np.inf, 0.0])
    close(lax.cummax(np.array([1., np.nan, 0.], np.float32)), [1., np.nan, np.nan])
    assert lax.cumsum(np.array([100, 100, 100], np.int8)).tolist() == [100, -56, 44]
    assert lax.cumsum(np.zeros((0, 3), np.float32), 0).shape == (0, 3)
    with pytest.raises(ValueError, match=r"axis 2 is out of bounds for array of shape \(2, 2\)"):
        lax.cumsum(np.ones((2, 2), np.float32), 2)


# ---------------------------------------------------------------- jnp
JNP_FUNCS = ["sum", "prod", "max", "min", "mean", "var", "std", "ptp", "all", "any", "amax", "amin",
             "nansum", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "nanprod", "count_nonzero"]


@pytest.mark.parametrize("name", JNP_FUNCS)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_jnp_reductions(name, axis, keepdims):
    x = randn(3, 4, 2)
    if name.startswith("nan"):
        x[0, 1, 0] = np.nan
    got = getattr(jnp, name)(x, axis=axis, keepdims=keepdims)
    expect = getattr(np, name)(x, axis=axis, keepdims=keepdims)
    close(got, expect, 1e-4)


def test_jnp_reduction_dtypes():
    i8 = np.array([100, 100, 100], np.int8)
    assert jnp.sum(i8).dtype == jnp.int32 and int(jnp.sum(i8)) == 300
    assert jnp.sum(np.array([True, True])).dtype == jnp.int32
    assert jnp.sum(np.array([1, 2], np.uint8)).dtype == jnp.uint32
    assert jnp.prod(i8, dtype=jnp.int8).dtype == jnp.int8
    assert jnp.mean(np.array([1, 2], np.int32)).dtype == jnp.float32
    assert float(jnp.mean(np.array([1, 2], np.int32))) == 1.5
    assert jnp.mean(np.ones(3, np.float16)).dtype == jnp.float16
    assert jnp.max(i8).dtype == jnp.int8
    assert jnp.argmax(randn(3)).dtype == jnp.int32
    assert jnp.all(randn(3)).dtype == jnp.bool_


def test_jnp_where_initial_ddof():
    x = randn(4, 5)
    m = x > 0
    close(jnp.sum(x, axis=1, where=m), np.sum(x, axis=1, where=m))
    close(jnp.max(x, axis=0, where=m, initial=-10.0), np.max(x, axis=0, where=m, initial=-10.0))
    close(jnp.mean(x, axis=1, where=m), np.mean(x, axis=1, where=m))
    close(jnp.sum(x, initial=2.0), x.sum() + 2.0)
    close(jnp.var(x, axis=0, ddof=1), np.var(x, axis=0, ddof=1))
    close(jnp.std(x, ddof=2), np.std(x, ddof=2))
    close(jnp.max(np.zeros((0, 3), np.float32), axis=1), np.zeros((0,)))
    close(jnp.sum(np.zeros((0, 3), np.float32), axis=0), np.zeros(3))
    close(jnp.min(np.zeros((0,), np.float32), initial=3.0), 3.0)
    assert float(jnp.sum(np.zeros((0,), np.float32))) == 0.0


def test_jnp_reduction_errors():
    with pytest.raises(ValueError, match="zero-size array to reduction operation max which has no identity"):
        jnp.max(np.zeros((0,), np.float32))
    with pytest.raises(ValueError, match="zero-size array to reduction operation min"):
        jnp.min(np.zeros((2, 0), np.float32), axis=1)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        jnp.sum(np.ones((2, 2), np.float32), axis=2)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        jnp.argmax(np.zeros((0,), np.float32))
    with pytest.raises(ValueError, match="where mask one has to specify 'initial'"):
        jnp.max(np.ones(3, np.float32), where=np.array([True, False, True]))


def test_jnp_arg_and_nan_handling():
    x = randn(3, 4)
    x[1, 2] = np.nan
    assert np.array_equal(np.asarray(jnp.argmax(x, axis=1)), [np.argmax(x[0]), 2, np.argmax(x[2])])
    assert int(jnp.argmin(x)) == 6
    assert jnp.argmax(x, axis=0, keepdims=True).shape == (1, 4)
    close(jnp.nanargmax(x, axis=1), np.nanargmax(x, axis=1))
    close(jnp.nanargmin(x, axis=1), np.nanargmin(x, axis=1))
    all_nan = np.full((2,), np.nan, np.float32)
    assert np.isnan(float(jnp.nanmax(all_nan)))
    inf = np.array([np.inf, -np.inf, 1.0], np.float32)
    assert float(jnp.max(inf)) == np.inf and np.isnan(float(jnp.sum(inf)))


def test_jnp_cumulative():
    x = randn(3, 4)
    close(jnp.cumsum(x), np.cumsum(x))
    close(jnp.cumsum(x, axis=1), np.cumsum(x, axis=1))
    close(jnp.cumprod(x, axis=0), np.cumprod(x, axis=0))
    assert jnp.cumsum(np.array([100, 100], np.int8)).tolist() == [100, -56]  # int8 kept, as JAX
    x[0, 1] = np.nan
    close(jnp.nancumsum(x, axis=1), np.nancumsum(x, axis=1))
    close(jnp.nancumprod(x, axis=1), np.nancumprod(x, axis=1))
    close(jnp.cumulative_sum(x, axis=0, include_initial=True),
          np.concatenate([np.zeros((1, 4)), np.cumsum(x, axis=0)]))
    close(jnp.cumulative_prod(np.arange(1, 5, dtype=np.float32)), [1, 2, 6, 24])


def test_jnp_average_median():
    x = randn(4, 5)
    w = np.abs(randn(5)) + 0.1
    close(jnp.average(x, axis=1, weights=w), np.average(x, axis=1, weights=w))
    avg, wsum = jnp.average(x, weights=np.abs(x), returned=True)
    navg, nwsum = np.average(x, weights=np.abs(x), returned=True)
    close(avg, navg), close(wsum, nwsum)
    close(jnp.average(x, axis=0), x.mean(0))
    close(jnp.median(x), np.median(x))
    close(jnp.median(x, axis=1), np.median(x, axis=1))
    close(jnp.median(randn(3, 4, 5), axis=(0, 2), keepdims=True).shape, (1, 4, 1))
    x[0, 0] = np.nan
    assert np.isnan(np.asarray(jnp.median(x, axis=1))[0])


def test_zero_dim_inputs():
    s = np.float32(2.5)
    for name in ("sum", "prod", "max", "min", "mean", "median", "ptp"):
        out = getattr(jnp, name)(s)
        assert out.shape == () and float(out) == float(getattr(np, name)(s)), name
    assert int(jnp.argmax(s)) == 0 and float(jnp.var(s)) == 0.0
    assert jnp.cumsum(s).shape == (1,) and jnp.sort(s, axis=None).tolist() == [2.5]
    assert float(lax.reduce_sum(s, ())) == 2.5
    assert jnp.sum(3).dtype == jnp.int32 and bool(jnp.any(True))
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.sum(s, axis=0)


# ---------------------------------------------------------------- statistics
def test_bincount_histogram_digitize():
    # clipping of negatives and dropping of values >= length as in JAX
    assert jnp.bincount(np.array([0, 1, 1, 3, -1, 5]), length=4).tolist() == [2, 2, 0, 1]
    x = rng.randint(0, 7, size=20)
    assert np.array_equal(np.asarray(jnp.bincount(x)), np.bincount(x))
    w = randn(20)
    close(jnp.bincount(x, weights=w, minlength=10), np.bincount(x, weights=w, minlength=10))
    a = randn(50)
    for bins in (3, 7):
        h, e = jnp.histogram(a, bins=bins)
        nh, ne = np.histogram(a, bins=bins)
        close(e, ne), close(h, nh)
    edges = np.array([-2., -0.5, 0., 1., 3.], np.float32)
    close(jnp.histogram(a, bins=edges, density=True)[0], np.histogram(a, bins=edges, density=True)[0])
    close(jnp.histogram(a, bins=4, range=(-1, 1), weights=np.abs(a))[0],
          np.histogram(a, bins=4, range=(-1, 1), weights=np.abs(a))[0])
    close(jnp.histogram(np.array([2., 2., 2.], np.float32), bins=2)[1], [1.5, 2., 2.5])
    v = np.array([0.2, 6.4, 3.0, 1.6, 10.0], np.float32)
    for b in (np.array([0., 1., 2.5, 4., 10.], np.float32), np.array([10., 4., 2.5, 1., 0.], np.float32)):
        for right in (False, True):
            assert np.array_equal(np.asarray(jnp.digitize(v, b, right=right)), np.digitize(v, b, right=right))


def test_cov_corrcoef():
    m = randn(3, 6)
    fw, aw = rng.randint(1, 4, 6), rng.rand(6).astype(np.float32)
    close(jnp.cov(m), np.cov(m))
    close(jnp.cov(m, fweights=fw, aweights=aw), np.cov(m, fweights=fw, aweights=aw))
    close(jnp.cov(m.T, rowvar=False, bias=True), np.cov(m.T, rowvar=False, bias=True))
    close(jnp.cov(m[0], m[1], ddof=0), np.cov(m[0], m[1], ddof=0))
    close(jnp.cov(m[0]), np.cov(m[0]))
    close(jnp.corrcoef(m), np.corrcoef(m))
    close(jnp.corrcoef(m[0], m[2]), np.corrcoef(m[0], m[2]))


def test_out_argument_is_rejected():
    for fn in (jnp.sum, jnp.mean, jnp.argmax, jnp.cumsum, jnp.all, jnp.nanmax, jnp.median):
        with pytest.raises(NotImplementedError, match="The 'out' argument to jnp.* is not supported"):
            fn(np.ones(3, np.float32), out=np.zeros(()))


def test_lax_reduce_bitwise_monoids():
    x = np.array([[1, 2, 4], [3, 5, 6]], np.int32)
    assert lax.reduce(x, 0, lax.bitwise_or, (1,)).tolist() == [7, 7]
    assert lax.reduce(x, -1, lax.bitwise_and, (0,)).tolist() == [1, 0, 4]
    assert lax.reduce(x, 0, lax.bitwise_xor, (1,)).tolist() == [7, 0]
    assert lax.reduce(x > 2, True, lax.bitwise_and, (1,)).tolist() == [False, True]
    assert lax.reduce(x, 10, lax.add, (1,)).tolist() == [17, 24]
    with pytest.raises(NotImplementedError):
        lax.reduce(x, 0, lambda a, b: a - b, (1,))


def test_long_float_sums_stay_accurate():
    # a running float32 sum stops at 2**24 + 1 == 2**24; long sums go through blocks
    assert float(jnp.sum(jnp.ones(2 ** 25))) == 2.0 ** 25
    assert abs(float(jnp.sum(jnp.full((10 ** 6,), 0.1))) - 1e5) < 0.5
    assert abs(float(jnp.mean(jnp.full((3, 200_000), 0.1), axis=1)[1]) - 0.1) < 1e-6
