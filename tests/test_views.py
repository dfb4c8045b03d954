"""Movement ops are free: chains of them return views of the input's buffer and
launch no kernel; joins and gathers (with what they read fused in) launch one."""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb._src.compiler.kernel import Capabilities
from jaxweb._src.compiler.schedule import schedule

from kernel_count import count_kernels, reduction_extents


pytestmark = pytest.mark.on_every_device  # see conftest.py


X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

VIEW_CHAINS = {
    "reshape": lambda x: x.reshape(6, 4).reshape(4, 3, 2),
    "transpose": lambda x: jnp.transpose(x, (2, 0, 1)).T,
    "broadcast": lambda x: jnp.broadcast_to(x[:, None], (2, 5, 3, 4)),
    "slice_flip": lambda x: x[1:, ::-2, 1::2][..., ::-1],
    "pad_zero": lambda x: jnp.flip(jnp.pad(jnp.transpose(x, (2, 0, 1))[1:3, :, ::-2], 1), 0).reshape(-1),
    "interior_pad": lambda x: lax.pad(x, np.float32(0), [(1, 0, 2), (0, 0, 0), (2, -1, 1)]),
    "squeeze_expand": lambda x: jnp.squeeze(jnp.expand_dims(x, (0, 3)), 0),
    "index": lambda x: x[1, :, 2],
    "diagonal": lambda x: jnp.diagonal(x, 1, 1, 2),
    "diag": lambda x: jnp.diag(x[0, 0]),
    "tile_repeat": lambda x: jnp.repeat(jnp.tile(x, (2, 1, 1)), 2, axis=1),
    "rot90": lambda x: jnp.rot90(x, 1, (1, 2)),
    "split": lambda x: jnp.split(x, 2, axis=2)[1],
    "static_dynamic_slice": lambda x: lax.dynamic_slice(x, (1, 1, 2), (1, 2, 2)),
    "matrix_transpose": lambda x: x.mT[:, ::2],
}


@pytest.mark.parametrize("name", list(VIEW_CHAINS))
def test_view_chains_launch_no_kernel(name):
    x = jnp.asarray(X)
    with count_kernels() as ran:
        y = VIEW_CHAINS[name](x).block_until_ready()
    assert ran == []
    assert y._buf is x._buf


def test_view_values_match_numpy():
    x = jnp.asarray(X)
    np.testing.assert_array_equal(np.asarray(VIEW_CHAINS["slice_flip"](x)), X[1:, ::-2, 1::2][..., ::-1])
    np.testing.assert_array_equal(np.asarray(VIEW_CHAINS["tile_repeat"](x)), np.repeat(np.tile(X, (2, 1, 1)), 2, 1))
    np.testing.assert_array_equal(np.asarray(VIEW_CHAINS["diag"](x)), np.diag(X[0, 0]))
    np.testing.assert_array_equal(np.asarray(VIEW_CHAINS["static_dynamic_slice"](x)), X[1:2, 1:3, 2:4])
    np.testing.assert_array_equal(np.asarray(VIEW_CHAINS["pad_zero"](x)),
                                  np.flip(np.pad(np.transpose(X, (2, 0, 1))[1:3, :, ::-2], 1), 0).reshape(-1))


@pytest.mark.parametrize("fn,kernels", [
    (lambda x: jnp.concatenate([x, x[:, ::-1]], 1), 1),
    (lambda x: lax.pad(x, np.float32(7), [(1, 1, 0)] * 3), 1),
    (lambda x: x[jnp.asarray(np.int32([1, 0]))], 1),  # index normalization fused into the gather
    (lambda x: lax.dynamic_slice(x, (jnp.asarray(np.int32(1)), 0, 0), (1, 2, 2)), 1),
    (lambda x: x.at[0, 1:, ::-2].set(5.0), 1),  # values and mask (pads of constants) and the select
])
def test_joins_and_gathers_kernel_counts(fn, kernels):
    x = jnp.asarray(X)
    with count_kernels() as ran:
        fn(x).block_until_ready()
    assert len(ran) == kernels, ran
    assert "copy" not in [k.name for k in ran]


def test_replacing_scatter_is_one_kernel():
    x = jnp.asarray(np.zeros(6, np.float32))
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    idx = jnp.asarray(np.int32([[1], [4], [1]]))
    with count_kernels() as ran:
        out = lax.scatter(x, idx, jnp.asarray(np.float32([1, 2, 3])), dn).block_until_ready()
    assert len(ran) == 1  # the winner per element (a reduction) and its select (the epilogue)
    np.testing.assert_array_equal(np.asarray(out), np.float32([0, 3, 0, 0, 2, 0]))


def test_long_concatenation_fits_a_binding_limit():
    """64 arrays joined under a backend limit of 8 buffers per kernel (WebGPU's guaranteed
    minimum): the scheduler cuts the select tree into kernels that each fit."""
    xs = [jnp.asarray(np.float32(i)) + 0 for i in range(64)]
    y = jnp.stack(xs)
    graph_out = y._node
    sched = schedule([graph_out], Capabilities(max_buffers=8))
    assert all(len(k.in_dtypes) + len(k.outs) <= 8 for k in sched.kernels)
    assert len(sched.kernels) > 1
    np.testing.assert_array_equal(np.asarray(y), np.arange(64, dtype=np.float32))


def test_leading_index_update_reduces_over_indices_only():
    x = jnp.asarray(np.zeros((50, 8), np.float32))
    idx = jnp.asarray(np.int32([3, -1, 3, 60]))
    with count_kernels() as kernels:
        y = x.at[idx].add(np.float32(1)).block_until_ready()
    assert [e for k in kernels for e in reduction_extents(k)] == [4]  # one reduction, over the 4 indices
    e = np.zeros((50, 8), np.float32)
    e[3] += 2
    e[49] += 1
    np.testing.assert_array_equal(np.asarray(y), e)
