"""jaxweb.nn, jaxweb.scipy.special and jaxweb.scipy.stats without numpy.

Marked `pyodide`: the harness runs this module inside Pyodide as well as here on
every device. Expected values come from Python's math module, by hand, or (marked)
from JAX 0.10.2.
"""
import math

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.nn as nn
import jaxweb.scipy.special as sp
from jaxweb.scipy.stats import gamma as gamma_dist, norm, poisson

pytestmark = [pytest.mark.pyodide, pytest.mark.on_every_device]


def close(got, want, tol=1e-5):
    got = got.tolist() if hasattr(got, "tolist") else got
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            close(g, w, tol)
        return
    if isinstance(want, float) and math.isnan(want):
        assert math.isnan(got), got
        return
    assert math.isclose(got, want, rel_tol=tol, abs_tol=tol), (got, want)


XS = [-2.0, -0.5, 0.0, 0.75, 3.0]


def test_activations():
    x = jnp.asarray(XS)
    close(nn.relu(x), [max(v, 0.0) for v in XS])
    close(nn.sigmoid(x), [1 / (1 + math.exp(-v)) for v in XS])
    close(nn.softplus(x), [math.log1p(math.exp(v)) for v in XS])
    close(nn.gelu(x, approximate=False), [v / 2 * (1 + math.erf(v / math.sqrt(2))) for v in XS])
    close(nn.elu(x), [v if v > 0 else math.expm1(v) for v in XS])
    close(nn.hard_tanh(x), [min(max(v, -1.0), 1.0) for v in XS])
    assert jax.grad(nn.relu)(0.0).tolist() == 0.0
    assert repr(nn.relu(1.0)) == "Array(1., dtype=float32, weak_type=True)"


def test_softmax_logsumexp_one_hot():
    x = jnp.asarray([1.0, 2.0, 3.0])
    total = sum(math.exp(v) for v in (1.0, 2.0, 3.0))
    close(nn.softmax(x), [math.exp(v) / total for v in (1.0, 2.0, 3.0)])
    close(nn.log_softmax(x), [v - math.log(total) for v in (1.0, 2.0, 3.0)])
    close(nn.logsumexp(x), math.log(total))
    close(sp.logsumexp(jnp.asarray([1000.0, 1000.0])), 1000.0 + math.log(2))
    assert nn.one_hot(jnp.asarray([0, 2, 5]), 3).tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    close(jax.grad(lambda v: nn.softmax(v)[0])(x), [0.0819, -0.0220, -0.0599], 1e-3)


def test_attention_uniform_keys():
    q = jnp.ones((1, 2, 1, 2))
    k = jnp.zeros((1, 3, 1, 2))
    v = jnp.arange(6.0).reshape(1, 3, 1, 2)
    out = nn.dot_product_attention(q, k, v)   # equal logits: the mean of the values
    close(out.reshape(-1), [2.0, 3.0, 2.0, 3.0])
    causal = nn.dot_product_attention(q, k[:, :2], v[:, :2], is_causal=True)
    close(causal.reshape(-1), [0.0, 1.0, 1.0, 2.0])


def test_special_values():
    close(sp.gammaln(jnp.asarray([0.5, 4.0, 10.0])), [math.lgamma(v) for v in (0.5, 4.0, 10.0)])
    close(sp.erf(jnp.asarray([-1.0, 0.3])), [math.erf(-1.0), math.erf(0.3)])
    close(sp.xlogy(jnp.asarray([0.0, 2.0]), jnp.asarray([0.0, 3.0])), [0.0, 2 * math.log(3.0)])
    close(sp.ndtr(jnp.asarray([-1.0, 0.0, 2.0])), [0.5 * math.erfc(v / math.sqrt(2)) for v in (1.0, 0.0, -2.0)])
    close(sp.ndtri(jnp.asarray([0.025, 0.5, 0.975])), [-1.959964, 0.0, 1.959964])
    close(sp.i0e(jnp.asarray([0.0, 1.0])), [1.0, 1.2660658777520082 * math.exp(-1)])
    close(sp.zeta(2.0, 1.0), math.pi ** 2 / 6)
    close(sp.polygamma(1, 1.0), math.pi ** 2 / 6)
    close(sp.gammainc(1.0, jnp.asarray([0.5, 2.0, 10.0])), [1 - math.exp(-v) for v in (0.5, 2.0, 10.0)])
    close(sp.gammaincc(3.0, 2.0), math.exp(-2.0) * (1 + 2.0 + 2.0))
    close(sp.betainc(2.0, 1.0, 0.3), 0.09)
    close(sp.comb(10.0, 3.0), 120.0, 1e-4)
    close(sp.gammasgn(jnp.asarray([-1.5, 2.0])), [1.0, 1.0])
    close(sp.log_ndtr(-12.0), -75.410675, 1e-6)  # JAX 0.10.2


def test_stats():
    close(norm.logpdf(1.0), -0.5 - 0.5 * math.log(2 * math.pi))
    close(norm.cdf(jnp.asarray([0.0, 1.0]), 1.0, 2.0), [0.5 * math.erfc(0.5 / math.sqrt(2)), 0.5])
    close(poisson.pmf(jnp.asarray([0.0, 2.0]), 3.0), [math.exp(-3.0), 4.5 * math.exp(-3.0)])
    close(gamma_dist.cdf(2.0, 1.0), 1 - math.exp(-2.0))
    close(jax.grad(norm.logpdf)(1.5), -1.5)
