"""jaxweb.scipy.stats against scipy.stats: every distribution's functions over
points inside and outside the support, with loc/scale broadcasting, plus gradients
of log densities, jit and vmap."""
import numpy as np
import pytest
import scipy.stats as ss

import jaxweb
import jaxweb.numpy as jnp
import jaxweb.scipy.stats as jst
from rule_checker import check_grads, check_vmap

pytestmark = pytest.mark.on_every_device

X = np.array([-3.0, -0.5, 0.0, 0.2, 0.7, 1.0, 2.5, 9.0], np.float32)
Q = np.array([0.0, 0.01, 0.3, 0.5, 0.9, 1.0], np.float32)
LOC = np.array([[0.0], [0.5]], np.float32)
SCALE = np.float32(1.5)

#: (distribution, functions, shape arguments, x values, rtol, atol)
CONTINUOUS = [
    ("norm", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (), X, 2e-5, 1e-6),
    ("uniform", ["logpdf", "pdf", "cdf"], (), X, 1e-6, 0),
    ("expon", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (), X, 2e-5, 1e-6),
    ("laplace", ["logpdf", "pdf", "cdf"], (), X, 2e-6, 1e-7),
    ("logistic", ["logpdf", "pdf", "cdf", "sf"], (), X, 2e-6, 1e-7),
    ("cauchy", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (), X, 2e-6, 1e-7),
    ("t", ["logpdf", "pdf"], (np.float32(3.5),), X, 2e-5, 1e-6),
    ("gamma", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (np.float32(2.5),), X, 5e-5, 1e-6),
    ("chi2", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (np.float32(3.0),), X, 5e-5, 1e-6),
    ("beta", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (np.float32(2.0), np.float32(3.5)),
     np.array([-0.5, 0.0, 0.1, 0.6, 1.2, 1.8, 3.0], np.float32), 5e-5, 1e-6),
]
QUANTILES = [("norm", ["ppf", "isf"], ()), ("uniform", ["ppf"], ()), ("expon", ["ppf"], ()),
             ("logistic", ["ppf", "isf"], ()), ("cauchy", ["ppf", "isf"], ())]


def _close(got, want, rtol, atol):
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dist,fns,shapes,x,rtol,atol", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous(dist, fns, shapes, x, rtol, atol):
    mod, ref = getattr(jst, dist), getattr(ss, dist)
    with np.errstate(all="ignore"):
        for fn in fns:
            got = getattr(mod, fn)(x, *shapes, LOC, SCALE)
            assert got.shape == (2, x.size) and got.dtype == jnp.float32, fn
            want = getattr(ref, fn)(x.astype(float), *shapes, loc=LOC.astype(float), scale=float(SCALE))
            _close(got, want, rtol, atol)
        # default loc and scale, a 0-d input
        got = getattr(mod, fns[0])(np.float32(0.7), *shapes)
        assert got.shape == ()
        _close(got, getattr(ref, fns[0])(0.7, *shapes), rtol, atol)


@pytest.mark.parametrize("dist,fns,shapes", QUANTILES, ids=[c[0] for c in QUANTILES])
def test_quantiles(dist, fns, shapes):
    mod, ref = getattr(jst, dist), getattr(ss, dist)
    for fn in fns:
        got = getattr(mod, fn)(Q, *shapes, 0.5, 2.0)
        want = getattr(ref, fn)(Q.astype(float), *shapes, loc=0.5, scale=2.0)
        finite = np.isfinite(want)
        _close(np.asarray(got)[finite], want[finite], 2e-5, 2e-6)
    assert np.isnan(np.asarray(jst.norm.ppf(jnp.asarray([-0.1, 1.1])))).all()
    assert np.asarray(jst.uniform.ppf(jnp.asarray([-0.1, 0.3, 2.0]))).tolist()[1] == pytest.approx(0.3)


def test_discrete():
    k = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 4.0, 7.0, 20.0], np.float32)
    with np.errstate(all="ignore"):
        _close(jst.poisson.logpmf(k, 3.5), ss.poisson.logpmf(k, 3.5), 2e-5, 1e-6)
        _close(jst.poisson.pmf(k, 3.5, 1.0), ss.poisson.pmf(k, 3.5, loc=1.0), 2e-5, 1e-7)
        _close(jst.poisson.cdf(k, 3.5), ss.poisson.cdf(k, 3.5), 5e-5, 1e-6)
        ki = k[k != 3.5]  # JAX's binom does not check that k is an integer (scipy: -inf)
        _close(jst.binom.logpmf(ki, 10.0, 0.3), ss.binom.logpmf(ki, 10, 0.3), 5e-5, 1e-5)
        _close(jst.binom.pmf(ki, 10.0, 0.3, 1.0), ss.binom.pmf(ki, 10, 0.3, loc=1), 5e-5, 1e-7)
        assert np.isfinite(np.asarray(jst.binom.logpmf(3.5, 10.0, 0.3)))
        _close(jst.geom.logpmf(ki, 0.25), ss.geom.logpmf(ki, 0.25), 2e-6, 1e-6)  # no integer check either
        _close(jst.geom.pmf(ki, 0.25, -1.0), ss.geom.pmf(ki, 0.25, loc=-1), 2e-6, 1e-7)
        kb = np.array([-1.0, 0.0, 0.5, 1.0, 2.0], np.float32)
        kbi = kb[kb != 0.5]  # (k = 0.5 interpolates in JAX, as in binom)
        _close(jst.bernoulli.logpmf(kbi, 0.3), ss.bernoulli.logpmf(kbi, 0.3), 2e-6, 1e-7)
        _close(jst.bernoulli.pmf(kbi, 0.3), ss.bernoulli.pmf(kbi, 0.3), 2e-6, 1e-7)
        _close(jst.bernoulli.cdf(kb, 0.3), ss.bernoulli.cdf(kb, 0.3), 2e-6, 1e-7)
        _close(jst.bernoulli.ppf(Q[1:], 0.3), ss.bernoulli.ppf(Q[1:], 0.3), 0, 0)  # q = 0: JAX 0, scipy -1
        assert float(jst.bernoulli.ppf(0.0, 0.3)) == 0.0
    mu = np.array([0.0, 0.5, 4.0, 30.0, 300.0], np.float32)
    _close(jst.poisson.entropy(mu), ss.poisson.entropy(mu.astype(float)), 1e-4, 1e-6)


def test_multivariate_normal_and_dirichlet():
    r = np.random.RandomState(0)
    m = r.standard_normal((4, 3)).astype(np.float32)
    cov = (m.T @ m + np.eye(3)).astype(np.float32)
    mean = np.array([0.5, -1.0, 0.0], np.float32)
    x = r.standard_normal((5, 3)).astype(np.float32)
    _close(jst.multivariate_normal.logpdf(x, mean, cov), ss.multivariate_normal.logpdf(x, mean, cov), 1e-5, 1e-5)
    _close(jst.multivariate_normal.pdf(x[0], mean, cov), ss.multivariate_normal.pdf(x[0], mean, cov), 1e-5, 0)
    _close(jst.multivariate_normal.logpdf(x, mean, 2.0), ss.multivariate_normal.logpdf(x, mean, 2.0 * np.eye(3)),
           1e-5, 1e-5)
    _close(jst.multivariate_normal.logpdf(np.float32(0.3), 0.0, 2.0), ss.norm.logpdf(0.3, 0, np.sqrt(2)), 1e-6, 0)
    with pytest.raises(ValueError, match="incompatible shapes"):
        jst.multivariate_normal.logpdf(x, mean, np.eye(2, dtype=np.float32))
    check_grads(lambda a, c: jst.multivariate_normal.logpdf(a, mean, c), (x[:2], cov), order=1)
    alpha = np.array([1.5, 2.0, 3.0], np.float32)
    pts = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], np.float32).T
    p64 = pts.astype(float) / pts.astype(float).sum(0)
    _close(jst.dirichlet.logpdf(pts, alpha), ss.dirichlet.logpdf(p64, alpha), 1e-5, 1e-6)
    _close(jst.dirichlet.pdf(pts[:2], alpha), ss.dirichlet.pdf(p64, alpha), 1e-5, 1e-6)
    assert np.isneginf(np.asarray(jst.dirichlet.logpdf(np.array([0.5, 0.6, 0.1], np.float32), alpha)))
    with pytest.raises(ValueError, match="`alpha` must be one-dimensional"):
        jst.dirichlet.logpdf(pts, alpha[None])


def test_grads_jit_vmap():
    x = np.array([0.3, 1.2, 2.5], np.float32)
    check_grads(lambda v, l, s: jst.norm.logpdf(v, l, s), (x, np.float32(0.2), np.float32(1.3)), order=2)
    check_grads(lambda v, s: jst.t.logpdf(v, 4.0, 0.1, s), (x, np.float32(1.3)), order=1)
    check_grads(lambda v, a: jst.gamma.logpdf(v, a), (x, np.float32(2.2)), order=1)
    check_grads(lambda v: jst.beta.logpdf(v / 3, 2.0, 3.0), (x,), order=1)
    check_grads(lambda v: jst.norm.logcdf(v), (x - 4,), order=1)
    f = jaxweb.jit(lambda v, l: jst.cauchy.logsf(v, l, 2.0))
    _close(f(x, np.float32(0.5)), ss.cauchy.logsf(x, 0.5, 2.0), 2e-6, 1e-7)
    check_vmap(lambda v, l: jst.laplace.cdf(v, l), (x, x[::-1]))
    check_vmap(lambda v: jst.chi2.cdf(v, 3.0), (x,))


def test_gaussian_kde_matches_jax():
    """gaussian_kde's density, log density, 1-D box mass and a 2-D Silverman estimate
    (values printed by JAX 0.10.2), its pytree round trip and resampling shape."""
    x = np.linspace(-3, 4, 9).astype(np.float32)
    k = jst.gaussian_kde(np.array([0.1, 0.5, 1.5, 2.0, -0.3], np.float32))
    np.testing.assert_allclose(k.evaluate(x), [7.105092e-05, 0.004562714, 0.06790119, 0.25985304, 0.32287753,
                                               0.26912126, 0.17744422, 0.038926095, 0.0020770901], rtol=2e-5)
    np.testing.assert_allclose(k.logpdf(x), [-9.552114, -5.3898377, -2.6897018, -1.3476392, -1.1304822,
                                             -1.3125932, -1.7290989, -3.2460904, -6.1767874], rtol=2e-5)
    np.testing.assert_allclose(k.integrate_box_1d(-1.0, 1.0), 0.5428816, rtol=2e-5)
    k2 = jst.gaussian_kde(np.array([[0.1, 0.5, 1.5, 2.0, -0.3], [1.0, 2.0, 0.0, 1.0, 3.0]], np.float32),
                          bw_method="silverman")
    np.testing.assert_allclose(k2(np.array([[0.0, 1.0], [1.0, 2.0]], np.float32)), [0.08219538, 0.08857308], rtol=2e-5)
    leaves, tree = jaxweb.tree_util.tree_flatten(k)
    np.testing.assert_allclose(jaxweb.tree_util.tree_unflatten(tree, leaves).pdf(x), k.pdf(x))
    assert k2.resample(jaxweb.random.key(0), (7,)).shape == (2, 7)
    with pytest.raises(NotImplementedError):
        k.set_bandwidth("scott")
