"""jaxweb.random's API beyond the recorded values: typed key arrays (dtype, indexing,
pytrees, errors), raw-key configuration flags, jit and vmap giving eager's values,
gradients (expected values from JAX 0.10, noted once), and the samplers' statistics:
moments and Kolmogorov-Smirnov distances at fixed keys against scipy's distributions.

All on the reference `cpu` device: none of this depends on the device (the values
are checked on every device in test_random.py), and the sample sizes here would
otherwise compile thousands of one-off Wasm kernels."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats as st

import jaxweb
import jaxweb.numpy as jnp
import jaxweb.random as R
from jaxweb import lax
from jaxweb._src import config as _config


@pytest.fixture(autouse=True)
def _on_cpu():
    with jaxweb.default_device(jaxweb.devices("cpu")[0]):
        yield


# ---------------------------------------------------------------- typed keys
def test_typed_key_array_basics():
    k = R.key(0)
    assert str(k.dtype) == "key<fry>" and repr(k.dtype) == "key<fry>" and k.dtype.itemsize == 8
    assert k.shape == () and k.ndim == 0 and k.size == 1
    assert jnp.issubdtype(k.dtype, jaxweb._src.dtypes.prng_key)
    assert not jnp.issubdtype(k.dtype, jnp.integer)
    assert R.key_dtype() == k.dtype and R.key_impl(k) == "threefry2x32" and R.key_impl(R.PRNGKey(0)) == "threefry2x32"
    assert repr(k) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    data = R.key_data(k)
    assert data.dtype == jnp.uint32 and data.shape == (2,) and data.tolist() == [0, 0]
    assert bool(R.wrap_key_data(data) == k)
    assert bool(R.wrap_key_data(data, dtype=k.dtype) == k) and bool(R.wrap_key_data(data, impl="threefry2x32") == k)
    assert R.clone(k) is k


def test_key_arrays_index_reshape_iterate():
    ks = R.split(R.key(3), 4)
    assert ks.shape == (4,) and ks.dtype == R.key_dtype()
    data = np.asarray(R.key_data(ks))
    assert np.array_equal(np.asarray(R.key_data(ks[1:3])), data[1:3])
    assert np.array_equal(np.asarray(R.key_data(ks[-1])), data[3])
    grid = ks.reshape(2, 2)
    assert grid.shape == (2, 2) and bool(grid[1, 0] == ks[2]) and grid.T.shape == (2, 2)
    assert bool(grid.T[0, 1] == ks[2]) and grid.ravel().shape == (4,) and ks.reshape(-1, 1).shape == (4, 1)
    assert len(ks) == 4 and [bool(a == b) for a, b in zip(ks, ks)] == [True] * 4
    a, b = R.split(R.key(3))
    assert a.shape == () and b.shape == ()
    assert (ks == ks).tolist() == [True] * 4 and (ks != ks[::-1]).tolist() == [True] * 4


def test_key_arrays_refuse_what_jax_refuses():
    k, ks = R.key(0), R.split(R.key(0))
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(k)
    with pytest.raises(TypeError, match="iteration over a 0-d key array"):
        iter(k)
    with pytest.raises(TypeError, match="key array cannot be converted to boolean"):
        bool(k)
    with pytest.raises(TypeError, match="add does not accept dtypes key<fry>"):
        k + 1
    with pytest.raises(TypeError, match="does not accept dtypes key<fry>"):
        ks < ks
    with pytest.raises(TypeError, match="cannot be converted to a NumPy array"):
        np.asarray(k)
    with pytest.raises(TypeError, match="expected key_data.ndim >= 1"):
        R.wrap_key_data(jnp.uint32(1))


def test_raw_keys_stay_raw_and_typed_keys_stay_typed():
    raw = R.PRNGKey(0)
    assert raw.dtype == jnp.uint32 and raw.shape == (2,)
    assert R.split(raw).dtype == jnp.uint32 and R.split(raw).shape == (2, 2)
    assert R.fold_in(raw, 1).dtype == jnp.uint32
    assert R.split(R.key(0)).dtype == R.key_dtype()
    assert np.array_equal(np.asarray(R.split(raw)), np.asarray(R.key_data(R.split(R.key(0)))))
    assert R.uniform(raw).tolist() == R.uniform(R.key(0)).tolist()
    with _config.override("jax_enable_custom_prng", True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert R.split(raw).dtype == R.key_dtype()
    with _config.override("jax_legacy_prng_key", "error"):
        with pytest.raises(ValueError, match="Legacy uint32 key array passed"):
            R.split(raw)
    with _config.override("jax_legacy_prng_key", "warn"):
        with pytest.warns(UserWarning, match="Legacy uint32 key array passed"):
            R.split(raw)
    assert R.PRNGKey(np.int64(2 ** 40 + 7)).tolist() == [0, 7]  # wraps to int32 without x64, as JAX


def test_keys_are_pytrees_through_jit_vmap_and_loops():
    k = R.key(5)
    leaves, tree = jaxweb.tree_util.tree_flatten(k)
    assert len(leaves) == 1 and leaves[0].dtype == jnp.uint32  # (JAX: the key itself is the leaf)
    assert bool(jaxweb.tree_util.tree_unflatten(tree, leaves) == k)
    out = jaxweb.jit(lambda k: R.split(k, 3))(k)
    assert out.dtype == R.key_dtype() and bool(jnp.all(out == R.split(k, 3)))
    ks = R.split(k, 3)
    folded = jaxweb.vmap(R.fold_in)(ks, jnp.arange(3))
    eager = np.stack([np.asarray(R.key_data(R.fold_in(ks[i], i))) for i in range(3)])
    assert folded.dtype == R.key_dtype() and np.array_equal(np.asarray(R.key_data(folded)), eager)

    def body(carry):
        i, key, total = carry
        key, sub = R.split(key)
        return i + 1, key, total + R.uniform(sub)

    _, k_end, total = lax.while_loop(lambda c: c[0] < 3, body, (0, k, 0.0))
    expect, kk = 0.0, k
    for _ in range(3):
        kk, sub = R.split(kk)
        expect += float(R.uniform(sub))
    assert bool(k_end == kk) and math.isclose(float(total), expect, rel_tol=1e-6)


# ---------------------------------------------------------------- jit / vmap equal eager
SAMPLERS = {
    "uniform": lambda k: R.uniform(k, (5,), minval=-1.0, maxval=2.0),
    "normal": lambda k: R.normal(k, (5,)),
    "randint": lambda k: R.randint(k, (5,), 0, 100),
    "bits": lambda k: R.bits(k, (5,)),
    "permutation": lambda k: R.permutation(k, 6),
    "choice_p": lambda k: R.choice(k, 4, (5,), p=jnp.array([0.1, 0.2, 0.3, 0.4])),
    "categorical": lambda k: R.categorical(k, jnp.array([0.0, 1.0, 2.0]), shape=(5,)),
    "gumbel": lambda k: R.gumbel(k, (5,)),
    "gamma": lambda k: R.gamma(k, jnp.array([0.5, 2.0, 9.0])),
    "poisson": lambda k: R.poisson(k, jnp.array([2.0, 30.0])),
    "binomial": lambda k: R.binomial(k, 8.0, 0.7),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_and_vmap_match_eager(name):
    f = SAMPLERS[name]
    keys = R.split(R.key(21), 3)
    eager = [np.asarray(f(k)) for k in keys]
    np.testing.assert_array_equal(np.asarray(jaxweb.jit(f)(keys[0])), eager[0])
    np.testing.assert_array_equal(np.asarray(jaxweb.vmap(f)(keys)), np.stack(eager))


# ---------------------------------------------------------------- gradients (values from JAX)
GRADS = [  # f(key, x), x, JAX's df/dx
    (lambda k, m: R.uniform(k, (3,), minval=0.0, maxval=m).sum(), 2.0, 2.2585382),
    (lambda k, lo: R.uniform(k, (3,), minval=lo, maxval=2.0).sum(), 0.5, 0.74146175),
    (lambda k, a: R.truncated_normal(k, a, 2.0, (3,)).sum(), -1.0, 0.5701862),
    (lambda k, s: R.lognormal(k, s, (3,)).sum(), 0.5, 8.878513),
    (lambda k, a: R.beta(k, a, 2.0, (3,)).sum(), 1.5, 0.58698344),
    (lambda k, a: R.t(k, a, (3,)).sum(), 3.0, 1.4491954),
    (lambda k, a: R.chisquare(k, a, (3,)).sum(), 3.0, 2.7219126),
    (lambda k, a: R.pareto(k, a, (3,)).sum(), 3.0, -2.4653761),
]


@pytest.mark.parametrize("i", range(len(GRADS)))
def test_gradients_match_jax(i):
    f, x, want = GRADS[i]
    key = R.key(0)
    assert math.isclose(float(jaxweb.grad(lambda v: f(key, v))(x)), want, rel_tol=2e-5)


def test_gradients_of_vector_parameters():
    key = R.key(0)
    g = jaxweb.grad(lambda m: R.multivariate_normal(key, m, jnp.eye(2), (3,)).sum())(jnp.zeros(2))
    assert g.tolist() == [3.0, 3.0]
    g = jaxweb.grad(lambda a: R.dirichlet(key, a)[0])(jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(np.asarray(g), [0.17946114, -0.03331973, -0.02779958], rtol=2e-5)


# ---------------------------------------------------------------- statistics
N = 2000
KS_MAX = 1.95 / math.sqrt(N)  # the KS distance's 0.1% critical value: a fixed key passes or fails for good
CONTINUOUS = [
    ("uniform", lambda k: R.uniform(k, (N,), minval=-1.0, maxval=3.0), st.uniform(-1, 4)),
    ("normal", lambda k: R.normal(k, (N,)), st.norm()),
    ("truncated_normal", lambda k: R.truncated_normal(k, -0.5, 1.5, (N,)), st.truncnorm(-0.5, 1.5)),
    ("exponential", lambda k: R.exponential(k, (N,)), st.expon()),
    ("laplace", lambda k: R.laplace(k, (N,)), st.laplace()),
    ("logistic", lambda k: R.logistic(k, (N,)), st.logistic()),
    ("gumbel", lambda k: R.gumbel(k, (N,)), st.gumbel_r()),
    ("gumbel_high", lambda k: R.gumbel(k, (N,), mode="high"), st.gumbel_r()),
    ("cauchy", lambda k: R.cauchy(k, (N,)), st.cauchy()),
    ("pareto", lambda k: R.pareto(k, 3.0, (N,)), st.pareto(3.0)),
    ("rayleigh", lambda k: R.rayleigh(k, 2.0, (N,)), st.rayleigh(scale=2.0)),
    ("wald", lambda k: R.wald(k, 1.5, (N,)), st.invgauss(1.5)),
    ("lognormal", lambda k: R.lognormal(k, 0.5, (N,)), st.lognorm(0.5)),
    ("triangular", lambda k: R.triangular(k, -1.0, 0.5, 2.0, (N,)), st.triang(0.5, loc=-1, scale=3)),
    ("maxwell", lambda k: R.maxwell(k, (N,)), st.maxwell()),
    ("double_sided_maxwell_abs", lambda k: jnp.abs(R.double_sided_maxwell(k, 0.0, 1.0, (N,))), st.maxwell()),
    ("weibull_min", lambda k: R.weibull_min(k, 2.0, 1.5, (N,)), st.weibull_min(1.5, scale=2.0)),
    ("gamma", lambda k: R.gamma(k, 2.5, (N,)), st.gamma(2.5)),
    ("gamma_small", lambda k: R.gamma(k, 0.3, (N,)), st.gamma(0.3)),
    ("beta", lambda k: R.beta(k, 2.0, 0.5, (N,)), st.beta(2.0, 0.5)),
    ("t", lambda k: R.t(k, 4.0, (N,)), st.t(4.0)),
    ("chisquare", lambda k: R.chisquare(k, 3.0, (N,)), st.chi2(3.0)),
    ("f", lambda k: R.f(k, 5.0, 8.0, (N,)), st.f(5.0, 8.0)),
    ("generalized_normal", lambda k: R.generalized_normal(k, 1.5, (N,)), st.gennorm(1.5)),
    ("loggamma_exp", lambda k: jnp.exp(R.loggamma(k, 0.7, (N,))), st.gamma(0.7)),
]


@pytest.mark.parametrize("name", [c[0] for c in CONTINUOUS])
def test_continuous_distributions(name):
    _, sample, dist = next(c for c in CONTINUOUS if c[0] == name)
    x = np.asarray(sample(R.key(1234)), np.float64)
    assert x.shape == (N,) and np.isfinite(x).all()
    d = st.kstest(x, dist.cdf).statistic
    assert d < KS_MAX, f"{name}: KS distance {d:.4f} >= {KS_MAX:.4f}"
    if np.isfinite(dist.var()):  # moments (not for Cauchy), within 5 standard errors
        assert abs(x.mean() - dist.mean()) < 5 * math.sqrt(dist.var() / N), (x.mean(), dist.mean())


DISCRETE = [
    ("poisson", lambda k: R.poisson(k, 4.0, (N,)), st.poisson(4.0)),
    ("poisson_large", lambda k: R.poisson(k, 60.0, (N,)), st.poisson(60.0)),
    ("binomial", lambda k: R.binomial(k, 12, 0.3, (N,)), st.binom(12, 0.3)),
    ("binomial_btrs", lambda k: R.binomial(k, 300, 0.6, (N,)), st.binom(300, 0.6)),
    ("geometric", lambda k: R.geometric(k, 0.25, (N,)), st.geom(0.25)),
    ("randint", lambda k: R.randint(k, (N,), -3, 7), st.randint(-3, 7)),
    ("bernoulli", lambda k: R.bernoulli(k, 0.3, (N,)).astype(jnp.int32), st.bernoulli(0.3)),
    ("rademacher", lambda k: (R.rademacher(k, (N,)) + 1) // 2, st.bernoulli(0.5)),
    ("categorical", lambda k: R.categorical(k, jnp.log(jnp.array([0.2, 0.5, 0.3])), shape=(N,)),
     st.rv_discrete(values=([0, 1, 2], [0.2, 0.5, 0.3]))),
    ("choice_p", lambda k: R.choice(k, 3, (N,), p=jnp.array([0.2, 0.5, 0.3])),
     st.rv_discrete(values=([0, 1, 2], [0.2, 0.5, 0.3]))),
]


@pytest.mark.parametrize("name", [c[0] for c in DISCRETE])
def test_discrete_distributions(name):
    _, sample, dist = next(c for c in DISCRETE if c[0] == name)
    x = np.asarray(sample(R.key(99))).astype(np.int64)
    lo, hi = int(dist.ppf(1e-4)), int(dist.ppf(1 - 1e-4))
    values = np.arange(lo, hi + 1)
    observed = np.array([(x == v).sum() for v in values])
    assert observed.sum() >= N - 5, "samples outside the support"
    expected = dist.pmf(values) * N
    keep = expected >= 5  # chi-square over well-populated cells
    chi2 = (((observed - expected) ** 2)[keep] / expected[keep]).sum()
    assert chi2 < st.chi2(keep.sum() - 1).ppf(0.999), f"{name}: chi2 {chi2:.1f}"
    assert abs(x.mean() - dist.mean()) < 5 * math.sqrt(dist.var() / N)


def test_vector_and_symmetric_samplers_statistics():
    n = 500
    cov = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    for method in ("cholesky", "eigh", "svd"):
        x = np.asarray(R.multivariate_normal(R.key(7), jnp.array([1.0, -1.0, 0.5]), jnp.asarray(cov, jnp.float32),
                                             (N,), method=method), np.float64)
        assert np.abs(x.mean(0) - [1.0, -1.0, 0.5]).max() < 0.15 and np.abs(np.cov(x.T) - cov).max() < 0.2, method
    q = np.asarray(R.orthogonal(R.key(7), 5, (4,)), np.float64)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(5), (4, 5, 5)), atol=2e-6)
    w = np.asarray(R.orthogonal(R.key(7), 3, m=6), np.float64)
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=2e-6)
    d = np.asarray(R.dirichlet(R.key(8), jnp.array([1.0, 2.0, 3.0]), (n,)), np.float64)
    np.testing.assert_allclose(d.sum(-1), 1.0, atol=1e-5)
    assert np.abs(d.mean(0) - [1 / 6, 2 / 6, 3 / 6]).max() < 0.03
    b = np.asarray(R.ball(R.key(9), 3, 2.0, (n,)), np.float64)
    r = np.linalg.norm(b, axis=-1)
    assert r.max() <= 1.0 and st.kstest(r, lambda v: np.clip(v, 0, 1) ** 3).statistic < 1.95 / math.sqrt(n)
    s = np.asarray(R.double_sided_maxwell(R.key(11), 0.0, 1.0, (N,)))
    assert abs((s > 0).mean() - 0.5) < 5 * 0.5 / math.sqrt(N)
    m = np.asarray(R.multinomial(R.key(10), 30.0, jnp.array([0.2, 0.3, 0.5]), shape=(200, 3)))
    assert (m.sum(-1) == 30).all() and np.abs(m.mean(0) - [6, 9, 15]).max() < 1.0
