"""Control flow without numpy, so it also runs inside Pyodide (marked `pyodide`: the
harness in tests/pyodide runs it in Node and headless Chromium) and here on every
device. Expected values come from Python's math module and plain loops."""
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


def test_cond_switch_and_their_vmap():
    f = lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)
    close(f(0.5), math.sin(0.5))
    close(jax.jit(f)(-0.5), math.cos(-0.5))
    xs = [0.5, -1.0, 2.0]
    close(jax.vmap(f)(jnp.asarray(xs)), [math.sin(v) if v > 0 else math.cos(v) for v in xs])
    close(jax.grad(f)(0.5), math.cos(0.5))
    g = lambda i, x: lax.switch(i, [lambda v: v + 1.0, lambda v: v * v, lambda v: -v], x)
    close(jax.vmap(g)(jnp.asarray([0, 1, 2, 9]), jnp.asarray([3.0, 3.0, 3.0, 3.0])), [4.0, 9.0, -3.0, -3.0])


def test_while_and_fori_with_batched_trip_counts():
    f = lambda n, x: lax.fori_loop(0, n, lambda i, c: c * x, jnp.float32(1.0))
    ns, xs = [0, 1, 3, 5], [2.0, 3.0, 0.5, 1.5]
    close(jax.vmap(f)(jnp.asarray(ns), jnp.asarray(xs)), [x ** n for n, x in zip(ns, xs)])
    w = lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + c[0]), (0, 0))[1]
    assert jax.vmap(w)(jnp.asarray(ns)).tolist() == [n * (n - 1) // 2 for n in ns]
    assert int(jax.jit(w)(6)) == 15
    close(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * c, x))(1.1), 8 * 1.1 ** 7, 1e-4)


def test_scan_values_and_gradient():
    xs = [1.0, 2.0, 3.0, 4.0]
    c, ys = lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.asarray(xs))
    close(c, 10.0)
    close(ys, [0.0, 2.0, 9.0, 24.0])

    def loss(w):
        h, _ = lax.scan(lambda h, x: (jnp.tanh(w * h + x), None), 0.0, jnp.asarray(xs))
        return h

    def py_loss(w):
        h = 0.0
        for x in xs:
            h = math.tanh(w * h + x)
        return h
    eps = 1e-3
    close(jax.grad(loss)(0.3), (py_loss(0.3 + eps) - py_loss(0.3 - eps)) / (2 * eps), 1e-3)
    close(jax.jit(jax.grad(loss))(0.3), float(jax.grad(loss)(0.3)))


def test_associative_scan_and_map():
    close(lax.associative_scan(jnp.add, jnp.arange(1.0, 6.0)), [1.0, 3.0, 6.0, 10.0, 15.0])
    close(lax.map(lambda v: v * v, jnp.arange(5.0), batch_size=2), [0.0, 1.0, 4.0, 9.0, 16.0])
