"""Jaxprs: tracing (make_jaxpr), the pretty-printer, eval_jaxpr, jit's cache, eval_shape."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb._src import core
from jaxweb._src.jaxpr import ClosedJaxpr, Literal, eval_jaxpr, jaxpr_as_fun

rng = np.random.RandomState(0)


def test_pretty_print_one_line():
    text = str(jax.make_jaxpr(lambda x: lax.mul(lax.sin(x), x))(jnp.ones(3)))
    assert text == "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b a in (c,) }"


def test_pretty_print_multi_line_params_and_outputs():
    text = str(jax.make_jaxpr(lambda x, y: (lax.add(x, x), lax.reduce_sum(y, (0,))))(
        jnp.ones(3), jnp.ones((2, 3))))
    assert text == ("{ lambda ; a:f32[3] b:f32[2,3]. let\n"
                    "    c:f32[3] = add a a\n"
                    "    d:f32[3] = reduce_sum[axes=(0,)] b\n"
                    "  in (c, d) }")


def test_pretty_print_identity_literal_and_const():
    assert str(jax.make_jaxpr(lambda x: x)(1.0)) == "{ lambda ; a:f32[]. let  in (a,) }"
    assert str(jax.make_jaxpr(lambda x: lax.mul(x, 2.0))(2.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }"
    c = jnp.asarray([1.0, 2.0, 3.0])
    closed = jax.make_jaxpr(lambda x: lax.mul(x, c))(jnp.ones(3))
    assert str(closed) == "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = mul b a in (c,) }"
    assert len(closed.consts) == 1 and np.array_equal(np.asarray(closed.consts[0]), [1, 2, 3])


def test_var_names_continue_past_z():
    closed = jax.make_jaxpr(lambda *a: sum(a[1:], a[0]))(*[1.0] * 30)
    text = str(closed)
    assert "be:f32[] = add a b" in text and "in (cg,) }" in text


def test_dropvar_and_dtypes_in_text():
    text = str(jax.make_jaxpr(jax.grad(lambda x: lax.mul(lax.sin(x), x)))(1.0))
    assert "_:f32[] = mul b a" in text
    text = str(jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.int32))(1.0))
    assert "b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a" in text


def test_nested_jaxpr_params_print():
    text = str(jax.make_jaxpr(jax.checkpoint(lambda x: lax.sin(lax.sin(x))))(1.0))
    assert text.startswith("{ lambda ; a:f32[]. let\n    b:f32[] = checkpoint[\n")
    assert "jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = sin d in (e,) }" in text
    assert "prevent_cse=True" in text and text.endswith("] a\n  in (b,) }")


def test_make_jaxpr_structure_and_eval():
    def f(x, y):
        return {"s": lax.sin(x), "p": lax.mul(x, y)}
    x = rng.randn(4).astype(np.float32)
    y = rng.randn(4).astype(np.float32)
    closed = jax.make_jaxpr(f)(x, y)
    assert isinstance(closed, ClosedJaxpr)
    assert [str(a) for a in closed.in_avals] == ["float32[4]", "float32[4]"]  # str(aval) as JAX 0.10 prints it
    assert len(closed.out_avals) == 2 and [e.primitive.name for e in closed.eqns] == ["sin", "mul"]
    outs = eval_jaxpr(closed.jaxpr, closed.consts, jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_allclose(np.asarray(outs[0]), x * y, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(outs[1]), np.sin(x), rtol=1e-6)
    outs2 = jaxpr_as_fun(closed)(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_array_equal(np.asarray(outs2[1]), np.asarray(outs[1]))


def test_make_jaxpr_return_shape_and_static_argnums():
    closed, shape = jax.make_jaxpr(lambda x, n: lax.reshape(x, (n, 2)), static_argnums=1,
                                   return_shape=True)(jnp.ones(6), 3)
    assert shape.shape == (3, 2) and shape.dtype == jnp.float32
    assert "reshape" in str(closed)


def test_make_jaxpr_abstract_args_and_eval_shape():
    spec = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    closed = jax.make_jaxpr(lambda x: lax.reduce_sum(x, (1,)))(spec)
    assert str(closed.out_avals[0]) == "float32[2]"
    out = jax.eval_shape(lambda x, y: (lax.add(x, x), lax.convert_element_type(y, jnp.int32)),
                         spec, jnp.ones(4))
    assert out[0] == jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert out[1].shape == (4,) and out[1].dtype == jnp.int32


def test_literals_are_scalars():
    closed = jax.make_jaxpr(lambda x: lax.add(x, 1.5))(1.0)
    lits = [a for e in closed.eqns for a in e.invars if isinstance(a, Literal)]
    assert len(lits) == 1 and lits[0].val == 1.5 or float(lits[0].val.item()) == 1.5


def test_concretization_error_under_jit_names_user_line():
    def f(x):
        if x > 0:  # the line the error must name
            return x
        return -x
    with pytest.raises(core.ConcretizationTypeError) as e:
        jax.jit(f)(1.0)
    assert "test_jaxpr.py" in str(e.value) and "(f)" in str(e.value)
    with pytest.raises(core.ConcretizationTypeError):
        jax.make_jaxpr(lambda x: int(x))(1.0)


def test_jit_values_and_cache():
    calls = []

    def f(x, y):
        calls.append(1)
        return lax.add(lax.mul(x, y), lax.sin(x))

    jf = jax.jit(f)
    x = rng.randn(5).astype(np.float32)
    y = rng.randn(5).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jf(x, y)), x * y + np.sin(x), rtol=1e-6, atol=1e-6)
    jf(jnp.asarray(y), jnp.asarray(x))
    assert len(calls) == 1  # same avals: traced once
    jf(jnp.ones(3), jnp.ones(3))
    assert len(calls) == 2


def test_jit_static_args_and_decorator():
    @jax.jit
    def g(x):
        return lax.neg(x)
    np.testing.assert_array_equal(np.asarray(g(jnp.asarray([1.0, -2.0]))), [-1.0, 2.0])

    def h(x, n, *, scale):
        return lax.mul(x, jnp.asarray(float(n * scale), dtype=jnp.float32))
    jh = jax.jit(h, static_argnums=1, static_argnames="scale")
    np.testing.assert_array_equal(np.asarray(jh(jnp.ones(2), 3, scale=2)), [6.0, 6.0])
    np.testing.assert_array_equal(np.asarray(jh(jnp.ones(2), 4, scale=2)), [8.0, 8.0])
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jh(jnp.ones(2), [1], scale=2)
    jd = jax.jit(h, static_argnames=("n", "scale"), donate_argnums=0)
    np.testing.assert_array_equal(np.asarray(jd(jnp.ones(2), 2, scale=1)), [2.0, 2.0])


def test_jit_of_empty_and_zero_d():
    f = jax.jit(lambda x: lax.mul(x, x))
    assert f(jnp.ones((0, 3))).shape == (0, 3)
    assert float(f(jnp.asarray(-3.0))) == 9.0


def test_closure_convert():
    c = jnp.asarray([1.0, 2.0])

    def f(x):
        return lax.mul(x, c)
    conv, consts = jax.closure_convert(f, jnp.ones(2))
    assert len(consts) == 1
    np.testing.assert_array_equal(np.asarray(conv(jnp.asarray([3.0, 4.0]), *consts)), [3.0, 8.0])
    np.testing.assert_array_equal(np.asarray(conv(jnp.asarray([3.0, 4.0]), jnp.asarray([0.0, 1.0]))),
                                  [0.0, 4.0])


def test_jit_is_a_primitive_in_jaxprs():
    def f(x):
        return lax.mul(lax.sin(x), x)
    text = str(jax.make_jaxpr(jax.jit(f))(1.0))
    assert text.startswith("{ lambda ; a:f32[]. let\n    b:f32[] = jit[\n")
    assert "name=f" in text and "d:f32[] = sin c" in text
    lin = str(jax.make_jaxpr(lambda x: jax.linearize(jax.jit(f), x)[1](1.0))(2.0))
    assert "name=jvp(f)" in lin
    assert "name=vmap(f)" in str(jax.make_jaxpr(jax.vmap(jax.jit(f)))(jnp.ones(3)))


def test_jit_transformations_values():
    f = jax.jit(lambda x: lax.mul(lax.sin(x), x))
    x = rng.randn(4).astype(np.float32)
    d = np.sin(x) + x * np.cos(x)
    np.testing.assert_allclose(np.asarray(jax.vmap(jax.grad(f))(x)), d, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jvp(f, (x,), (np.ones(4, np.float32),))[1]), d,
                               rtol=1e-5, atol=1e-6)
    d2 = 2 * np.cos(x) - x * np.sin(x)
    np.testing.assert_allclose(np.asarray(jax.vmap(jax.grad(jax.grad(f)))(x)), d2, rtol=1e-5, atol=1e-5)
    # a jitted function closing over a value traced by an outer transformation
    assert float(jax.grad(lambda a: jax.jit(lambda y: lax.mul(a, y))(2.0))(3.0)) == 2.0


def test_escaped_tracer_is_an_error():
    leaked = []

    def f(x):
        leaked.append(x)
        return x
    jax.grad(f)(1.0)
    with pytest.raises(core.UnexpectedTracerError, match="Encountered an unexpected tracer"):
        lax.mul(leaked[0], 2.0)
    jax.vmap(f)(jnp.ones(2))
    with pytest.raises(core.UnexpectedTracerError):
        lax.sin(leaked[1])
    jax.make_jaxpr(f)(1.0)
    with pytest.raises(core.UnexpectedTracerError):
        lax.sin(leaked[2])


def test_nested_jit_and_checkpoint_under_reverse_mode():
    f = jax.jit(lambda x: lax.mul(lax.sin(x), 2.0))
    g = jax.jit(lambda x: lax.mul(f(x), x))
    val, grad = jax.value_and_grad(g)(1.0)
    np.testing.assert_allclose(float(val), 2 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(float(grad), 2 * np.sin(1.0) + 2 * np.cos(1.0), rtol=1e-6)
    h = jax.jit(lambda x: lax.mul(jax.checkpoint(lax.sin)(x), x))
    val, grad = jax.value_and_grad(h)(1.0)
    np.testing.assert_allclose([float(val), float(grad)],
                               [np.sin(1.0), np.sin(1.0) + np.cos(1.0)], rtol=1e-6)
    np.testing.assert_allclose(float(jax.grad(jax.grad(h))(1.0)), 2 * np.cos(1.0) - np.sin(1.0),
                               rtol=1e-5)
    text = str(jax.make_jaxpr(jax.grad(h))(1.0))
    assert "differentiated=True" in text and "name=jvp(<lambda>)" in text


def test_non_array_arguments_are_errors():
    with pytest.raises(TypeError, match="Error interpreting argument to .* as an abstract array. The "
                                        "problematic value is of type <class 'function'> and was passed "
                                        "to the function at path f"):
        jax.jit(lambda x, f: f(x))(1.0, jnp.sin)
    assert float(jax.jit(lambda x, f: f(x), static_argnums=1)(0.0, lax.neg)) == 0.0
    with pytest.raises(TypeError, match="Argument 'a' of type <class 'str'> is not a valid JAX type"):
        jax.grad(lambda x: x)("a")
    with pytest.raises(TypeError, match="is not a valid JAX type"):
        jax.vmap(lambda x: x)("a")


def test_ensure_compile_time_eval_named_call_and_scope():
    seen = []

    def f(x):
        with jax.ensure_compile_time_eval():
            c = lax.mul(jnp.ones(3), 2.0)
            seen.append(type(c).__name__)
        with jax.named_scope("scale"):
            return lax.mul(x, c)

    closed = jax.make_jaxpr(f)(jnp.ones(3))
    assert seen == ["Array"] and len(closed.consts) == 1  # computed while tracing, captured
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.named_call(f, name="g"))(jnp.ones(3))), [2.0] * 3)
