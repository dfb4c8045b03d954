"""select/piecewise, polynomials, interp/gradient/trapezoid/unwrap, histogram2d/dd and
packbits/unpackbits against numpy; gradients, jit and vmap where they apply."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from rule_checker import check_grads, check_vmap


@pytest.fixture(autouse=True)
def _reference_backend():
    """Semantic checks on the numpy reference backend: they keep the suite within the wasm
    runtime's instance budget (the kernels themselves are tested on every device)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield

X = np.array([3.0, -1.0, 2.0, 0.0, 5.0, -4.0], np.float32)
P = np.array([1.0, -3.0, 2.0], np.float32)
PI = np.array([3, 0, 1, 5], np.int32)


def close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got), want, **{"rtol": 1e-5, "atol": 1e-6, **kw})


# ---------------------------------------------------------------- select, piecewise
def test_select_first_true_wins_and_dtypes():
    got = jnp.select([X > 0, X < 0], [X, -X * 2], 7)
    np.testing.assert_array_equal(got, np.select([X > 0, X < 0], [X, -X * 2], 7))
    assert got.dtype == jnp.float32 and not got.weak_type
    assert jnp.select([X > 0, X < 0], [1, 2]).dtype == jnp.int32
    np.testing.assert_array_equal(jnp.select([X > 1, X > 0], [1, 2], -1), np.select([X > 1, X > 0], [1, 2], -1))
    with pytest.raises(ValueError, match="condlist must be non-empty"):
        jnp.select([], [])
    with pytest.raises(ValueError, match="condlist must have length equal to choicelist"):
        jnp.select([X > 0], [X, X])
    g = jax.grad(lambda v: jnp.select([v > 0, v < -2], [v ** 2, v], 3.0).sum())(X)
    np.testing.assert_array_equal(g, np.where(X > 0, 2 * X, np.where(X < -2, 1.0, 0.0)))
    check_vmap(lambda v: jnp.select([v > 0], [v], -1.0), (X.reshape(2, 3),))


def test_piecewise_last_true_wins_and_default():
    xs = np.arange(-4, 5)
    cases = [([xs < 0, xs > 0], [0, lambda v: v]),
             ([xs < 0, xs > 0], [lambda v: v, lambda v: v * 2, 7]),
             ([xs < 3, xs > -3], [1, 2])]
    for conds, funcs in cases:
        np.testing.assert_array_equal(jnp.piecewise(xs, conds, funcs), np.piecewise(xs, conds, funcs))
    np.testing.assert_array_equal(jnp.piecewise(xs, [True, False], [lambda v: v * 10, 1]), xs * 10)
    got = jnp.piecewise(X, [X < 0], [lambda u: -u ** 3, lambda u: u * 2])
    assert got.dtype == jnp.float32
    close(jax.jit(lambda v: jnp.piecewise(v, [v < 0], [lambda u: -u, lambda u: u * 2]))(X),
          np.where(X < 0, -X, 2 * X))
    close(jax.grad(lambda v: jnp.piecewise(v, [v < 0], [lambda u: -u ** 3, lambda u: u * 2]).sum())(X),
          np.where(X < 0, -3 * X ** 2, 2.0))
    with pytest.raises(ValueError, match="either 1 or 2 functions are expected; got 3"):
        jnp.piecewise(X, [X < 0], [1, 2, 3])


# ---------------------------------------------------------------- polynomials
def test_vander_poly_polyval():
    np.testing.assert_array_equal(jnp.vander(X[:4]), np.vander(X[:4]))
    np.testing.assert_array_equal(jnp.vander(PI, 3, increasing=True), np.vander(PI, 3, increasing=True))
    assert jnp.vander(X[:3], 0).shape == (3, 0)
    close(jnp.poly(np.array([1.0, 2.0, -0.5])), np.poly([1.0, 2.0, -0.5]))
    assert jnp.poly(np.array([1, 2])).dtype == jnp.float32 and jnp.poly(np.array([])).shape == ()
    x = np.linspace(-2, 3, 7).astype(np.float32)
    close(jnp.polyval(P, x), np.polyval(P, x))
    assert int(jnp.polyval(PI, 2)) == int(np.polyval(PI, 2)) and jnp.polyval(PI, 2).dtype == jnp.int32
    v = jnp.polyval(PI, 2.5)
    assert v.dtype == jnp.float32 and not v.weak_type and float(v) == np.polyval(PI, 2.5)
    close(jnp.polyval(np.array([[1.0, 2.0], [3.0, 4.0]]), x[:2]), [1 * x[0] + 3, 2 * x[1] + 4])
    close(jax.grad(lambda a: jnp.polyval(a, x).sum())(P), [np.sum(x ** 2), np.sum(x), 7])


def test_polynomial_arithmetic():
    np.testing.assert_array_equal(jnp.polyadd(P, PI), np.polyadd(P, PI))
    np.testing.assert_array_equal(jnp.polyadd(PI, P[:1]), np.polyadd(PI, P[:1]))
    np.testing.assert_array_equal(jnp.polysub(PI, PI[:2]), np.polysub(PI, PI[:2]))
    close(jnp.polymul(P, PI), np.polymul(P, PI))
    close(jnp.polymul(np.array([0.0, 0.0, 1.0, 2.0]), P, trim_leading_zeros=True), np.polymul([1.0, 2.0], P))
    q, r = jnp.polydiv(np.array([1.0, -3.0, 2.0, 5.0]), np.array([1.0, 1.0]))
    nq, nr = np.polydiv([1.0, -3.0, 2.0, 5.0], [1.0, 1.0])
    close(q, nq)
    close(r[-1:], nr)
    close(jnp.polyder(PI, 2), np.polyder(PI, 2))
    assert jnp.polyder(P, 5).shape == (0,)
    close(jnp.polyint(P, 2, k=np.array([1.0, 2.0])), np.polyint(P, 2, k=[1.0, 2.0]))
    close(jnp.polyint(PI), np.polyint(PI))
    with pytest.raises(ValueError, match="Order of integral must be positive"):
        jnp.polyint(P, -1)


def test_polyfit_against_numpy():
    x = np.linspace(-2, 3, 9).astype(np.float32)
    y = (2 * x ** 2 - x + 0.5 + 0.1 * np.sin(7 * x)).astype(np.float32)
    for deg in (0, 1, 2, 3):
        close(jnp.polyfit(x, y, deg), np.polyfit(x, y, deg), rtol=2e-4, atol=2e-4)
    w = np.linspace(1, 2, 9)
    close(jnp.polyfit(x, y, 2, w=w), np.polyfit(x, y, 2, w=w), rtol=2e-4, atol=2e-4)
    y2 = np.stack([y, 3 * y], 1)
    close(jnp.polyfit(x, y2, 2), np.polyfit(x, y2, 2), rtol=2e-4, atol=2e-4)
    c, cov = jnp.polyfit(x, y, 2, cov=True)
    nc, ncov = np.polyfit(x.astype(np.float64), y.astype(np.float64), 2, cov=True)
    close(cov, ncov, rtol=2e-2, atol=1e-6)
    close(jax.jit(lambda a, b: jnp.polyfit(a, b, 2))(x, y), np.polyfit(x, y, 2), rtol=2e-4, atol=2e-4)
    # the fit is linear in y: its gradient is the pseudo-inverse row of the leading term
    g = jax.grad(lambda b: jnp.polyfit(x, b, 2)[0])(y)
    close(g, np.linalg.pinv(np.vander(x.astype(np.float64), 3))[0], rtol=1e-3, atol=1e-4)


# ---------------------------------------------------------------- sampled functions
def test_interp_against_numpy():
    xp = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
    fp = np.array([1.0, 3.0, -2.0, 0.0], np.float32)
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.9, 4.0, 5.0, np.nan], np.float32)
    close(jnp.interp(x, xp, fp), np.interp(x, xp, fp))
    close(jnp.interp(x, xp, fp, left=-9, right=9.0), np.interp(x, xp, fp, left=-9, right=9.0))
    close(jnp.interp(x[:8], xp, fp, period=3), np.interp(x[:8], xp, fp, period=3))
    ext = jnp.interp(np.array([-1.0, 5.0]), xp, fp, left="extrapolate", right="extrapolate")
    close(ext, [1 - 2.0, 0 + (5 - 4) * (2 / 1.5)])
    rep = np.array([0.0, 1.0, 1.0, 2.0])  # a zero-width interval: finite gradients
    g = jax.grad(lambda v: jnp.interp(v, rep, np.array([0.0, 1.0, 5.0, 6.0])).sum())(np.array([1.0, 1.5]))
    assert np.all(np.isfinite(np.asarray(g)))
    close(jax.grad(lambda f: jnp.interp(np.float32(0.5), xp, f))(fp), [0.5, 0.5, 0, 0])
    with pytest.raises(ValueError, match="one-dimensional arrays of equal size"):
        jnp.interp(x, xp[:3], fp)


def test_gradient_trapezoid_unwrap():
    m = (np.arange(12, dtype=np.float32).reshape(3, 4) ** 2)
    for ours, theirs in zip(jnp.gradient(m), np.gradient(m)):
        close(ours, theirs)
    close(jnp.gradient(m, axis=1), np.gradient(m, axis=1))
    close(jnp.gradient(m, 2.0, 0.5)[1], np.gradient(m, 2.0, 0.5)[1])
    cx, cy = np.array([0.0, 1.0, 3.0]), np.array([0.0, 1.0, 1.5, 4.0])
    for ours, theirs in zip(jnp.gradient(m, cx, cy), np.gradient(m, cx, cy)):
        close(ours, theirs)
    assert jnp.gradient(m, axis=()) == []
    with pytest.raises(ValueError, match="at least 2 elements"):
        jnp.gradient(np.array([1.0]))
    close(jnp.trapezoid(m), np.trapezoid(m))
    close(jnp.trapezoid(m, dx=0.5, axis=0), np.trapezoid(m, dx=0.5, axis=0))
    close(jnp.trapezoid(m, x=np.array([0.0, 1.0, 3.0, 7.0])), np.trapezoid(m, x=[0.0, 1.0, 3.0, 7.0]))
    close(jnp.trapezoid(m, x=m, axis=0), np.trapezoid(m, x=m, axis=0))
    assert jnp.trapezoid(np.array([1, 2, 3])).dtype == jnp.float32
    ph = np.array([0.0, 3.0, 6.5, -6.0, 1.0, 8.0, 100.0], np.float32)
    close(jnp.unwrap(ph), np.unwrap(ph), rtol=1e-5, atol=1e-4)
    close(jnp.unwrap(ph, discont=4), np.unwrap(ph, discont=4), rtol=1e-5, atol=1e-4)
    close(jnp.unwrap(ph, period=5), np.unwrap(ph, period=5), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(jnp.unwrap(np.array([0, 7, 15, 1]), period=8),
                                  np.unwrap(np.array([0, 7, 15, 1]), period=8))
    assert jnp.unwrap(np.zeros((0,))).shape == (0,)
    check_grads(lambda v: jnp.trapezoid(jnp.sin(v), x=v), (np.linspace(0, 2, 6).astype(np.float32),), order=1)


def test_histograms_dd_2d_and_bits():
    x = np.array([0.1, 0.5, 0.9, 0.3, 0.7, 1.0, -0.2], np.float32)
    y = np.array([1.0, 2.0, 2.5, 3.0, 1.5, 2.0, 4.0], np.float32)
    for kw in ({}, {"bins": 3}, {"bins": [2, 3], "range": [(0, 1), (1, 3)]},
               {"bins": np.array([0.0, 0.5, 1.0, 2.0, 3.0])}, {"bins": 2, "weights": y, "density": True}):
        ours, theirs = jnp.histogram2d(x, y, **kw), np.histogram2d(x, y, **kw)
        for a, b in zip(ours, theirs):
            close(a, b, rtol=1e-5, atol=1e-6)
    s = np.stack([x, y, x * y], 1)
    h, e = jnp.histogramdd(s, bins=[2, 3, 2], range=[None, (0, 5), None])
    nh, ne = np.histogramdd(s, bins=[2, 3, 2], range=[None, (0, 5), None])
    close(h, nh)
    for a, b in zip(e, ne):
        close(a, b)
    with pytest.raises(ValueError, match="one weight for each sample"):
        jnp.histogramdd(s, weights=y[:3])
    bits = np.array([[1, 0, 1], [0, 0, 1]], np.uint8)
    for kw in ({}, {"axis": 1}, {"axis": 0, "bitorder": "little"}):
        np.testing.assert_array_equal(jnp.packbits(bits, **kw), np.packbits(bits, **kw))
    b9 = np.array([True, False, True, True, False, False, False, False, True])
    np.testing.assert_array_equal(jnp.packbits(b9), np.packbits(b9))
    by = np.array([[5, 255], [128, 1]], np.uint8)
    for kw in ({}, {"axis": 1, "count": 12}, {"count": 3, "bitorder": "little"}, {"count": 20}):
        np.testing.assert_array_equal(jnp.unpackbits(by, **kw), np.unpackbits(by, **kw))
    with pytest.raises(TypeError, match="unsigned byte"):
        jnp.unpackbits(np.array([5], np.int32))
