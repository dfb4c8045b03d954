"""jaxweb.nn against numpy formulas and scipy: activations, softmax family, one_hot,
dot_product_attention; gradients through the rule checker; vmap and jit vs eager.

(JAX's exact choices at edges, weak types and kinks are in test_jax_reference_nn_scipy.py.)
"""
import math

import numpy as np
import pytest
import scipy.special as sps

import jaxweb
import jaxweb.numpy as jnp
import jaxweb.nn as nn
from rule_checker import check_grads, check_vmap

pytestmark = pytest.mark.on_every_device

RNG = np.random.RandomState(0)
X = (RNG.standard_normal(40) * 3).astype(np.float32)

_erf = np.vectorize(math.erf)
NUMPY = {  # name -> numpy formula (float64)
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "softplus": lambda x: np.logaddexp(x, 0),
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "sigmoid": sps.expit,
    "sparse_sigmoid": lambda x: np.clip((x + 1) / 2, 0, 1),
    "silu": lambda x: x * sps.expit(x),
    "mish": lambda x: x * np.tanh(np.logaddexp(x, 0)),
    "log_sigmoid": lambda x: -np.logaddexp(-x, 0),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "celu": lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
}
SMOOTH = ["squareplus", "softplus", "soft_sign", "sigmoid", "silu", "mish", "log_sigmoid", "gelu"]
PIECEWISE = ["relu", "relu6", "sparse_plus", "sparse_sigmoid", "elu", "leaky_relu", "hard_tanh",
             "celu", "selu", "hard_sigmoid", "hard_silu"]


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_activation_values(name):
    got = getattr(nn, name)(jnp.asarray(X))
    assert got.dtype == jnp.float32 and got.shape == X.shape
    np.testing.assert_allclose(np.asarray(got), NUMPY[name](X.astype(np.float64)), rtol=2e-6, atol=2e-6)


def test_gelu_exact_and_aliases():
    x = X.astype(np.float64)
    np.testing.assert_allclose(np.asarray(nn.gelu(X, approximate=False)),
                               0.5 * x * (1 + _erf(x / math.sqrt(2))), rtol=2e-6, atol=1e-6)
    assert nn.swish is nn.silu and nn.hard_swish is nn.hard_silu
    assert np.asarray(nn.log1mexp(jnp.asarray([0.1, 1.0, 10.0]))).tolist() == pytest.approx(
        [math.log(1 - math.exp(-v)) for v in (0.1, 1.0, 10.0)], rel=1e-6)


def test_activation_shapes_dtypes():
    assert nn.relu(jnp.zeros((0, 3))).shape == (0, 3)
    assert nn.gelu(jnp.zeros((2, 0))).shape == (2, 0)
    assert nn.sigmoid(jnp.float16(0.5)).dtype == jnp.float16
    assert nn.softplus(jnp.asarray(2.0, jnp.bfloat16)).dtype == jnp.bfloat16
    assert nn.relu(jnp.arange(-2, 3)).tolist() == [0, 0, 0, 1, 2]
    x = jnp.asarray(X.reshape(5, 8))
    np.testing.assert_allclose(np.asarray(nn.leaky_relu(x, jnp.full((5, 1), 0.2))),
                               np.where(X.reshape(5, 8) >= 0, X.reshape(5, 8), 0.2 * X.reshape(5, 8)), rtol=1e-6)
    with pytest.raises(TypeError, match="silu requires ndarray or scalar arguments"):
        nn.silu([1.0])
    with pytest.raises(AssertionError, match="axis size must be divisible by 2"):
        nn.glu(jnp.ones(3))


@pytest.mark.parametrize("name", SMOOTH)
def test_smooth_activation_grads(name):
    check_grads(getattr(nn, name), (X[:6],), order=2)


@pytest.mark.parametrize("name", PIECEWISE)
def test_piecewise_activation_grads(name):
    # away from the kinks (at -3, -1, 0, 1, 3, 6); the kinks themselves are JAX's choices
    x = np.array([-4.5, -2.2, -0.6, 0.4, 2.1, 4.7, 7.3], np.float32)
    check_grads(getattr(nn, name), (x,), order=1)


def test_relu_kink_derivatives():
    g = jaxweb.vmap(jaxweb.grad(nn.relu))(jnp.asarray([-1.0, 0.0, 1.0]))
    assert g.tolist() == [0.0, 0.0, 1.0]
    g6 = jaxweb.vmap(jaxweb.grad(nn.relu6))(jnp.asarray([0.0, 3.0, 6.0]))
    assert g6.tolist() == [0.0, 1.0, 0.0]
    assert float(jaxweb.grad(jaxweb.grad(nn.silu))(0.0)) == pytest.approx(0.5)


# ---------------------------------------------------------------- softmax family
A = RNG.standard_normal((3, 5)).astype(np.float32) * 2


@pytest.mark.parametrize("axis", [-1, 0, (0, 1), None])
def test_softmax_log_softmax(axis):
    np.testing.assert_allclose(np.asarray(nn.softmax(A, axis=axis)), sps.softmax(A.astype(float), axis=axis),
                               rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(A, axis=axis)),
                               sps.log_softmax(A.astype(float), axis=axis), rtol=2e-6, atol=2e-6)


def test_softmax_where_and_initial():
    where = np.array([True, False, True, True, False])
    got = np.asarray(nn.softmax(A, where=where))
    ref = np.where(where, sps.softmax(np.where(where, A, -np.inf), axis=-1), 0)
    np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-7)
    # `initial` floors the shift (the result is shift-invariant until exp underflows)
    np.testing.assert_allclose(np.asarray(nn.softmax(A, initial=4.0)), sps.softmax(A, axis=-1), rtol=1e-5)
    assert np.isnan(np.asarray(nn.softmax(jnp.asarray([-1e30, -1e30]), initial=0.0))).all()
    lsm = np.asarray(nn.log_softmax(A, where=where))
    assert np.all(np.isneginf(lsm[:, ~where]))


def test_softmax_gradient_is_jax_rule_and_stable():
    x = np.array([1000.0, 0.0, -1000.0], np.float32)
    g = jaxweb.grad(lambda v: nn.softmax(v)[0])(jnp.asarray(x))
    assert np.all(np.isfinite(np.asarray(g)))
    check_grads(lambda v: nn.softmax(v, axis=0), (A,), order=2)
    check_grads(lambda v: nn.log_softmax(v), (A,), order=2)
    where = jnp.asarray([True, False, True, True, True])
    check_grads(lambda v: nn.softmax(v, where=where), (A,), order=1)
    # y * (t - sum(y t)), JAX's custom JVP, exactly
    t = np.ones_like(A)
    y, ty = jaxweb.jvp(lambda v: nn.softmax(v), (jnp.asarray(A),), (jnp.asarray(t),))
    np.testing.assert_allclose(np.asarray(ty), 0.0, atol=1e-7)


def test_logsumexp():
    np.testing.assert_allclose(np.asarray(nn.logsumexp(A, axis=1)), sps.logsumexp(A, axis=1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(nn.logsumexp(A, axis=0, keepdims=True)),
                               sps.logsumexp(A, axis=0, keepdims=True), rtol=1e-6)
    b = np.array([1.0, -2.0, 0.5, 0.0, 3.0], np.float32)
    out, sign = nn.logsumexp(A, axis=1, b=b, return_sign=True)
    ref, ref_sign = sps.logsumexp(A, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5)
    assert np.asarray(sign).tolist() == ref_sign.tolist()
    big = nn.logsumexp(jnp.asarray([1e30, 1e30]))
    assert float(big) == pytest.approx(1e30)
    assert math.isinf(float(nn.logsumexp(jnp.asarray([-math.inf, -math.inf])))) 
    assert nn.logsumexp(jnp.zeros((0,))).tolist() == -math.inf
    check_grads(lambda v: nn.logsumexp(v, axis=1), (A,), order=2)
    g = jaxweb.grad(lambda v: nn.logsumexp(v))(jnp.asarray(A))
    np.testing.assert_allclose(np.asarray(g), sps.softmax(A, axis=None), rtol=1e-5, atol=1e-7)


def test_logmeanexp_and_standardize():
    np.testing.assert_allclose(np.asarray(nn.logmeanexp(A, axis=1)), sps.logsumexp(A, axis=1) - math.log(5),
                               rtol=1e-6)
    s = np.asarray(nn.standardize(A))
    ref = (A - A.mean(-1, keepdims=True)) / np.sqrt(A.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(s, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(nn.standardize(A, axis=0, algorithm="stable")),
                               (A - A.mean(0)) / np.sqrt(A.var(0) + 1e-5), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="Unknown algorithm 'slow'"):
        nn.standardize(A, algorithm="slow")


def test_one_hot():
    x = jnp.asarray([[0, 2], [1, 5]])
    oh = nn.one_hot(x, 3)
    assert oh.shape == (2, 2, 3) and oh.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(oh), np.eye(3)[[[0, 2], [1, 2]]] * [[[1], [1]], [[1], [0]]])
    assert nn.one_hot(x, 3, axis=1).shape == (2, 3, 2)
    assert nn.one_hot(jnp.asarray(1), 4, dtype=jnp.int8).tolist() == [0, 1, 0, 0]
    with pytest.warns(DeprecationWarning, match="should be integer-typed"):
        nn.one_hot(jnp.asarray([1.0]), 2)
    with pytest.raises(ValueError):
        nn.one_hot(x, 3, axis=4)


# ---------------------------------------------------------------- attention
def _attention_ref(q, k, v, bias=None, mask=None, causal=False, scale=None, q_len=None, kv_len=None):
    """numpy reference over [B, T, N, H] with GQA by repeating key/value heads."""
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    k = np.repeat(k, N // K, axis=2)
    v = np.repeat(v, N // K, axis=2)
    scale = 1 / math.sqrt(H) if scale is None else scale
    logits = np.einsum("btnh,bsnh->bnts", q, k).astype(np.float64) * scale
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if causal:
        keep &= np.tril(np.ones((T, S), bool))
    if q_len is not None:
        keep &= (np.arange(T)[None, :, None] < q_len[:, None, None])[:, None]
    if kv_len is not None:
        keep &= (np.arange(S)[None, None, :] < kv_len[:, None, None])[:, None]
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    out = np.einsum("bnts,bsnh->btnh", sps.softmax(logits, axis=-1), v)
    if q_len is not None:
        out = out * (np.arange(T)[None, :] < q_len[:, None])[:, :, None, None]
    return out


def _qkv(B=2, T=4, S=5, N=4, K=2, H=3):
    r = np.random.RandomState(1)
    f = lambda *s: r.standard_normal(s).astype(np.float32)
    return f(B, T, N, H), f(B, S, K, H), f(B, S, K, H)


def test_attention_variants():
    q, k, v = _qkv()
    np.testing.assert_allclose(np.asarray(nn.dot_product_attention(q, k, v)), _attention_ref(q, k, v),
                               rtol=1e-5, atol=1e-6)
    bias = np.random.RandomState(2).standard_normal((1, 4, 4, 5)).astype(np.float32)
    mask = np.random.RandomState(3).rand(2, 1, 4, 5) > 0.3
    got = nn.dot_product_attention(q, k, v, bias=bias, mask=mask, scale=0.7)
    np.testing.assert_allclose(np.asarray(got), _attention_ref(q, k, v, bias, mask, scale=0.7), rtol=1e-5, atol=1e-6)
    qs = np.array([3, 4], np.int32)
    ks = np.array([2, 5], np.int32)
    got = nn.dot_product_attention(q, k, v, is_causal=True, query_seq_lengths=qs, key_value_seq_lengths=ks)
    np.testing.assert_allclose(np.asarray(got), _attention_ref(q, k, v, causal=True, q_len=qs, kv_len=ks),
                               rtol=1e-5, atol=1e-6)
    # multi-query (K == 1), unbatched [T, N, H] inputs
    q1, k1, v1 = _qkv(B=1, K=1)
    got = nn.dot_product_attention(q1[0], k1[0], v1[0])
    assert got.shape == (4, 4, 3)
    np.testing.assert_allclose(np.asarray(got), _attention_ref(q1, k1, v1)[0], rtol=1e-5, atol=1e-6)


def test_attention_residual_window_and_errors():
    q, k, v = _qkv(T=5)
    out, lse = nn.dot_product_attention(q, k, v, return_residual=True)
    assert lse.shape == (2, 5, 4)
    kk = np.repeat(k, 2, axis=2)
    logits = np.einsum("btnh,bsnh->btns", q, kk) / math.sqrt(3)
    np.testing.assert_allclose(np.asarray(lse), sps.logsumexp(logits, axis=-1), rtol=1e-5, atol=1e-5)
    win = nn.dot_product_attention(q, k, v, local_window_size=(1, 0))
    band = np.tril(np.ones((5, 5), bool)) & ~np.tril(np.ones((5, 5), bool), -2)
    np.testing.assert_allclose(np.asarray(win), _attention_ref(q, k, v, mask=band[None, None]), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="value dtype should be float32, but got float16"):
        nn.dot_product_attention(q, k, v.astype(np.float16))
    with pytest.raises(ValueError, match="must be a multiple of key/value heads"):
        nn.dot_product_attention(q[:, :, :3], k, v)
    with pytest.raises(ValueError, match="mask dtype should be bool"):
        nn.dot_product_attention(q, k, v, mask=np.ones((1, 1, 5, 5), np.float32))


def test_attention_grads_vmap_jit():
    q, k, v = _qkv(B=1, T=3, S=4, N=2, K=1, H=2)
    check_grads(lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True), (q, k, v), order=1)
    eager = nn.dot_product_attention(q, k, v)
    np.testing.assert_allclose(np.asarray(jaxweb.jit(nn.dot_product_attention)(q, k, v)), np.asarray(eager),
                               rtol=1e-6, atol=1e-7)
    qs, ks, vs = _qkv(B=3, T=3, S=4, N=2, K=1, H=2)
    check_vmap(lambda a, b, c: nn.dot_product_attention(a, b, c), (qs, ks, vs))


def test_vmap_and_jit_agree_with_eager():
    for f in (nn.gelu, nn.softplus, nn.relu, lambda x: nn.softmax(x, axis=-1), lambda x: nn.logsumexp(x, axis=-1)):
        check_vmap(f, (A,))
        np.testing.assert_allclose(np.asarray(jaxweb.jit(f)(A)), np.asarray(f(A)), rtol=1e-6, atol=1e-7)
    check_vmap(lambda x: nn.one_hot(x, 4), (np.array([[0, 1], [3, 2]], np.int32),))
