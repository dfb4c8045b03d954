"""custom_jvp and custom_vjp: rules used by grad/jvp, preserved under vmap, jit and staging."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src import dtypes

rng = np.random.RandomState(0)


def randn(*shape):
    return rng.randn(*shape).astype(np.float32)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                               rtol=tol, atol=tol)


# ---------------------------------------------------------------- custom_jvp
@jax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


def _sigmoid(x):
    return 1 / (1 + np.exp(-np.asarray(x, np.float64)))


def test_custom_jvp_values_and_grad():
    x = randn(5)
    close(log1pexp(x), np.log1p(np.exp(x)))
    close(jax.grad(log1pexp)(3.0), _sigmoid(3.0))
    # the naive derivative is nan at 100 (inf/inf); the rule is not
    close(jax.grad(log1pexp)(100.0), 1.0)
    y, t = jax.jvp(log1pexp, (x,), (np.ones(5, np.float32),))
    close(t, _sigmoid(x))


def test_custom_jvp_under_vmap_jit_and_compositions():
    x = randn(6)
    close(jax.vmap(jax.grad(log1pexp))(x), _sigmoid(x))
    close(jax.grad(lambda a: jnp.sum(jax.vmap(log1pexp)(a)))(x), _sigmoid(x))
    close(jax.jit(jax.grad(log1pexp))(2.0), _sigmoid(2.0))
    close(jax.grad(jax.jit(log1pexp))(100.0), 1.0)
    close(jax.jit(jax.vmap(log1pexp))(x), np.log1p(np.exp(x)))
    s = _sigmoid(1.5)
    close(jax.grad(jax.grad(log1pexp))(1.5), s * (1 - s), 1e-4)


def test_custom_jvp_staged_in_jaxpr_and_rule_still_used():
    closed = jax.make_jaxpr(log1pexp)(1.0)
    text = str(closed)
    assert "custom_jvp_call[" in text and "call_jaxpr={ lambda ; " in text
    assert "jvp=_log1pexp_jvp" in text
    from jaxweb._src.jaxpr import eval_jaxpr
    g = jax.grad(lambda a: eval_jaxpr(closed.jaxpr, closed.consts, a)[0])(100.0)
    close(g, 1.0)


def test_custom_jvp_defjvps_nondiff_argnums_and_kwargs():
    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(lambda t, ans, x, y: jnp.cos(x) * y * t,
              lambda t, ans, x, y: jnp.sin(x) * t)
    gx, gy = jax.grad(f, argnums=(0, 1))(0.5, 2.0)
    close(gx, np.cos(0.5) * 2.0)
    close(gy, np.sin(0.5))
    close(jax.grad(lambda x: f(x, y=3.0))(0.5), np.cos(0.5) * 3.0)

    from functools import partial

    @partial(jax.custom_jvp, nondiff_argnums=(0,))
    def app(fn, x):
        return fn(x)

    @app.defjvp
    def app_jvp(fn, primals, tangents):
        (x,), (t,) = primals, tangents
        return app(fn, x), 10.0 * t

    close(jax.grad(lambda x: app(jnp.sin, x))(1.0), 10.0)
    close(jax.vmap(jax.grad(lambda x: app(jnp.sin, x)))(randn(3)), np.full(3, 10.0))


def test_custom_jvp_pytrees():
    @jax.custom_jvp
    def f(d):
        return {"out": d["a"] * d["b"]}

    @f.defjvp
    def f_jvp(primals, tangents):
        (d,), (t,) = primals, tangents
        return f(d), {"out": t["a"] * d["b"] + d["a"] * t["b"]}

    g = jax.grad(lambda a, b: f({"a": a, "b": b})["out"], argnums=(0, 1))(2.0, 3.0)
    close(g[0], 3.0)
    close(g[1], 2.0)


def test_custom_jvp_errors():
    @jax.custom_jvp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function f using defjvp"):
        f(1.0)

    f.defjvp(lambda p, t: (p[0], (t[0], t[0])))
    with pytest.raises(TypeError, match="Custom JVP rule must produce primal and tangent outputs"):
        jax.jvp(f, (1.0,), (1.0,))


# ---------------------------------------------------------------- custom_vjp
@jax.custom_vjp
def clip_gradient(x, lo, hi):
    return x


def _clip_fwd(x, lo, hi):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return (jnp.clip(g, lo, hi), None, None)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_custom_vjp_grad_values():
    f = lambda x: jnp.sum(clip_gradient(x, -0.5, 0.5) * 3.0)  # noqa: E731
    x = randn(4)
    close(jax.grad(f)(x), np.full(4, 0.5))
    close(clip_gradient(x, 0.0, 1.0), x)
    g = jax.grad(lambda x, lo: jnp.sum(clip_gradient(x, lo, 1.0)), argnums=(0, 1))(x, -1.0)
    close(g[0], np.ones(4))
    close(g[1], 0.0)


def test_custom_vjp_under_vmap_and_jit():
    xs = randn(3, 4)
    per_ex = jax.vmap(jax.grad(lambda x: jnp.sum(clip_gradient(x, -0.5, 0.5) * 3.0)))(xs)
    close(per_ex, np.full((3, 4), 0.5))
    g = jax.grad(lambda x: jnp.sum(jax.vmap(lambda r: clip_gradient(r, -0.5, 0.5) * 3.0)(x)))(xs)
    close(g, np.full((3, 4), 0.5))
    close(jax.jit(jax.grad(lambda x: jnp.sum(clip_gradient(x, -0.5, 0.5) * 3.0)))(xs[0]), np.full(4, 0.5))
    close(jax.grad(jax.jit(lambda x: jnp.sum(clip_gradient(x, -0.5, 0.5) * 3.0)))(xs[0]), np.full(4, 0.5))
    close(jax.vmap(lambda x: clip_gradient(x, 0.0, 1.0))(xs), xs)
    assert "custom_vjp_call[" in str(jax.make_jaxpr(lambda x: clip_gradient(x, 0.0, 1.0))(xs))


def test_custom_vjp_residual_pytrees_nondiff_and_multiple_outputs():
    from functools import partial

    @partial(jax.custom_vjp, nondiff_argnums=(1,))
    def f(x, scale):
        return jnp.sin(x) * scale, x

    def fwd(x, scale):
        return f(x, scale), {"c": jnp.cos(x)}

    def bwd(scale, res, cts):
        g_main, g_id = cts
        return (res["c"] * scale * g_main + g_id,)

    f.defvjp(fwd, bwd)
    x = randn(3)
    g = jax.grad(lambda a: jnp.sum(f(a, 2.0)[0]) + jnp.sum(f(a, 2.0)[1]))(x)
    close(g, 2.0 * np.cos(x) + 1.0)


def test_custom_vjp_second_order_through_bwd():
    @jax.custom_vjp
    def square(x):
        return x * x

    square.defvjp(lambda x: (x * x, x), lambda x, g: (2.0 * x * g,))
    close(jax.grad(square)(3.0), 6.0)
    close(jax.grad(jax.grad(square))(3.0), 2.0)


def test_custom_vjp_errors():
    @jax.custom_vjp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function f using defvjp"):
        f(1.0)
    f.defvjp(lambda x: (x, None), lambda res, g: (g, g))
    with pytest.raises(TypeError, match="number of primal"):
        jax.grad(f)(1.0)
    f.defvjp(lambda x: (x, None), lambda res, g: (g,))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(f, (1.0,), (1.0,))
    close(jax.grad(f)(1.0), 1.0)


def test_custom_vjp_integer_argument_gets_float0():
    @jax.custom_vjp
    def f(x, n):
        return x * n

    f.defvjp(lambda x, n: (x * n, n), lambda n, g: (g * n, None))
    gx, gn = jax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3)
    close(gx, 3.0)
    assert gn.dtype == dtypes.float0


def test_custom_rule_output_type_errors():
    @jax.custom_jvp
    def f(x):
        return x

    f.defjvp(lambda p, t: (p[0], jnp.ones(3)))
    with pytest.raises(TypeError, match=r"Expected float32\[\] \(tangent type of float32\[\]\) but got "
                                        r"float32\[3\]"):
        jax.jvp(f, (1.0,), (1.0,))

    @jax.custom_vjp
    def g(x):
        return x

    g.defvjp(lambda x: (x, None), lambda r, c: (jnp.ones(3),))
    with pytest.raises(ValueError, match="so the shapes do not match"):
        jax.grad(g)(1.0)
    g.defvjp(lambda x: (x, None), lambda r, c: [c])  # a list is accepted like a tuple
    close(jax.grad(g)(1.0), 1.0)


def test_custom_jvp_symbolic_zeros():
    from jaxweb._src.custom_derivatives import SymbolicZero
    seen = []

    @jax.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append((type(tx).__name__, type(ty).__name__))
        out_t = ty * x if isinstance(tx, SymbolicZero) else tx * y + ty * x
        return f(x, y), out_t

    f.defjvp(f_jvp, symbolic_zeros=True)
    close(jax.grad(f, argnums=1)(2.0, 3.0), 2.0)
    assert seen[-1][0] == "SymbolicZero" and seen[-1][1] != "SymbolicZero"
    close(jax.grad(f, argnums=(0, 1))(2.0, 3.0), (3.0, 2.0))


def test_traced_nondiff_argument_gets_zero_tangent_and_batches():
    from functools import partial

    @partial(jax.custom_jvp, nondiff_argnums=(1,))
    def h(x, n):
        return x * n

    @h.defjvp
    def h_jvp(n, p, t):
        return h(p[0], n), t[0] * n

    assert jax.vmap(h)(jnp.ones(2), jnp.asarray([2.0, 3.0])).tolist() == [2.0, 3.0]
    assert float(jax.grad(lambda n: h(1.0, n))(2.0)) == 0.0  # as JAX: no tangent through n
    assert float(jax.grad(h)(1.0, 3.0)) == 3.0


def test_custom_rules_see_default_arguments():
    @jax.custom_vjp
    def g(x, y=2.0):
        return x * y

    g.defvjp(lambda x, y: (g(x, y), y), lambda r, ct: (ct * r, ct))
    assert float(jax.grad(g)(1.0)) == 2.0

    @jax.custom_jvp
    def f(x, y=10.0):
        return x * y

    f.defjvp(lambda p, t: (f(*p), t[0] * p[1]))
    assert float(jax.grad(f)(1.0)) == 10.0
