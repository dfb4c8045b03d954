"""Differentiation through control flow: jvp and vjp against finite differences
(rule_checker.check_grads), gradients through scan (an RNN) and fori_loop, while_loop
in forward mode and its reverse-mode error, higher order, and composition with jit
and vmap, on every device."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from rule_checker import check_grads, numerical_jvp

pytestmark = pytest.mark.on_every_device

RNG = np.random.RandomState(0)


def close(a, b, tol=1e-4):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol)


def fd_grad(f, x, eps=1e-3):
    """Central-difference gradient of scalar f at float64 numpy x (f runs on numpy)."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# ---------------------------------------------------------------- cond / switch
def test_cond_grads():
    f = lambda x: lax.cond(x > 0, jnp.sin, lambda v: jnp.cos(v) * v, x)
    for x in (0.7, -0.4):
        check_grads(f, (np.float32(x),), order=2)
    assert float(jax.grad(f)(0.7)) == pytest.approx(np.cos(0.7), rel=1e-5)
    assert float(jax.grad(f)(-0.4)) == pytest.approx(np.cos(-0.4) + 0.4 * np.sin(-0.4), rel=1e-4)


def test_cond_grads_operands_and_closure():
    w = np.array([0.5, -1.0, 2.0], np.float32)

    def f(w, x, y):
        return lax.cond(x.sum() > 0, lambda a, b: (a * w).sum() * b, lambda a, b: jnp.tanh(a).sum() + b * b, x, y)

    x = RNG.randn(3).astype(np.float32)
    check_grads(f, (w, np.abs(x), np.float32(0.3)), order=2)
    check_grads(f, (w, -np.abs(x), np.float32(0.3)), order=2)
    # one branch does not depend on an operand: its cotangent is zero there
    g = jax.grad(lambda y: lax.cond(True, lambda v: 3.0 * v, lambda v: 1.0, y))(2.0)
    assert float(g) == 3.0
    g = jax.grad(lambda y: lax.cond(False, lambda v: 3.0 * v, lambda v: 1.0, y))(2.0)
    assert float(g) == 0.0


def test_switch_grads_and_integer_operand():
    branches = [lambda x, k: x * k, lambda x, k: jnp.sin(x) * k, lambda x, k: x ** 3]
    for i in range(3):
        check_grads(lambda x: lax.switch(i, branches, x, 2), (np.float32(0.6),), order=2)


def test_grad_of_vmap_cond_batched_predicate():
    f = lambda xs: jax.vmap(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(xs).sum()
    xs = np.array([0.5, -1.0, 2.0, -0.1], np.float32)
    close(jax.grad(f)(xs), np.where(xs > 0, np.cos(xs), -np.sin(xs)))
    check_grads(lambda x: jax.vmap(lambda v: lax.cond(v > 0, jnp.sin, jnp.cos, v))(x), (xs,), order=1)


def test_vmap_of_grad_cond():
    g = jax.vmap(jax.grad(lambda x: lax.cond(x > 0, lambda v: v * v, lambda v: -v, x)))
    xs = np.array([1.5, -2.0, 0.5], np.float32)
    close(g(xs), np.where(xs > 0, 2 * xs, -1.0))


# ---------------------------------------------------------------- scan
def _rnn_params():
    rng = np.random.RandomState(1)
    W = (rng.randn(3, 3) * 0.5).astype(np.float32)
    U = rng.randn(2, 3).astype(np.float32)
    xs = rng.randn(4, 2).astype(np.float32)
    return W, U, xs


def rnn_loss(W, U, xs, h0):
    def cell(h, x):
        h = jnp.tanh(h @ W + x @ U)
        return h, (h * h).sum()
    h, ys = lax.scan(cell, h0, xs)
    return h.sum() + ys.sum()


def np_rnn_loss(W, U, xs, h0):
    h, total = h0, 0.0
    for x in xs:
        h = np.tanh(h @ W + x @ U)
        total += (h * h).sum()
    return h.sum() + total


def test_scan_rnn_gradient_matches_finite_differences():
    W, U, xs = _rnn_params()
    h0 = np.array([0.1, -0.2, 0.3], np.float32)
    gW, gU, gx, gh = jax.grad(rnn_loss, argnums=(0, 1, 2, 3))(W, U, xs, h0)
    close(gW, fd_grad(lambda w: np_rnn_loss(w, U, xs, h0), W), 2e-3)
    close(gU, fd_grad(lambda u: np_rnn_loss(W, u, xs, h0), U), 2e-3)
    close(gx, fd_grad(lambda x: np_rnn_loss(W, U, x, h0), xs), 2e-3)
    close(gh, fd_grad(lambda h: np_rnn_loss(W, U, xs, h), h0), 2e-3)
    check_grads(rnn_loss, (W, U, xs, h0), order=1)
    # the same under jit, and jit of the gradient
    close(jax.grad(jax.jit(rnn_loss))(W, U, xs, h0), gW)
    close(jax.jit(jax.grad(rnn_loss))(W, U, xs, h0), gW)


def test_scan_grads_reverse_and_ys_only():
    xs = RNG.randn(5).astype(np.float32)

    def f(c0, xs):
        c, ys = lax.scan(lambda c, x: (c * jnp.sin(x) + x, c * x), c0, xs, reverse=True)
        return c, ys
    check_grads(f, (np.float32(0.4), xs), order=2)
    check_grads(lambda xs: lax.scan(lambda c, x: (c, jnp.exp(x) * 2), 0.0, xs)[1], (xs,), order=2)
    check_grads(lambda xs: lax.scan(lambda c, x: (c, jnp.exp(x) * 2), 0.0, xs, unroll=2)[1], (xs,), order=1)


def test_scan_grads_pytree_carry_and_int_carry():
    def f(a, xs):
        def body(c, x):
            i, (u, v) = c
            return (i + 1, (u * x + v, v * jnp.cos(x) + i)), u * v
        (i, (u, v)), ys = lax.scan(body, (0, (a, a * 2)), xs)
        return u + v + ys.sum()
    check_grads(f, (np.float32(0.3), RNG.randn(4).astype(np.float32)), order=2)


def test_grad_of_grad_through_scan():
    def f(x):
        return lax.scan(lambda c, _: (jnp.sin(c) * 1.5, None), x, None, length=3)[0]

    def np_f(x):
        for _ in range(3):
            x = np.sin(x) * 1.5
        return x
    d1 = jax.grad(f)
    d2 = jax.grad(d1)
    x = 0.4
    assert float(d1(x)) == pytest.approx(fd_grad(lambda v: np_f(v), np.float64(x)), rel=1e-3)
    assert float(d2(x)) == pytest.approx(
        fd_grad(lambda v: float(d1(np.float32(v))), np.float64(x), eps=1e-2), rel=2e-2)
    check_grads(f, (np.float32(x),), order=2)


def test_vmap_of_grad_and_grad_of_vmap_scan():
    W, U, xs = _rnn_params()
    h0s = RNG.randn(3, 3).astype(np.float32) * 0.3
    per = jax.vmap(jax.grad(rnn_loss, argnums=3), in_axes=(None, None, None, 0))(W, U, xs, h0s)
    for k in range(3):
        close(per[k], jax.grad(rnn_loss, argnums=3)(W, U, xs, h0s[k]))
    total = jax.grad(lambda W: jax.vmap(rnn_loss, in_axes=(None, None, None, 0))(W, U, xs, h0s).sum())(W)
    close(total, sum(np.asarray(jax.grad(rnn_loss)(W, U, xs, h0s[k])) for k in range(3)), 1e-3)


def test_linearize_scan_and_linear_transpose():
    xs = RNG.randn(4).astype(np.float32)
    f = lambda c, xs: lax.scan(lambda c, x: (c * x + jnp.sin(c), c), c, xs)
    y, f_jvp = jax.linearize(f, np.float32(0.5), xs)
    _, t = jax.jvp(f, (np.float32(0.5), xs), (np.float32(1.0), np.ones(4, np.float32)))
    got = f_jvp(np.float32(1.0), np.ones(4, np.float32))
    close(got[0], t[0])
    close(got[1], t[1])
    cumsum = lambda xs: lax.scan(lambda c, x: (c + x, c + x), 0.0, xs)[1]
    (ct,) = jax.linear_transpose(cumsum, xs)(np.ones(4, np.float32))
    close(ct, [4, 3, 2, 1])


# ---------------------------------------------------------------- fori_loop / while_loop
def test_fori_loop_static_bounds_gradient():
    def f(x, w):
        return lax.fori_loop(0, 4, lambda i, c: jnp.sin(c * w) + i * 0.1, x)

    def np_f(x, w):
        for i in range(4):
            x = np.sin(x * w) + i * 0.1
        return x
    g = jax.grad(f, argnums=(0, 1))(0.3, 1.2)
    assert float(g[0]) == pytest.approx(fd_grad(lambda v: np_f(v, 1.2), np.float64(0.3)), rel=1e-3)
    assert float(g[1]) == pytest.approx(fd_grad(lambda v: np_f(0.3, v), np.float64(1.2)), rel=1e-3)
    check_grads(f, (np.float32(0.3), np.float32(1.2)), order=2)
    # bounds concrete inside grad (only x is differentiated): still a scan
    n = 3
    assert float(jax.grad(lambda x: lax.fori_loop(0, n, lambda i, c: c * c, x))(1.1)) == \
        pytest.approx(8 * 1.1 ** 7, rel=1e-4)


def test_while_loop_forward_mode_and_linearize():
    f = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * 2), (0, x))[1]

    def np_f(x):
        for _ in range(3):
            x = np.sin(x) * 2
        return x
    y, t = jax.jvp(f, (0.3,), (1.0,))
    assert float(y) == pytest.approx(np_f(0.3), rel=1e-5)
    assert float(t) == pytest.approx(fd_grad(np_f, np.float64(0.3)), rel=1e-3)
    check_grads(f, (np.float32(0.3),), order=2, modes=("fwd",))
    y2, f_jvp = jax.linearize(f, 0.3)
    assert float(y2) == pytest.approx(float(y)) and float(f_jvp(1.0)) == pytest.approx(float(t), rel=1e-5)
    close(jax.jacfwd(f)(0.3), t)


def test_while_loop_reverse_mode_raises_jax_error():
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2, x)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop "
                                         "or lax.fori_loop with dynamic start/stop values"):
        jax.grad(f)(1.5)
    g = jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2, x))
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.grad(g)(1.0, 3)


def test_while_jvp_with_batched_predicate():
    f = lambda n, x: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
    ns = np.array([0, 1, 3], np.int32)
    xs = np.array([2.0, 1.5, 0.5], np.float32)
    y, t = jax.jvp(lambda x: jax.vmap(f)(ns, x), (xs,), (np.ones(3, np.float32),))
    close(y, xs ** (ns + 1))
    close(t, (ns + 1) * xs ** ns)


# ---------------------------------------------------------------- nesting
def test_scan_inside_cond_and_cond_inside_scan():
    xs = RNG.randn(4).astype(np.float32)

    def scan_in_cond(p, w, xs):
        return lax.cond(p, lambda xs: lax.scan(lambda c, x: (c * w + x, c), 0.0, xs)[0],
                        lambda xs: (xs * w).sum(), xs)

    for p in (True, False):
        check_grads(lambda w, xs: scan_in_cond(p, w, xs), (np.float32(0.7), xs), order=1)

    def cond_in_scan(w, xs):
        def body(c, x):
            c = lax.cond(x > 0, lambda c: c * w + x, lambda c: jnp.sin(c) - x, c)
            return c, c * c
        c, ys = lax.scan(body, 0.2, xs)
        return c + ys.sum()

    def np_cond_in_scan(w, xs):
        c, total = 0.2, 0.0
        for x in xs:
            c = c * w + x if x > 0 else np.sin(c) - x
            total += c * c
        return c + total
    assert float(cond_in_scan(0.7, xs)) == pytest.approx(np_cond_in_scan(0.7, xs), rel=1e-5)
    assert float(jax.grad(cond_in_scan)(0.7, xs)) == \
        pytest.approx(fd_grad(lambda w: np_cond_in_scan(w, xs), np.float64(0.7)), rel=1e-3)
    check_grads(cond_in_scan, (np.float32(0.7), xs), order=2)
    close(jax.jit(jax.grad(cond_in_scan))(0.7, xs), jax.grad(cond_in_scan)(0.7, xs))


def test_scan_inside_scan_and_fori_inside_scan():
    xss = RNG.randn(3, 4).astype(np.float32)

    def f(w, xss):
        def outer(c, xs):
            inner, _ = lax.scan(lambda d, x: (jnp.tanh(d * w + x), None), c, xs)
            c = lax.fori_loop(0, 2, lambda i, v: v * 0.9 + inner, c)
            return c, inner
        return lax.scan(outer, 0.1, xss)
    check_grads(f, (np.float32(0.8), xss), order=2)
    check_grads(jax.jit(f), (np.float32(0.8), xss), order=1)


def test_checkpointed_scan_body():
    W, U, xs = _rnn_params()

    def loss(W):
        cell = jax.checkpoint(lambda h, x: (jnp.tanh(h @ W + x @ U),) * 2)
        h, hs = lax.scan(cell, jnp.zeros(3), xs)
        return (hs * hs).sum()
    check_grads(loss, (W,), order=1)


def test_numerical_jvp_helper_agrees_on_scan():
    # the finite-difference oracle itself on a scan (sanity of the test helper)
    f = lambda x: lax.scan(lambda c, x: (c * x, c), 1.0, x)[0]
    x = np.array([1.5, 2.0, 0.5], np.float32)
    num, _ = numerical_jvp(f, [jnp.asarray(x)], [jnp.asarray(np.array([1.0, 0.0, 0.0], np.float32))], 1e-3)
    assert num[0] == pytest.approx(1.0, rel=1e-2)


def test_custom_derivatives_inside_loops():
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)
    f.defjvp(lambda p, t: (jnp.sin(p[0]), 2.0 * t[0]))  # a rule that differs from sin's

    @jax.custom_vjp
    def h(x):
        return jnp.sin(x)
    h.defvjp(lambda x: (jnp.sin(x), x), lambda r, ct: (3.0 * ct,))

    g = lambda x: lax.scan(lambda c, _: (f(c), None), x, None, length=2)[0]
    assert float(jax.grad(g)(0.3)) == 4.0
    assert float(jax.jit(jax.grad(g))(0.3)) == 4.0
    close(jax.vmap(jax.grad(g))(np.array([0.3, 0.5], np.float32)), [4.0, 4.0])
    k = lambda x: lax.scan(lambda c, _: (h(c), None), x, None, length=2)[0]
    assert float(jax.grad(k)(0.3)) == 9.0
    assert float(jax.grad(lambda x: lax.cond(x > 0, h, jnp.cos, x))(0.3)) == 3.0
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(k, (0.3,), (1.0,))


def test_collective_inside_scan_under_named_vmap():
    def body(c, x):
        return c + lax.psum(x, "i"), c
    c, ys = jax.vmap(lambda xs: lax.scan(body, 0.0, xs), axis_name="i")(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    close(c, [15.0, 15.0])
    close(ys, [[0.0, 3.0, 8.0]] * 2)


def test_jacobians_and_hessian_through_scan():
    f = lambda x: lax.scan(lambda c, a: (c * a, c), 1.0, x)[1]
    x = np.array([2.0, 3.0, 4.0], np.float32)
    want = [[0, 0, 0], [1, 0, 0], [3, 2, 0]]
    close(jax.jacrev(f)(x), want)
    close(jax.jacfwd(f)(x), want)
    r = lambda x: lax.scan(lambda c, a: (c * a * a, c), 1.0, x)[0]  # prod(x)^2
    hx = np.asarray(jax.hessian(r)(x), np.float64)
    p = np.prod(x.astype(np.float64)) ** 2
    close(hx, 4 * p / np.outer(x, x) - np.diag(2 * p / x ** 2), 1e-3)


def test_staged_partial_eval_rules_under_jit():
    # grad/linearize of a jitted function split the control flow inside the jaxpr
    # (partial_eval_jaxpr_rules), not at trace level
    f = jax.jit(lambda w, x: lax.cond(x > 0, lambda v: jnp.sin(v * w), lambda v: v * w * w, x))
    for x in (0.5, -0.5):
        check_grads(f, (np.float32(1.3), np.float32(x)), order=1)
    g = jax.jit(lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) + c[1]), (0, x))[1])
    y, g_jvp = jax.linearize(g, 0.4)
    _, t = jax.jvp(g, (0.4,), (1.0,))
    assert float(g_jvp(1.0)) == pytest.approx(float(t), rel=1e-5)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.grad(g)(0.4)

    def h(w, xs):  # a while loop inside a scan, in forward mode
        body = lambda c, x: (lax.while_loop(lambda d: d[0] < 2, lambda d: (d[0] + 1, d[1] * w + x), (0, c))[1], c)
        return lax.scan(body, 0.1, xs)
    xs = RNG.randn(3).astype(np.float32)
    check_grads(h, (np.float32(0.7), xs), order=1, modes=("fwd",))
    check_grads(jax.jit(h), (np.float32(0.7), xs), order=1, modes=("fwd",))
    _, h_jvp = jax.linearize(jax.jit(h), np.float32(0.7), xs)
    _, th = jax.jvp(h, (np.float32(0.7), xs), (np.float32(1.0), np.zeros(3, np.float32)))
    close(h_jvp(np.float32(1.0), np.zeros(3, np.float32))[1], th[1])
