"""Core, numpy-API and transformation checks written without numpy.

Marked `pyodide`: the harness runs this module inside Pyodide (Chromium and Node,
where there is no numpy) as well as here on every device. Expected values come
from Python's math module or by hand.
"""
import math

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

pytestmark = [pytest.mark.pyodide, pytest.mark.on_every_device]


def close(got, want, tol=1e-5):
    got = got.tolist() if hasattr(got, "tolist") else got
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            close(g, w, tol)
        return
    assert math.isclose(got, want, rel_tol=tol, abs_tol=tol), (got, want)


def test_creation_dtypes_and_repr():
    assert repr(jnp.arange(3)) == "Array([0, 1, 2], dtype=int32)"
    assert jnp.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert jnp.eye(2, dtype=jnp.int8).tolist() == [[1, 0], [0, 1]]
    assert (jnp.float16(1) + 1.0).dtype == jnp.float16
    assert (jnp.uint8(250) + 10).tolist() == 4  # wraps
    assert jnp.array([1, 2]).dtype == jnp.int32 and jnp.array([1.0, 2]).dtype == jnp.float32


def test_elementwise_math_matches_python():
    xs = [-2.5, -0.5, 0.0, 0.75, 3.0]
    x = jnp.asarray(xs)
    close(jnp.exp(x), [math.exp(v) for v in xs])
    close(jnp.sin(x), [math.sin(v) for v in xs])
    close(jnp.tanh(x), [math.tanh(v) for v in xs])
    close(lax.erf(x), [math.erf(v) for v in xs])
    close(jnp.abs(x) ** 0.5, [abs(v) ** 0.5 for v in xs])
    assert (jnp.asarray([7, -7]) // 2).tolist() == [3, -4]
    assert (jnp.asarray([7, -7]) % 3).tolist() == [1, 2]
    assert jnp.isnan(jnp.asarray([1.0, float("nan")])).tolist() == [False, True]


def test_reductions_and_linear_algebra():
    a = jnp.arange(6.0).reshape(2, 3)
    assert a.sum().tolist() == 15.0 and a.sum(axis=0).tolist() == [3.0, 5.0, 7.0]
    assert a.max(axis=1, keepdims=True).tolist() == [[2.0], [5.0]]
    assert jnp.argmax(jnp.asarray([1, 5, 5, 2])).tolist() == 1
    assert (a @ a.T).tolist() == [[5.0, 14.0], [14.0, 50.0]]
    assert jnp.einsum("ij,ij->i", a, a).tolist() == [5.0, 50.0]
    assert jnp.cumsum(jnp.asarray([1, 2, 3])).tolist() == [1, 3, 6]
    assert jnp.sort(jnp.asarray([3.0, float("nan"), -1.0, 2.0])).tolist()[:3] == [-1.0, 2.0, 3.0]


def test_indexing_views_and_updates():
    x = jnp.arange(12).reshape(3, 4)
    assert x[1].tolist() == [4, 5, 6, 7]
    assert x[::-1, 1::2].tolist() == [[9, 11], [5, 7], [1, 3]]
    assert x[:, None, 2].tolist() == [[2], [6], [10]]
    assert x[jnp.asarray([2, 0])].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert x[x > 9].tolist() == [10, 11]
    assert x.at[0, 0].set(100)[0].tolist() == [100, 1, 2, 3]
    assert jnp.zeros(3).at[jnp.asarray([0, 0, 2])].add(1.0).tolist() == [2.0, 0.0, 1.0]
    assert jnp.pad(jnp.asarray([1, 2]), 1).tolist() == [0, 1, 2, 0]
    assert jnp.concatenate([jnp.asarray([1]), jnp.asarray([2, 3])]).tolist() == [1, 2, 3]


def test_grad_jvp_vmap_compose():
    f = lambda x: jnp.sin(x) * x
    df = lambda x: math.cos(x) * x + math.sin(x)
    close(jax.grad(f)(0.7), df(0.7))
    close(jax.grad(jax.grad(jnp.sin))(0.3), -math.sin(0.3))
    xs = [-1.0, 0.5, 2.0]
    close(jax.vmap(jax.grad(f))(jnp.asarray(xs)), [df(v) for v in xs])
    y, t = jax.jvp(jnp.exp, (1.0,), (2.0,))
    close(y, math.e)
    close(t, 2 * math.e)
    _, pullback = jax.vjp(lambda a, b: a * b, 3.0, 4.0)
    close(pullback(1.0), [4.0, 3.0])
    close(jax.hessian(lambda v: (v ** 3).sum())(jnp.asarray([1.0, 2.0])), [[6.0, 0.0], [0.0, 12.0]])


def test_jit_and_jaxpr():
    @jax.jit
    def step(w, x):
        return jnp.tanh(x @ w).sum()
    w, x = jnp.ones((3, 2)) * 0.1, jnp.ones((4, 3))
    close(step(w, x), 8 * math.tanh(0.3))
    text = str(jax.make_jaxpr(lambda a: jnp.sin(a) * 2.0)(1.0))
    assert "sin" in text and "mul" in text


def test_custom_rules_and_errors():
    @jax.custom_jvp
    def f(x):
        return x * x

    f.defjvp(lambda primals, tangents: (f(primals[0]), 10.0 * tangents[0]))
    close(jax.grad(f)(3.0), 10.0)
    with pytest.raises(TypeError, match="scalar"):
        jax.grad(lambda x: x * 2)(jnp.ones(3))
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: 1 if x > 0 else 0)(1.0)
    with pytest.raises(TypeError, match="sin does not accept dtype int32"):
        lax.sin(jnp.asarray(1))
