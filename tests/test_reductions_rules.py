"""Transformation rules of the reduction, dot, conv, window, cumulative and sort primitives:
jvp vs finite differences, vjp vs jvp (dot-product test), vmap vs a Python loop."""
import numpy as np
import pytest
from rule_checker import check_grads, check_vmap

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax


pytestmark = pytest.mark.on_every_device  # see conftest.py


rng = np.random.RandomState(3)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def distinct(*shape):
    """Well-separated values (no ties, so max/sort derivatives are smooth at the point)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).astype(np.float32) * 0.5 - n / 4 + 0.1).reshape(shape)


# ---------------------------------------------------------------- grads
GRAD_CASES = {
    "reduce_sum": (lambda x: lax.reduce_sum(x, (0, 2)), [(3, 4, 2)], 2),
    "reduce_max": (lambda x: lax.reduce_max(x, (1,)), [(3, 4)], 2),
    "reduce_min": (lambda x: lax.reduce_min(x, (0, 1)), [(3, 4)], 1),
    "reduce_prod": (lambda x: lax.reduce_prod(x, (1,)), [(3, 4)], 2),
    "cumsum": (lambda x: lax.cumsum(x, 1, reverse=True), [(3, 4)], 2),
    "cumprod": (lambda x: lax.cumprod(x, 0), [(4, 3)], 2),
    "cummax": (lambda x: lax.cummax(x, 1), [(3, 5)], 1),
    "cummin": (lambda x: lax.cummin(x, 0, reverse=True), [(4, 3)], 1),
    "cumlogsumexp": (lambda x: lax.cumlogsumexp(x, 1), [(2, 5)], 1),
    "dot_general": (lambda x, y: lax.dot_general(x, y, (((2,), (0,)), ((0,), (1,)))), [(2, 3, 4), (4, 2, 5)], 2),
    "dot_general_multi": (lambda x, y: lax.dot_general(x, y, (((2, 0), (0, 1)), ((), ()))),
                          [(2, 3, 4), (4, 2, 5)], 1),
    "conv": (lambda x, w: lax.conv_general_dilated(x, w, (2, 1), ((1, 2), (0, 1)), (1, 2), (2, 1),
                                                   feature_group_count=2), [(2, 4, 5, 4), (4, 2, 2, 2)], 1),
    "conv_batch_groups": (lambda x, w: lax.conv_general_dilated(x, w, (1,), ((0, 1),), batch_group_count=2),
                          [(4, 3, 5), (4, 3, 2)], 1),
    "conv_nhwc": (lambda x, w: lax.conv_general_dilated(x, w, (1, 2), "SAME",
                                                        dimension_numbers=("NHWC", "HWIO", "NHWC")),
                  [(1, 4, 5, 2), (3, 2, 2, 3)], 1),
    "reduce_window_sum": (lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 3), (2, 1), ((1, 0), (1, 2)),
                                                      (1, 2), (2, 1)), [(5, 4)], 2),
    "reduce_window_max": (lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 2), "SAME"), [(4, 5)], 2),
    "reduce_window_min": (lambda x: lax.reduce_window(x, np.inf, lax.min, (3,), (2,), ((1, 1),),
                                                      None, (2,)), [(7,)], 1),
    "sort": (lambda x: lax.sort(x, dimension=0), [(4, 3)], 2),
    "sort_multi": (lambda x, y: lax.sort((x, y), dimension=1, num_keys=1), [(3, 4), (3, 4)], 1),
    "top_k": (lambda x: lax.top_k(x, 2)[0], [(3, 5)], 2),
    "median": (lambda x: jnp.median(x, axis=1), [(4, 5)], 1),
    "einsum": (lambda x, y: jnp.einsum("bij,bjk->bik", x, y), [(2, 3, 4), (2, 4, 2)], 2),
    "var": (lambda x: jnp.var(x, axis=1), [(3, 4)], 2),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grads(name):
    f, shapes, order = GRAD_CASES[name]
    args = [distinct(*s) * 0.1 if "max" in name or "min" in name or "sort" in name or "top" in name
            else randn(*s) for s in shapes]
    check_grads(f, args, order=order, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)


def test_reduce_max_jvp_splits_ties_like_jax():
    x = jnp.asarray([1., 3., 3., 2.])
    _, t = jaxweb.jvp(lambda v: lax.reduce_max(v, (0,)), (x,), (jnp.asarray([1., 10., 100., 1000.]),))
    assert float(t) == 55.0  # JAX: the tangent is averaged over the tied maxima
    g = jaxweb.grad(lambda v: jnp.min(v))(jnp.asarray([1., 1., 2.]))
    assert g.tolist() == [0.5, 0.5, 0.0]


def test_reduce_prod_grad_with_zeros():
    g = jaxweb.grad(lambda v: jnp.prod(v))(jnp.asarray([0., 2., 3.]))
    assert g.tolist() == [6.0, 0.0, 0.0]
    g = jaxweb.grad(lambda v: jnp.prod(v))(jnp.asarray([0., 0., 3.]))
    assert g.tolist() == [0.0, 0.0, 0.0]


def test_reduce_window_max_grad_picks_first_like_jax():
    f = lambda v: jnp.sum(lax.reduce_window(v, -np.inf, lax.max, (3,), (1,), "VALID"))  # noqa: E731
    assert jaxweb.grad(f)(jnp.asarray([1., 2., 2., 2., 1.])).tolist() == [0., 2., 1., 0., 0.]


def test_integer_inputs_have_no_tangent():
    out, t = jaxweb.jvp(lambda v: lax.argmax(v, 0, jnp.int32), (jnp.asarray([1., 3.]),), (jnp.asarray([1., 1.]),))
    assert int(out) == 1 and t.dtype.name == "float0"


# ---------------------------------------------------------------- vmap
VMAP_CASES = [
    (lambda x: lax.reduce_sum(x, (1,)), [(3, 4, 5)], (1,)),
    (lambda x: lax.reduce_max(x, (0, 1)), [(3, 4, 5)], (2,)),
    (lambda x: lax.argmin(x, 1, jnp.int32), [(3, 4, 5)], (0,)),
    (lambda x: lax.reduce_or(x > 0, (0,)), [(3, 4)], (1,)),
    (lambda x: lax.cumsum(x, 0), [(3, 4)], (1,)),
    (lambda x: lax.cumlogsumexp(x, 1, reverse=True), [(3, 4, 2)], (2,)),
    (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), [(3, 4, 5), (5, 2)], (0, None)),
    (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), [(4, 5), (5, 3, 2)], (None, 1)),
    (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((0,), (1,)))), [(4, 5, 3), (5, 4, 3)], (2, 2)),
    (lambda x, w: lax.conv_general_dilated(x, w, (2,), ((1, 1),), (1,), (2,), feature_group_count=2),
     [(3, 2, 4, 7), (6, 2, 3)], (0, None)),
    (lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME", batch_group_count=2),
     [(4, 3, 6), (6, 3, 3, 2)], (None, 2)),
    (lambda x, w: lax.conv_general_dilated(x, w, (1,), "VALID", feature_group_count=2),
     [(2, 4, 3, 6), (3, 4, 2, 2)], (2, 0)),
    (lambda x: lax.reduce_window(x, -np.inf, lax.max, (2,), (1,), "SAME"), [(3, 5)], (0,)),
    (lambda x: lax.reduce_window(x, 0.0, lax.add, (2,), (2,), "VALID", (2,)), [(3, 5)], (1,)),
    (lambda x: lax.sort(x, 0), [(3, 5)], (1,)),
    (lambda x, y: lax.sort((x, y), 0, num_keys=1), [(3, 5), (3,)], (1, None)),
    (lambda x: lax.top_k(x, 2), [(3, 5)], (0,)),
    (lambda x: jaxweb.grad(lambda y: jnp.sum(lax.sort(y) * jnp.arange(5.)))(x), [(3, 5)], (0,)),
    (lambda x: jaxweb.grad(lambda y: jnp.sum(lax.reduce_window(y, -np.inf, lax.max, (2,), (1,), "SAME")))(x),
     [(3, 5)], (1,)),
    (lambda x: jaxweb.grad(lambda y: jnp.sum(lax.cumprod(y, 1) ** 2))(x), [(3, 4, 5)], (2,)),
    (lambda x: jaxweb.grad(lambda y: jnp.sum(lax.reduce_prod(y, (0, 1))))(x), [(3, 4, 5)], (2,)),
    (lambda x, w: jaxweb.grad(lambda a, b: jnp.sum(lax.conv_general_dilated(a, b, (1,), "SAME") ** 2),
                              argnums=(0, 1))(x, w), [(2, 2, 3, 5), (3, 4, 2, 3)], (2, 0)),
    (lambda x: jnp.quantile(x, 0.3, axis=1), [(3, 4, 5)], (0,)),
]


@pytest.mark.parametrize("case", range(len(VMAP_CASES)))
def test_vmap(case):
    f, shapes, in_axes = VMAP_CASES[case]
    check_vmap(f, [distinct(*s) for s in shapes], in_axes=in_axes, atol=1e-4, rtol=1e-4)
