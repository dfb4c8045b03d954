"""jax.debug.print / jax.debug.callback / jax.pure_callback: eager, under jit, vmap and
grad, their jaxpr equations, effect-keeping DCE, and JAX's errors."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src.callbacks import debug_callback_p, pure_callback_p


def test_debug_print_eager_and_formats(capsys):
    jax.debug.print("x = {x}", x=jnp.arange(3.0))
    jax.debug.print("{} and {:.2f}", jnp.int32(7), jnp.float32(1.23456))
    jax.debug.print("no placeholders", jnp.ones(2), skip_format_check=True)
    jax.debug.print(ordered=True)("two-call {}", 5)
    assert capsys.readouterr().out.splitlines() == [
        "x = [0. 1. 2.]", "7 and 1.23", "no placeholders [1. 1.]", "two-call 5"]
    with pytest.raises(ValueError, match="Unused positional arguments"):
        jax.debug.print("{}", 1, 2)
    with pytest.raises(ValueError, match="Unused keyword arguments"):
        jax.debug.print("{x}", x=1, y=2)


def test_debug_print_under_jit_grad_vmap(capsys):
    @jax.jit
    def f(x):
        jax.debug.print("in jit: {}", x)
        return x * 2
    np.testing.assert_array_equal(f(jnp.ones(2)), [2.0, 2.0])
    f(jnp.ones(2))  # cached trace: the callback still runs on every call

    def g(x):
        jax.debug.print("g sees {}", x)
        return jnp.sum(x ** 2)
    np.testing.assert_array_equal(jax.grad(g)(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(jax.grad(jax.jit(g))(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    jax.vmap(lambda v: jax.debug.print("elt {}", v))(jnp.arange(3))
    jax.vmap(lambda v, w: jax.debug.print("{} {}", v, w), in_axes=(0, None))(jnp.arange(2), 9)
    assert capsys.readouterr().out.splitlines() == [
        "in jit: [1. 1.]", "in jit: [1. 1.]", "g sees [0. 1. 2.]", "g sees [0. 1. 2.]",
        "elt 0", "elt 1", "elt 2", "0 9", "1 9"]


def test_debug_callback_values_and_jaxpr():
    seen = []
    jax.debug.callback(lambda a, b, tag: seen.append((a.tolist(), b, tag)), jnp.arange(2), 3, tag="eager")
    jax.jit(lambda x: jax.debug.callback(lambda v: seen.append(v.tolist()), x))(jnp.ones(2))
    assert seen == [([0, 1], 3, "eager"), [1.0, 1.0]]
    jaxpr = jax.make_jaxpr(lambda x: (jax.debug.print("{}", x), x + 1)[1])(jnp.ones(2))
    assert [e.primitive for e in jaxpr.eqns][0] is debug_callback_p
    assert "debug_callback[" in str(jaxpr)
    with pytest.raises(TypeError, match="must be callable"):
        jax.debug.callback(3)
    with pytest.raises(TypeError, match="unexpected arguments in the two-call form"):
        jax.debug.callback(None, 1)


def test_debug_callback_survives_dce_under_grad_of_jit():
    hits = []

    @jax.jit
    def f(x):
        jax.debug.callback(lambda v: hits.append(float(v)), x.sum())
        return jnp.sin(x).sum()
    jax.grad(f)(jnp.ones(3))
    assert hits == [3.0]


def test_pure_callback_eager_jit_vmap():
    sds = jax.ShapeDtypeStruct((3,), jnp.float32)
    np.testing.assert_array_equal(jax.pure_callback(lambda a: a * 3, sds, jnp.arange(3.0)), [0, 3, 6])
    out = jax.jit(lambda a: jax.pure_callback(lambda b: np.asarray(b) + 1, jax.ShapeDtypeStruct(a.shape, a.dtype), a))(
        jnp.ones(2))
    np.testing.assert_array_equal(out, [2.0, 2.0])
    tree = jax.pure_callback(lambda a: {"s": a.sum(), "d": a * 2},
                             {"s": jax.ShapeDtypeStruct((), jnp.float32), "d": sds}, jnp.arange(3.0))
    assert float(tree["s"]) == 3.0 and tree["d"].tolist() == [0.0, 2.0, 4.0]
    calls = []

    def cb(b):
        calls.append(tuple(b.shape))
        return b * 10
    s = jax.ShapeDtypeStruct((), jnp.float32)
    for method, shapes in (("sequential", [(), (), ()]), ("expand_dims", [(3,)]), ("broadcast_all", [(3,)])):
        calls.clear()
        got = jax.vmap(lambda a: jax.pure_callback(cb, s, a, vmap_method=method))(jnp.arange(3.0))
        np.testing.assert_array_equal(got, [0.0, 10.0, 20.0])
        assert calls == shapes, method
    eq = jax.make_jaxpr(lambda a: jax.pure_callback(cb, sds, a))(jnp.ones(3)).eqns[0]
    assert eq.primitive is pure_callback_p and eq.params["result_avals"][0].shape == (3,)


def test_pure_callback_errors():
    s = jax.ShapeDtypeStruct((), jnp.float32)
    with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
        jax.pure_callback(lambda x: x, s, 1.0, vmap_method="bogus")
    with pytest.raises(NotImplementedError, match="vmap is only supported for the pure_callback"):
        jax.vmap(lambda x: jax.pure_callback(lambda y: y, s, x))(jnp.ones(2))
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jax.grad(lambda x: jax.pure_callback(lambda y: y, s, x))(1.0)
    with pytest.raises(ValueError, match="cannot specify 64-bit types"):
        jax.pure_callback(lambda x: x, jax.ShapeDtypeStruct((), jnp.float64), 1.0)
    with pytest.raises(RuntimeError, match="expects"):
        jax.pure_callback(lambda x: jnp.ones(4), jax.ShapeDtypeStruct((2,), jnp.float32), 1.0)
