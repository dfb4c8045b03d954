"""Transformation rules of the structural, slicing, gather and scatter primitives:
jvp vs finite differences, vjp vs jvp (dot-product test), vmap vs a Python loop."""
import os
import sys

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

sys.path.insert(0, os.path.dirname(__file__))
from rule_checker import check_grads, check_vmap  # noqa: E402


pytestmark = pytest.mark.on_every_device  # see conftest.py


RNG = np.random.default_rng(5)


def R(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


GDN, SDN = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers
ROWS = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
ROWS_S = SDN(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
IDX = np.array([[2], [0], [2], [7]], np.int32)  # a duplicate and an out-of-bounds row

# name -> (function of float arrays, example args)
LINEAR = {
    "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), [R(3, 1)]),
    "reshape": (lambda x: lax.reshape(x, (4, 6)), [R(2, 3, 4)]),
    "reshape_dims": (lambda x: lax.reshape(x, (4, 6), (2, 0, 1)), [R(2, 3, 4)]),
    "transpose": (lambda x: lax.transpose(x, (2, 0, 1)), [R(2, 3, 4)]),
    "squeeze": (lambda x: lax.squeeze(x, (0, 2)), [R(1, 3, 1)]),
    "expand_dims": (lambda x: lax.expand_dims(x, (0, 2)), [R(3, 2)]),
    "rev": (lambda x: lax.rev(x, (0, 2)), [R(2, 3, 4)]),
    "slice": (lambda x: lax.slice(x, (1, 0, 1), (3, 3, 4), (1, 2, 2)), [R(3, 3, 4)]),
    "pad": (lambda x, v: lax.pad(x, v, [(1, -1, 2), (-2, 3, 1)]), [R(3, 4), R()]),
    "concatenate": (lambda a, b, c: lax.concatenate([a, b, c], 1), [R(2, 3), R(2, 1), R(2, 4)]),
    "copy": (lambda x: lax.copy(x), [R(3)]),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (1, jnp.asarray(np.int32(5))), (2, 2)), [R(4, 5)]),
    "dynamic_update_slice": (lambda x, u: lax.dynamic_update_slice(x, u, (jnp.asarray(np.int32(-2)), 1)),
                             [R(4, 5), R(2, 3)]),
    "gather_clip": (lambda x: lax.gather(x, IDX, ROWS, (1, 3), mode="clip"), [R(4, 3)]),
    "gather_fill": (lambda x: lax.gather(x, IDX, ROWS, (1, 3), mode="fill", fill_value=0), [R(4, 3)]),
    "take": (lambda x: jnp.take(x, np.int32([[0, 2], [-1, 1]]), axis=1), [R(2, 3)]),
    "scatter_add": (lambda x, u: lax.scatter_add(x, IDX, u, ROWS_S), [R(4, 3), R(4, 3)]),
    "scatter_add_clip": (lambda x, u: lax.scatter_add(x, IDX, u, ROWS_S, mode="clip"), [R(4, 3), R(4, 3)]),
    "scatter": (lambda x, u: lax.scatter(x, IDX, u, ROWS_S), [R(4, 3), R(4, 3)]),
    "getitem": (lambda x: x[1:, jnp.asarray(np.int32([2, 0, 2])), ::-1], [R(3, 4, 2)]),
    "at_set": (lambda x, v: x.at[jnp.asarray(np.int32([0, 2, 0]))].set(v), [R(4, 2), R(3, 2)]),
    "at_add": (lambda x, v: x.at[::2, 1].add(v), [R(4, 2), R(2)]),
    "take_along_axis": (lambda x: jnp.take_along_axis(x, np.int32([[1, 0, 1]]), 1), [R(2, 3)]),
    "jnp_pad_reflect": (lambda x: jnp.pad(x, ((2, 3), (1, 0)), mode="reflect"), [R(3, 4)]),
    "diag": (lambda x: jnp.diag(x, -1), [R(3)]),
}


@pytest.mark.parametrize("name", list(LINEAR))
def test_grads(name):
    f, args = LINEAR[name]
    check_grads(f, args, order=1)


def test_second_order_pad_and_gather():
    check_grads(lambda x: lax.pad(x, np.float32(0), [(1, 1, 1)]) ** 2, [R(3)], order=2)
    check_grads(lambda x: lax.gather(x, IDX, ROWS, (1, 3), mode="clip") ** 2, [R(4, 3)], order=2)


def test_scatter_mul_operand_grad_and_nonlinear_values():
    u = R(4, 3)
    check_grads(lambda x: lax.scatter_mul(x, IDX, u, ROWS_S), [R(4, 3)])
    with pytest.raises(NotImplementedError, match="unique_indices"):
        jax.jvp(lambda u: lax.scatter_mul(np.ones((4, 3), np.float32), IDX, u, ROWS_S), (R(4, 3),), (R(4, 3),))


@pytest.mark.parametrize("name", list(LINEAR))
def test_vmap(name):
    f, args = LINEAR[name]
    batched = [np.stack([a, a * 2 + 1, -a]) for a in args]
    check_vmap(f, batched, in_axes=0)
    if args[0].ndim:
        moved = [np.moveaxis(b, 0, -1) for b in batched]
        check_vmap(f, moved, in_axes=-1)
        check_vmap(f, [moved[0]] + args[1:], in_axes=[-1] + [None] * (len(args) - 1))
    if len(args) > 1:
        check_vmap(f, [args[0]] + batched[1:], in_axes=[None] + [0] * (len(args) - 1))


def test_vmap_batched_indices():
    x = R(4, 5)
    starts = np.array([-1, 0, 3, 9], np.int32)
    check_vmap(lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 3)), [x, starts], in_axes=(None, 0))
    check_vmap(lambda x, i: lax.dynamic_slice(x, (i, i), (2, 3)), [np.stack([x] * 4), starts], in_axes=(0, 0))
    u = R(4, 2, 3)
    check_vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 2)), [x, u, starts], in_axes=(None, 0, 0))
    idx = np.array([[[1], [3]], [[0], [0]], [[9], [2]]], np.int32)
    dn = GDN(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    check_vmap(lambda x, i: lax.gather(x, i, dn, (1,)), [R(3, 5), idx], in_axes=(0, 0))
    check_vmap(lambda x, i: lax.gather(x, i, dn, (1,), mode="fill"), [R(5), idx], in_axes=(None, 0))
    sdn = SDN(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    for scat in (lax.scatter, lax.scatter_add, lax.scatter_mul, lax.scatter_min, lax.scatter_max):
        check_vmap(lambda x, i, u: scat(x, i, u, sdn), [R(5), idx, R(3, 2)], in_axes=(None, 0, 0))
        check_vmap(lambda x, i, u: scat(x, i, u, sdn), [R(3, 5), idx[0], R(2)], in_axes=(0, None, None))
    check_vmap(lambda x, i: x[i], [R(3, 5), np.array([4, -1, 0], np.int32)], in_axes=(0, 0))
    check_vmap(lambda x, i: x.at[i].add(1.0), [R(3, 5), np.array([4, -1, 7], np.int32)], in_axes=(0, 0))


def test_vmap_pad_batched_padding_value():
    check_vmap(lambda x, v: lax.pad(x, v, [(1, 2, 1)]), [R(3, 4), R(3)], in_axes=(0, 0))
    check_vmap(lambda x, v: lax.pad(x, v, [(1, 2, 1)]), [R(4), R(3)], in_axes=(None, 0))


def test_scatter_mul_unique_and_extremum_grads():
    idx = np.array([[2], [0]], np.int32)
    check_grads(lambda x, u: lax.scatter_mul(x, idx, u, ROWS_S, unique_indices=True), [R(4, 3), R(2, 3)])
    for scat in (lax.scatter_min, lax.scatter_max):
        check_grads(lambda x, u: scat(x, IDX, u, ROWS_S), [R(4, 3), R(4, 3)], modes=("fwd",))
    # ties average the tangents of the tied values, as in JAX
    x = np.float32([1.0, 5.0])
    _, t = jax.jvp(lambda x, u: lax.scatter_max(x, np.int32([[0]]), u, SDN((), (0,), (0,))),
                   (x, np.float32([1.0])), (np.float32([2.0, 1.0]), np.float32([4.0])))
    np.testing.assert_allclose(np.asarray(t), [3.0, 1.0])


def test_gather_fill_tangent_is_zero():
    x = R(4, 3)
    out, t = jax.jvp(lambda x: lax.gather(x, IDX, ROWS, (1, 3), mode="fill"), (x,), (np.ones_like(x),))
    assert np.isnan(np.asarray(out)[3]).all()
    np.testing.assert_array_equal(np.asarray(t), np.float32([[1] * 3] * 3 + [[0] * 3]))
