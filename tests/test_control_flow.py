"""Control flow (lax.cond, switch, while_loop, fori_loop, scan, map, associative_scan):
values against Python loops over numpy, vmap against a Python loop of calls, jit,
on every device. Differentiation is in test_control_flow_ad.py, jaxprs and errors
in test_control_flow_jaxpr.py."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

pytestmark = pytest.mark.on_every_device


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol)


# ---------------------------------------------------------------- cond / switch
def test_cond_picks_branch_and_runs_only_it_eagerly():
    calls = []

    def t(x):
        calls.append("t")
        return x + 1.0

    def f(x):
        calls.append("f")
        return x * 10.0

    assert float(lax.cond(True, t, f, 2.0)) == 3.0
    assert float(lax.cond(False, t, f, 2.0)) == 20.0
    assert float(lax.cond(jnp.int32(3), t, f, 2.0)) == 3.0  # a nonzero number is true
    assert float(lax.cond(0.0, t, f, 2.0)) == 20.0
    assert calls.count("t") == calls.count("f") == 4  # both branches are traced every time


def test_cond_pytrees_and_several_operands():
    def t(a, b):
        return {"s": a["x"] + b, "p": (a["y"] * b, b)}

    def f(a, b):
        return {"s": a["x"] - b, "p": (a["y"] / b, -b)}

    a = {"x": jnp.arange(3.0), "y": jnp.float32(2.0)}
    out = lax.cond(False, t, f, a, jnp.float32(4.0))
    close(out["s"], np.arange(3.0) - 4)
    close(out["p"][0], 0.5)
    close(out["p"][1], -4.0)
    out = lax.cond(True, t, f, a, jnp.float32(4.0))
    close(out["s"], np.arange(3.0) + 4)


def test_cond_closes_over_values_and_zero_operands():
    w = jnp.array([1.0, 2.0, 3.0])
    assert float(lax.cond(True, lambda: w.sum(), lambda: w.max())) == 6.0
    assert float(lax.cond(False, lambda: w.sum(), lambda: w.max())) == 3.0


def test_switch_clamps_index():
    branches = [lambda x: x + 1, lambda x: x * 2, lambda x: x - 100]
    got = [int(lax.switch(i, branches, jnp.int32(5))) for i in (-3, 0, 1, 2, 7)]
    assert got == [6, 6, 10, -95, -95]
    assert int(lax.switch(0, [lambda x: x * 3], 4)) == 12  # one branch: just called


def test_cond_under_jit_with_traced_predicate():
    f = jax.jit(lambda x: lax.cond(x.sum() > 0, lambda v: jnp.sin(v), lambda v: jnp.cos(v) * 2, x))
    x = np.array([0.5, -0.2, 1.0], np.float32)
    close(f(x), np.sin(x))
    close(f(-x), np.cos(-x) * 2)


def test_switch_under_jit_and_vmap_batched_index():
    branches = [lambda x: x + 1.0, lambda x: x * x, lambda x: -x]
    f = jax.jit(lambda i, x: lax.switch(i, branches, x))
    assert float(f(1, 3.0)) == 9.0
    idx = np.array([0, 1, 2, 5, -1], np.int32)
    xs = np.arange(5, dtype=np.float32)
    want = [[x + 1, x * x, -x][min(max(i, 0), 2)] for i, x in zip(idx, xs)]
    close(jax.vmap(lambda i, x: lax.switch(i, branches, x))(idx, xs), want)
    close(jax.jit(jax.vmap(f))(idx, xs), want)


def test_vmap_cond_batched_predicate_is_a_select():
    def f(x, y):
        return lax.cond(x > y, lambda a, b: (a - b, a * 2), lambda a, b: (b - a, b * 3), x, y)

    xs = np.array([1.0, 5.0, -2.0, 3.0], np.float32)
    ys = np.array([2.0, 1.0, -3.0, 3.0], np.float32)
    d, m = jax.vmap(f)(xs, ys)
    close(d, np.abs(xs - ys))
    close(m, np.where(xs > ys, xs * 2, ys * 3))
    d, m = jax.vmap(f, in_axes=(0, None))(xs, np.float32(2.0))
    close(m, np.where(xs > 2, xs * 2, 6.0))


def test_vmap_cond_unbatched_predicate_batches_branches():
    def f(p, x):
        return lax.cond(p, lambda v: v.sum() * 2, lambda v: v.max(), x)

    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    close(jax.vmap(f, in_axes=(None, 0))(True, xs), xs.sum(1) * 2)
    close(jax.vmap(f, in_axes=(None, 1))(False, xs), xs.max(0))


# ---------------------------------------------------------------- while / fori
def test_while_loop_values():
    def collatz(n):
        def body(c):
            n, steps = c
            return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1
        return lax.while_loop(lambda c: c[0] != 1, body, (n, 0))[1]

    def py(n):
        s = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            s += 1
        return s

    assert [int(collatz(jnp.int32(n))) for n in (1, 6, 7, 27)] == [py(n) for n in (1, 6, 7, 27)]
    assert int(jax.jit(collatz)(27)) == py(27)


def test_while_loop_zero_iterations_and_pytree_carry():
    out = lax.while_loop(lambda c: c["i"] < 0, lambda c: {"i": c["i"] + 1, "v": c["v"] * 2},
                         {"i": jnp.int32(3), "v": jnp.ones(2)})
    assert int(out["i"]) == 3
    close(out["v"], [1, 1])


def test_while_loop_weak_init_promotes():
    # a Python int carry that the body makes a float is promoted, as JAX does
    out = lax.while_loop(lambda c: c < 5.0, lambda c: c + 1.5, 0)
    assert out.dtype == jnp.float32 and float(out) == 6.0


def test_vmap_while_batched_predicate_runs_each_example_to_its_end():
    def f(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, jnp.float32(1.0)))

    ns = np.array([0, 3, 1, 5], np.int32)
    xs = np.array([2.0, 2.0, 3.0, 1.5], np.float32)
    i, p = jax.vmap(f)(ns, xs)
    assert list(np.asarray(i)) == list(ns)
    close(p, xs ** ns)
    i, p = jax.jit(jax.vmap(f))(ns, xs)
    close(p, xs ** ns)
    # the predicate batched only through a const; the carry becomes batched too
    i, p = jax.vmap(f, in_axes=(0, None))(ns, np.float32(2.0))
    close(p, 2.0 ** ns)


def test_vmap_while_unbatched_predicate_batched_carry():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * 2 + 1), (0, x))[1]

    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    close(jax.vmap(f)(xs), xs * 16 + 15)
    close(jax.vmap(jax.vmap(f))(xs), xs * 16 + 15)
    close(jax.vmap(f, in_axes=1)(xs), (xs * 16 + 15).T)


def test_nested_vmap_while_batched_predicates():
    def f(n, m):
        return lax.while_loop(lambda c: c < n * m, lambda c: c + 1, 0)

    ns = np.array([1, 2, 3], np.int32)
    ms = np.array([0, 2], np.int32)
    got = jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None))(ns, ms)
    assert np.asarray(got).tolist() == (ns[:, None] * ms[None, :]).tolist()


def test_fori_loop_static_and_traced_bounds():
    body = lambda i, c: c * 2.0 + i
    want = 1.0
    for i in range(2, 7):
        want = want * 2 + i
    assert float(lax.fori_loop(2, 7, body, 1.0)) == want
    assert float(lax.fori_loop(5, 2, body, 1.0)) == 1.0  # upper <= lower: no iterations
    f = jax.jit(lambda lo, hi, x: lax.fori_loop(lo, hi, body, x))
    assert float(f(2, 7, 1.0)) == want
    assert float(f(5, 2, 1.0)) == 1.0
    assert float(lax.fori_loop(0, 4, lambda i, c: c + i, 0, unroll=2)) == 6


def test_fori_loop_vmap_batched_bounds():
    # the use case of jaxweb.random: a trip count that differs per example
    f = lambda n, x: lax.fori_loop(0, n, lambda i, c: c + x * i, jnp.float32(0.0))
    ns = np.array([0, 1, 4, 3], np.int32)
    xs = np.array([1.0, 2.0, 3.0, 0.5], np.float32)
    close(jax.vmap(f)(ns, xs), xs * ns * (ns - 1) / 2)
    close(jax.vmap(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(xs), xs ** 3)


def test_fori_loop_array_carry_uses_index():
    def body(i, x):
        return x.at[i].set(x[i - 1] * 2)

    out = lax.fori_loop(1, 5, body, jnp.ones(5))
    close(out, [1, 2, 4, 8, 16])
    out = jax.jit(lambda n: lax.fori_loop(1, n, body, jnp.ones(5)))(5)
    close(out, [1, 2, 4, 8, 16])


# ---------------------------------------------------------------- scan / map
def np_scan(f, init, xs, reverse=False):
    carry, ys = init, []
    order = range(len(xs))[::-1] if reverse else range(len(xs))
    for i in order:
        carry, y = f(carry, xs[i])
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, np.stack(ys)


def test_scan_cumsum_and_products():
    xs = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    f = lambda c, x: (c + x, c * x)
    for reverse in (False, True):
        for unroll in (1, 2, 3, True):
            c, ys = lax.scan(f, 0.0, xs, reverse=reverse, unroll=unroll)
            wc, wys = np_scan(f, 0.0, xs, reverse)
            close(c, wc)
            close(ys, wys)


def test_scan_pytrees_xs_none_and_length():
    def f(carry, x):
        a, b = carry
        return (a + x["u"], b * 2), {"sum": a + b, "u2": x["u"] * x["v"]}

    xs = {"u": np.arange(4, dtype=np.float32), "v": np.ones((4, 2), np.float32)}
    (a, b), ys = lax.scan(f, (jnp.float32(0.0), jnp.float32(1.0)), xs)
    close(a, 6.0)
    close(b, 16.0)
    close(ys["sum"], [1.0, 2.0, 5.0, 11.0])
    close(ys["u2"], np.arange(4)[:, None] * np.ones((4, 2)))
    c, ys = lax.scan(lambda c, _: (c + 1, c * c), jnp.int32(1), None, length=4)
    assert int(c) == 5 and np.asarray(ys).tolist() == [1, 4, 9, 16]
    c, ys = lax.scan(lambda c, _: (c, None), 3.0, None, length=2)
    assert float(c) == 3.0 and ys is None


def test_scan_zero_length():
    c, ys = lax.scan(lambda c, x: (c + x, c * 2), jnp.float32(1.0), jnp.zeros((0,)))
    assert float(c) == 1.0 and ys.shape == (0,)


def test_scan_rnn_forward_matches_python():
    rng = np.random.RandomState(0)
    W = rng.randn(3, 3).astype(np.float32) * 0.5
    U = rng.randn(2, 3).astype(np.float32)
    xs = rng.randn(5, 2).astype(np.float32)

    def cell(h, x):
        h = jnp.tanh(h @ W + x @ U)
        return h, h.sum()

    h, ys = lax.scan(cell, jnp.zeros(3), xs)
    wh, wys = np_scan(lambda h, x: (np.tanh(h @ W + x @ U),) * 2, np.zeros(3), xs)
    close(h, wh, 1e-5)
    close(ys, wys.sum(1), 1e-5)
    h2, ys2 = jax.jit(lambda x: lax.scan(cell, jnp.zeros(3), x))(xs)
    close(h2, wh, 1e-5)


def test_scan_under_jit_with_traced_consts():
    f = jax.jit(lambda w, xs: lax.scan(lambda c, x: (c * w + x, c), jnp.float32(0.0), xs))
    c, ys = f(np.float32(2.0), np.array([1.0, 1.0, 1.0], np.float32))
    assert float(c) == 7.0 and np.asarray(ys).tolist() == [0.0, 1.0, 3.0]


def test_vmap_scan():
    def f(init, xs):
        return lax.scan(lambda c, x: (c * 0.5 + x, c + x), init, xs)

    inits = np.arange(3, dtype=np.float32)
    xss = np.arange(12, dtype=np.float32).reshape(3, 4)
    c, ys = jax.vmap(f)(inits, xss)
    for k in range(3):
        wc, wys = np_scan(lambda c, x: (c * 0.5 + x, c + x), inits[k], xss[k])
        close(c[k], wc)
        close(ys[k], wys)
    # batched xs only: the carry becomes batched through the body
    c, ys = jax.vmap(f, in_axes=(None, 0))(np.float32(1.0), xss)
    wc, _ = np_scan(lambda c, x: (c * 0.5 + x, c + x), 1.0, xss[2])
    close(c[2], wc)
    # batched along another axis
    c2, ys2 = jax.vmap(f, in_axes=(0, 1), out_axes=(0, 1))(inits, xss.T.copy())
    close(ys2, np.asarray(jax.vmap(f)(inits, xss)[1]).T)


def test_map_and_batch_size():
    xs = np.arange(10, dtype=np.float32)
    for bs in (None, 0, 1, 3, 5, 20):
        close(lax.map(lambda x: x * x + 1, xs, batch_size=bs), xs * xs + 1)
    out = lax.map(lambda p: {"s": p[0] + p[1], "d": p[0] - p[1]}, (xs, xs * 2), batch_size=4)
    close(out["s"], xs * 3)
    close(out["d"], -xs)


# ---------------------------------------------------------------- associative_scan
def test_associative_scan():
    for n in (1, 2, 5, 8, 13):
        x = np.arange(1, n + 1, dtype=np.float32)
        close(lax.associative_scan(jnp.add, x), np.cumsum(x))
        close(lax.associative_scan(jnp.add, x, reverse=True), np.cumsum(x[::-1])[::-1])
        close(lax.associative_scan(jnp.maximum, np.sin(x)), np.maximum.accumulate(np.sin(x)))
    m = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    close(lax.associative_scan(jnp.add, m, axis=1), np.cumsum(m, 1))
    close(lax.associative_scan(jnp.add, m, axis=-1, reverse=True), np.cumsum(m[..., ::-1], -1)[..., ::-1])


def test_associative_scan_pytree_non_commutative():
    # composition of affine maps x -> a x + b (associative, not commutative)
    def compose(f, g):
        return (g[0] * f[0], g[0] * f[1] + g[1])

    a = np.array([2.0, 0.5, 3.0, 1.0, -1.0], np.float32)
    b = np.array([1.0, 2.0, 0.0, 1.0, 1.0], np.float32)
    A, B = lax.associative_scan(compose, (a, b))
    wa, wb, ca, cb = [], [], 1.0, 0.0
    for ai, bi in zip(a, b):
        ca, cb = ai * ca, ai * cb + bi
        wa.append(ca)
        wb.append(cb)
    close(A, wa)
    close(B, wb)
    bools = np.array([False, True, False, False], bool)
    assert np.asarray(lax.associative_scan(jnp.logical_or, bools)).tolist() == [False, True, True, True]
