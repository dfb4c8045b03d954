"""grad / jvp / vjp / linearize / jacobians / vmap / checkpoint and their compositions."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb._src import core, dtypes
from jaxweb._src.lax.structural import full
from rule_checker import check_grads, check_jvp, check_vjp, check_vmap

rng = np.random.RandomState(0)


def randn(*shape):
    return rng.randn(*shape).astype(np.float32)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                               rtol=tol, atol=tol)


def float0_zeros(shape=()):
    return full(shape, 0, dtypes.float0)


# ---------------------------------------------------------------- the seed example
def test_vmap_grad_sin_is_cos():
    xs = jnp.asarray(np.linspace(-10, 10, 1000), dtype=jnp.float32)
    close(jax.vmap(jax.grad(jnp.sin))(xs), np.cos(np.asarray(xs)), 1e-6)


# ---------------------------------------------------------------- grad
def test_grad_polynomial_and_higher_orders():
    f = lambda x: x * x * x - 2.0 * x  # noqa: E731
    close(jax.grad(f)(3.0), 25.0)
    close(jax.grad(jax.grad(f))(3.0), 18.0)
    close(jax.grad(jax.grad(jax.grad(f)))(3.0), 6.0)
    g = lambda x: jnp.sin(x) * jnp.exp(x)  # noqa: E731
    x = 0.7
    close(jax.grad(jax.grad(g))(x), 2 * np.cos(x) * np.exp(x), 1e-5)


def test_grad_argnums_pytrees_and_aux():
    def f(p, x):
        return jnp.sum(p["w"] * x + p["b"]), x.shape

    p = {"w": jnp.asarray(randn(3)), "b": jnp.asarray(randn(3))}
    x = jnp.asarray(randn(3))
    g, aux = jax.grad(f, has_aux=True)(p, x)
    assert aux == (3,)
    close(g["w"], x)
    close(g["b"], np.ones(3))
    (val, aux), (gp, gx) = jax.value_and_grad(f, argnums=(0, 1), has_aux=True)(p, x)
    close(val, np.sum(np.asarray(p["w"]) * np.asarray(x) + np.asarray(p["b"])))
    close(gx, p["w"])


def test_grad_errors():
    with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output functions. "
                                        r"Output had shape: \(3,\)."):
        jax.grad(lambda x: x)(jnp.ones(3))
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
        jax.grad(lambda x: x * 1.0)(1)
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        jax.grad(lambda x: lax.convert_element_type(x, jnp.int32))(1.0)
    with pytest.raises(TypeError, match="requires at least 2 positional arguments"):
        jax.grad(lambda x: x, argnums=1)(1.0)


def test_grad_allow_int_gives_float0():
    gx, gn = jax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    close(gx, 3.0)
    assert gn.dtype == dtypes.float0 and gn.shape == ()


def test_grad_under_python_control_flow_on_concrete_values():
    def f(x):
        return jnp.sin(x) if x > 0 else jnp.cos(x)
    close(jax.grad(f)(1.0), np.cos(1.0))
    close(jax.grad(f)(-1.0), np.sin(1.0))


def test_grad_special_values():
    assert np.signbit(np.asarray(jax.grad(lambda x: x * x)(-0.0)))
    assert np.isnan(np.asarray(jax.grad(jnp.sin)(np.float32(np.inf))))
    g = jax.grad(lambda x: jnp.sum(x * x))(jnp.asarray([np.nan, 1.0], dtype=jnp.float32))
    assert np.isnan(np.asarray(g)[0]) and np.asarray(g)[1] == 2.0
    assert jax.grad(lambda x: jnp.sum(x))(jnp.ones((0, 2))).shape == (0, 2)


def test_stop_gradient():
    f = lambda x: x * jax.lax.stop_gradient(x) if hasattr(jax.lax, "stop_gradient") \
        else x * jax.stop_gradient(x)  # noqa: E731
    close(jax.grad(f)(3.0), 3.0)
    close(jax.vmap(jax.stop_gradient)(jnp.asarray([1.0, 2.0])), [1.0, 2.0])
    assert "stop_gradient" in str(jax.make_jaxpr(jax.stop_gradient)(1.0))
    n = jax.stop_gradient(jnp.asarray([1, 2]))  # integers pass through
    assert n.dtype == jnp.int32


# ---------------------------------------------------------------- jvp / linearize / vjp
def test_jvp_values_and_pytrees():
    x, t = randn(4), randn(4)
    y, yt = jax.jvp(lambda d: {"s": jnp.sin(d["x"])}, ({"x": x},), ({"x": t},))
    close(y["s"], np.sin(x))
    close(yt["s"], np.cos(x) * t)
    y, yt, aux = jax.jvp(lambda a: (a * 2.0, "aux"), (x,), (t,), has_aux=True)
    assert aux == "aux"
    close(yt, 2 * t)


def test_jvp_integer_inputs_and_outputs():
    y, yt = jax.jvp(lambda x, n: x * n, (2.0, 3), (1.0, float0_zeros()))
    close(y, 6.0)
    close(yt, 3.0)
    y, yt = jax.jvp(lambda x: lax.convert_element_type(x, jnp.int32), (2.5,), (1.0,))
    assert int(y) == 2 and yt.dtype == dtypes.float0


def test_jvp_errors():
    with pytest.raises(TypeError, match="primal and tangent arguments to jax.jvp do not match; dtypes"):
        jax.jvp(lambda x: x, (1.0,), (1,))
    with pytest.raises(ValueError, match=r"jvp called with different primal and tangent shapes"):
        jax.jvp(lambda x: x, (jnp.ones(3),), (jnp.ones(2),))
    with pytest.raises(TypeError, match="must be tuples or lists"):
        jax.jvp(lambda x: x, 1.0, 1.0)


def test_linearize_matches_jvp():
    x, t = randn(5), randn(5)
    f = lambda a: jnp.sin(a) * a  # noqa: E731
    y, f_jvp = jax.linearize(f, x)
    close(y, np.sin(x) * x)
    close(f_jvp(t), jax.jvp(f, (x,), (t,))[1])
    close(f_jvp(2 * t), 2 * np.asarray(jax.jvp(f, (x,), (t,))[1]), 1e-5)


def test_vjp_pullback_and_errors():
    x, ct = randn(3), randn(3)
    y, pull = jax.vjp(lambda a, b: a * b, x, 2.0)
    ga, gb = pull(jnp.asarray(ct))
    close(ga, 2 * ct)
    close(gb, np.sum(ct * x), 1e-5)
    with pytest.raises(ValueError, match="unexpected JAX type"):
        pull(jnp.ones(2))
    y, pull, aux = jax.vjp(lambda a: (jnp.sin(a), 7), x, has_aux=True)
    assert aux == 7
    r = jax.vjp(lambda a: a * 2, 1)[1](2)
    assert r[0].dtype == dtypes.float0


def test_jvp_of_vjp_is_hessian_vector_product():
    def f(x):
        return jnp.sum(jnp.sin(x) * x)
    x, v = randn(4), randn(4)
    hvp = jax.jvp(lambda a: jax.vjp(f, a)[1](1.0)[0], (x,), (v,))[1]
    h_diag = 2 * np.cos(x) - x * np.sin(x)  # the Hessian of f is diagonal
    close(hvp, h_diag * v, 1e-5)


def test_linear_transpose():
    f = lambda x: 3.0 * x + jnp.sum(x)  # noqa: E731
    ft = jax.linear_transpose(f, jnp.ones(3))
    ct = randn(3)
    close(ft(ct)[0], 3 * ct + np.sum(ct), 1e-5)


# ---------------------------------------------------------------- jacobians, hessians
def test_jacfwd_jacrev_agree_with_analytic():
    f = lambda x: jnp.sin(x) * x[0]  # noqa: E731
    x = randn(3)
    expected = np.diag(np.cos(x) * x[0])
    expected[:, 0] += np.sin(x)
    close(jax.jacfwd(f)(x), expected, 1e-5)
    close(jax.jacrev(f)(x), expected, 1e-5)


def test_jacobian_pytrees_and_argnums():
    jac = jax.jacrev(lambda x, y: (x * y, jnp.sum(x)), argnums=(0, 1))(jnp.ones(2), 3.0)
    close(jac[0][0], 3 * np.eye(2))
    close(jac[0][1], [1.0, 1.0])
    close(jac[1][0], [1.0, 1.0])
    close(jac[1][1], 0.0)
    jf = jax.jacfwd(lambda d: {"a": d["x"] * 2})({"x": jnp.ones(2)})
    close(jf["a"]["x"], 2 * np.eye(2))


def _mlp_loss(params, x, y):
    w1, b1, w2 = params
    h = jnp.tanh(x @ w1 + b1) if hasattr(jnp, "tanh") else jnp.sin(x @ w1 + b1)
    return jnp.mean((h @ w2 - y) ** 2)


def test_hessian_of_mlp_loss():
    x, y = jnp.asarray(randn(5, 3)), jnp.asarray(randn(5, 2))
    w1, b1, w2 = jnp.asarray(randn(3, 4)), jnp.asarray(randn(4)), jnp.asarray(randn(4, 2))
    f = lambda b: _mlp_loss((w1, b, w2), x, y)  # noqa: E731
    h = np.asarray(jax.hessian(f)(b1))
    assert h.shape == (4, 4)
    close(h, h.T, 1e-5)
    close(jax.jacfwd(jax.jacrev(f))(b1), h, 1e-5)
    close(jax.jacrev(jax.jacrev(f))(b1), h, 1e-4)
    g = jax.grad(f)
    eps = 1e-2  # central differences of the gradient (float32)
    fd = np.stack([(np.asarray(g(b1 + eps * np.eye(4, dtype=np.float32)[i]))
                    - np.asarray(g(b1 - eps * np.eye(4, dtype=np.float32)[i]))) / (2 * eps)
                   for i in range(4)], axis=1)
    np.testing.assert_allclose(h, fd, rtol=2e-2, atol=2e-2)


def test_jacobian_input_checks():
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        jax.jacfwd(lambda x: x)(1)


# ---------------------------------------------------------------- vmap
def test_vmap_axes_variants():
    x, y = randn(3, 4), randn(4, 3)
    close(jax.vmap(lambda a, b: a * b, in_axes=(0, 1))(x, y), x * y.T)
    close(jax.vmap(lambda a, b: a * b, in_axes=(1, None))(y, y[:, 0]), (y * y[:, :1]).T)
    close(jax.vmap(lambda a: a, in_axes=-1, out_axes=1)(x), x)
    close(jax.vmap(jnp.sin, out_axes=-1)(x), np.sin(x).T)
    close(jax.vmap(lambda a, b: a - b, in_axes=[0, 0])(x, x), np.zeros_like(x))
    d = jax.vmap(lambda t: {"s": t["a"] + t["b"]}, in_axes=({"a": 0, "b": None},))(
        {"a": x, "b": x[0]})
    close(d["s"], x + x[0])
    close(jax.vmap(lambda a, *, k: a * k)(x, k=x), x * x)
    out = jax.vmap(lambda a: (a, 2.0), out_axes=(0, None))(x)
    close(out[1], 2.0)


def test_vmap_sizes_axis_size_and_empty():
    close(jax.vmap(lambda a: 2.0, in_axes=None, axis_size=3)(1.0), [2.0, 2.0, 2.0])
    assert jax.vmap(lambda a: a + 1.0)(jnp.ones((0, 3))).shape == (0, 3)
    close(jax.vmap(lambda a: a * a)(jnp.asarray(randn(3))).shape, (3,))


def test_vmap_errors():
    with pytest.raises(ValueError, match="vmap got inconsistent sizes for array axes to be mapped:\n"
                                         "  \\* one axis had size 3: axis 0 of argument x of type float32\\[3\\];\n"
                                         "  \\* one axis had size 4: axis 0 of argument y of type float32\\[4\\]"):
        jax.vmap(lambda x, y: x + y)(jnp.ones(3), jnp.ones(4))
    with pytest.raises(ValueError, match="vmap must have at least one non-None value in in_axes"):
        jax.vmap(lambda x, y: x + y, in_axes=(None, None))(jnp.ones(3), jnp.ones(4))
    with pytest.raises(ValueError, match="its rank should be at least 2, but is only 1"):
        jax.vmap(lambda x: x, in_axes=1)(jnp.ones(3))
    with pytest.raises(ValueError, match="len\\(in_axes\\)=2, len\\(args\\)=1"):
        jax.vmap(lambda x: x, in_axes=(0, 0))(jnp.ones(3))
    with pytest.raises(TypeError, match="vmap in_axes must be an int, None, or a tuple"):
        jax.vmap(lambda x: x, in_axes={"a": 0})(jnp.ones(3))
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        jax.vmap(lambda x: x, out_axes=None)(jnp.ones(3))
    with pytest.raises(core.ConcretizationTypeError):
        jax.vmap(lambda x: x if x > 0 else -x)(jnp.ones(3))


def test_vmap_integer_wraparound():
    big = np.array([2**31 - 1, 5], dtype=np.int32)
    out = np.asarray(jax.vmap(lambda a, b: a + b, in_axes=(0, None))(big, np.int32(1)))
    np.testing.assert_array_equal(out, np.array([-2**31, 6], dtype=np.int32))


def test_nested_vmap_and_vmap_of_reduction():
    x = randn(2, 3, 4)
    close(jax.vmap(jax.vmap(lambda a: jnp.sum(jnp.sin(a))))(x), np.sin(x).sum(-1), 1e-5)
    u, v = randn(4), randn(3)
    outer = jax.vmap(jax.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(None, 0))(u, v)
    close(outer, np.outer(v, u))


# ---------------------------------------------------------------- compositions
def test_per_example_gradients_vmap_of_grad():
    w = jnp.asarray(randn(3))
    xs, ys = randn(6, 3), randn(6)

    def loss(w, x, y):
        return (jnp.sum(jnp.sin(w * x)) - y) ** 2

    per_ex = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
    loop = np.stack([np.asarray(jax.grad(loss)(w, xs[i], ys[i])) for i in range(6)])
    close(per_ex, loop, 1e-5)


def test_grad_of_vmap():
    x = randn(5)
    close(jax.grad(lambda a: jnp.sum(jax.vmap(jnp.sin)(a)))(x), np.cos(x), 1e-6)
    close(jax.grad(lambda a: jnp.sum(jax.vmap(lambda u: u * a[0])(a)))(x),
          np.full(5, x[0]) + np.eye(5)[0] * np.sum(x), 1e-5)


def test_jit_under_transformations():
    f = jax.jit(lambda a: jnp.sin(a) * a)
    x = randn(4)
    close(jax.grad(lambda a: jnp.sum(f(a)))(x), np.sin(x) + x * np.cos(x), 1e-5)
    close(jax.vmap(f)(x), np.sin(x) * x)
    close(jax.jit(jax.grad(lambda a: jnp.sum(jnp.sin(a))))(x), np.cos(x))
    close(jax.jit(jax.vmap(jax.grad(jnp.sin)))(x), np.cos(x))


# ---------------------------------------------------------------- checkpoint
def test_checkpoint_equal_gradients():
    def f(x):
        return jnp.sum(jnp.sin(jnp.sin(x)) * x)
    x = randn(4)
    fc = jax.checkpoint(f)
    close(fc(x), f(x))
    close(jax.grad(fc)(x), jax.grad(f)(x), 1e-6)
    close(jax.grad(lambda a: jnp.sum(jax.grad(fc)(a)))(x), jax.grad(lambda a: jnp.sum(jax.grad(f)(a)))(x), 1e-5)
    close(jax.vmap(jax.grad(fc))(np.stack([x, 2 * x])), jax.vmap(jax.grad(f))(np.stack([x, 2 * x])), 1e-6)
    close(jax.jvp(fc, (x,), (x,))[1], jax.jvp(f, (x,), (x,))[1], 1e-5)
    assert "checkpoint" in str(jax.make_jaxpr(jax.grad(fc))(x))


def test_checkpoint_recomputes_in_backward_pass():
    _, f_jvp = jax.linearize(jax.checkpoint(lambda a: jnp.sin(jnp.sin(a))), 1.0)
    close(f_jvp(1.0), np.cos(np.sin(1.0)) * np.cos(1.0))
    from jaxweb._src.interpreters import ad
    _, jaxpr, consts = ad.linearize_flat(lambda a: [jax.checkpoint(lambda b: jnp.sin(jnp.sin(b)))(a)],
                                         [jnp.asarray(1.0)])
    # only the input is saved: the sines are recomputed inside the staged checkpoint
    assert len(consts) == 1 and float(consts[0]) == 1.0
    assert [e.primitive.name for e in jaxpr.eqns] == ["checkpoint"]


def test_checkpoint_static_argnums_policy_and_closure():
    c = jnp.asarray([1.0, 2.0])

    def f(x, n):
        for _ in range(n):
            x = jnp.sin(x) * c
        return jnp.sum(x)

    fc = jax.remat(f, static_argnums=1, policy=jax.checkpoint_policies.nothing_saveable)
    x = randn(2)
    close(jax.grad(fc)(x, 2), jax.grad(f)(x, 2), 1e-6)


# ---------------------------------------------------------------- the rule checker itself
def test_rule_checker_accepts_correct_rules():
    x, y = randn(3, 2), randn(3, 2)
    check_grads(lambda a, b: jnp.sin(a) * b, (x, y), order=2)
    check_vmap(lambda a, b: a * b, (x, y[0]), in_axes=(0, None))


def test_rule_checker_catches_wrong_rules():
    from jaxweb._src.interpreters import rules as R
    bad_p = core.Primitive("bad_sin")
    core.def_abstract_eval(bad_p)(lambda x: x)
    core.impl_rules[bad_p] = jnp.sin
    R.defjvp(bad_p, lambda t, x: t * 2.0)  # wrong: should be cos(x)
    R.primitive_batchers[bad_p] = lambda args, dims: (jnp.cos(args[0]), dims[0])  # wrong
    x = randn(4)
    with pytest.raises(AssertionError):
        check_jvp(bad_p.bind, (x,))
    with pytest.raises(AssertionError):
        check_vmap(bad_p.bind, (randn(2, 3),))
    lin_p = core.Primitive("bad_scale")
    core.def_abstract_eval(lin_p)(lambda x: x)
    core.impl_rules[lin_p] = lambda x: x * 2.0
    R.deflinear(lin_p, lambda ct, x: [ct * 3.0])  # wrong transpose: should be 2 ct
    with pytest.raises(AssertionError):
        check_vjp(lin_p.bind, (x,))


def test_constant_functions_and_low_precision_dtypes():
    assert float(jax.grad(lambda x: 3.0)(1.0)) == 0.0
    assert float(jax.grad(lambda x, y: y)(1.0, 2.0)) == 0.0
    for dt in (jnp.float16, jnp.bfloat16):
        x = jnp.asarray([0.5, 1.0], dtype=dt)
        g = jax.grad(lambda a: jnp.sum(jnp.sin(a) * a))(x)
        assert g.dtype == dt
        close(g, np.sin([0.5, 1.0]) + np.array([0.5, 1.0]) * np.cos([0.5, 1.0]), 2e-2)
    g = jax.grad(lambda x: x * 2.0)(1.0)
    assert g.weak_type and float(g) == 2.0


def test_disable_jit_and_block_until_ready():
    seen = []
    f = jax.jit(lambda x: seen.append(isinstance(x, core.Tracer)) or x * 2.0)
    with jax.disable_jit():
        close(f(1.0), 2.0)
    close(f(1.0), 2.0)
    assert seen == [False, True]
    tree = {"a": jnp.ones(2), "b": (jnp.zeros(()),)}
    assert jax.block_until_ready(tree) is tree


def test_tracers_support_len_and_iteration():
    close(jax.grad(lambda x: sum(x))(jnp.ones(3)), np.ones(3))
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda x: len(x))(jnp.ones((2, 3)))), [3, 3])
    rows = jax.jit(lambda x: [r * 2.0 for r in x])(jnp.ones((2, 3)))
    assert len(rows) == 2 and rows[0].shape == (3,)
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        jax.grad(lambda x: len(x))(1.0)
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        jax.make_jaxpr(lambda x: list(x))(1.0)


def test_aux_outputs_are_plain_values():
    x = jnp.asarray([1.0, 2.0])
    f = lambda a: (jnp.sum(jnp.sin(a)), a * 2.0)  # noqa: E731
    results = [jax.vjp(f, x, has_aux=True)[2], jax.jvp(f, (x,), (x,), has_aux=True)[2],
               jax.grad(f, has_aux=True)(x)[1], jax.jacrev(f, has_aux=True)(x)[1],
               jax.jacfwd(f, has_aux=True)(x)[1], jax.linearize(f, x, has_aux=True)[2]]
    for aux in results:
        assert isinstance(aux, jax.Array)
        close(aux, [2.0, 4.0])
    # an aux that depends on an outer transformation's input stays differentiable
    g = jax.grad(lambda b: jnp.sum(jax.grad(lambda a: (jnp.sum(a * b), a * b), has_aux=True)(b)[1]))(x)
    close(g, 2 * np.asarray(x))


def test_transformations_work_without_numpy():
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import sys
        sys.modules['numpy'] = None
        import jaxweb as jax, jaxweb.numpy as jnp
        x = jnp.asarray([1.0, 2.0])
        assert jax.hessian(lambda a: jnp.sum(a * a * a))(x).tolist() == [[6.0, 0.0], [0.0, 12.0]]
        assert jax.vmap(jax.grad(lambda a: a * a))(x).tolist() == [2.0, 4.0]
        assert jax.jit(lambda a: a * 2.0)(x).tolist() == [2.0, 4.0]
        print('ok')
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


# ---------------------------------------------------------------- named-axis collectives
def test_collectives_over_named_vmap_axes():
    from jaxweb._src.lax import parallel as P
    x = jnp.asarray([1.0, 2.0, 3.0])
    close(jax.vmap(lambda v: v / P.psum(v, "i"), axis_name="i")(x), np.array([1, 2, 3]) / 6)
    close(jax.vmap(lambda v: P.pmean(v, "i"), axis_name="i")(x), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda v: P.psum(1, "i"), axis_name="i")(x)), [3, 3, 3])
    close(jax.vmap(lambda v: P.pmax(v, "i") - P.pmin(v, "i"), axis_name="i")(x), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda v: P.axis_index("i"), axis_name="i")(x)),
                                  [0, 1, 2])
    xx = jnp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    inner = jax.vmap(jax.vmap(lambda v: P.psum(v, "j"), axis_name="j"), axis_name="i")(xx)
    outer = jax.vmap(jax.vmap(lambda v: P.psum(v, "i"), axis_name="j"), axis_name="i")(xx)
    both = jax.vmap(jax.vmap(lambda v: P.psum(v, ("i", "j")), axis_name="j"), axis_name="i")(xx)
    close(inner, [[3, 3, 3], [12, 12, 12]])
    close(outer, [[3, 5, 7], [3, 5, 7]])
    close(both, np.full((2, 3), 15.0))
    with pytest.raises(NameError, match="unbound axis name: i"):
        P.psum(x, "i")


def test_collectives_under_autodiff_jit_and_checkpoint():
    from jaxweb._src.lax import parallel as P
    x = jnp.asarray([1.0, 2.0, 3.0])
    close(jax.vmap(jax.grad(lambda v: P.psum(v * v, "i")), axis_name="i")(x), [6.0, 12.0, 18.0])
    f = lambda v: v * P.psum(v, "i")  # noqa: E731
    close(jax.grad(lambda a: jnp.sum(jax.vmap(f, axis_name="i")(a)))(x), [12.0, 12.0, 12.0])
    close(jax.grad(lambda a: jnp.sum(jax.vmap(jax.jit(f), axis_name="i")(a)))(x), [12.0, 12.0, 12.0])
    close(jax.vmap(jax.checkpoint(lambda v: v / P.psum(v, "i")), axis_name="i")(x), np.array([1, 2, 3]) / 6)
    close(jax.grad(lambda a: jnp.sum(jax.vmap(lambda v: P.pmax(v, "i"), axis_name="i")(a)))(x), [0, 0, 3])


def test_checkpoint_policies_choose_residuals():
    from jaxweb._src.interpreters import ad
    pols = jax.checkpoint_policies
    x = jnp.asarray(0.7)
    expected = jax.grad(lambda b: jnp.sin(jnp.sin(b)))(x)
    counts = {}
    for name, pol in [("none", None), ("all", pols.everything_saveable), ("nothing", pols.nothing_saveable)]:
        f = jax.checkpoint(lambda b: jnp.sin(jnp.sin(b)), policy=pol)
        _, _, consts = ad.linearize_flat(lambda a: [f(a)], [x])
        counts[name] = len(consts)
        close(jax.grad(f)(x), expected, 1e-6)
        close(jax.grad(jax.grad(f))(x), jax.grad(jax.grad(lambda b: jnp.sin(jnp.sin(b))))(x), 1e-5)
    assert counts == {"none": 1, "all": 2, "nothing": 1}  # all: cos(x), cos(sin x); else just x
    w = jnp.asarray(randn(3, 3))
    g = jax.checkpoint(lambda a: jnp.sum(jnp.sin(a @ w)), policy=pols.dots_saveable)
    close(jax.grad(g)(jnp.ones((2, 3))), jax.grad(lambda a: jnp.sum(jnp.sin(a @ w)))(jnp.ones((2, 3))), 1e-5)


def test_checkpoint_name_policies():
    from jaxweb._src.interpreters import ad
    from jaxweb.ad_checkpoint import checkpoint_name
    pols = jax.checkpoint_policies

    def f(b):
        h = checkpoint_name(jnp.sin(b), "h")
        return jnp.sin(h) * jnp.cos(b)

    assert "name[name=h]" in str(jax.make_jaxpr(f)(1.0))
    saved = {}
    for key, pol in [("only_h", pols.save_only_these_names("h")),
                     ("all_but_h", pols.save_anything_except_these_names("h")), ("none", None)]:
        g = jax.checkpoint(f, policy=pol)
        _, _, consts = ad.linearize_flat(lambda a: [g(a)], [jnp.asarray(0.7)])
        saved[key] = consts
        close(jax.grad(g)(0.7), jax.grad(f)(0.7), 1e-6)
    assert len(saved["none"]) == 1
    assert any(np.allclose(np.asarray(c), np.sin(0.7)) for c in saved["only_h"])  # h itself is saved
    assert len(saved["all_but_h"]) > len(saved["only_h"]) > len(saved["none"])
