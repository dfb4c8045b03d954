"""Index spaces past 2**31 - 1 elements (issue 9): no silent wrong results.

Every case reads a broadcast of one element, so a 2**31 + 1 element reduction costs
no memory: what is tested is the index arithmetic (validity tests, loop counters,
value ranges) against exact arithmetic. The long reductions run on the wasm device
only: the `cpu` reference evaluates the very same index expressions, but as numpy
arrays of 2**31 indices, which takes minutes per case on the CI machine.
"""
from __future__ import annotations

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb.errors import JaxRuntimeError

BIG = 2**31 + 1
SIDE = 46341  # SIDE**2 = 2147488281 > 2**31 - 1



@pytest.fixture(autouse=True)
def _on_wasm():
    with jaxweb.default_device(jaxweb.devices("wasm")[0]):
        yield


def test_float_sum_and_mean_past_int32():
    x = jnp.ones((BIG,))
    assert x.sum() == np.float32(2**31)
    assert x.mean() == np.float32(1.0)
    assert jaxweb.jit(lambda: jnp.ones((BIG,)).sum())() == np.float32(2**31)


def test_two_dimensional_broadcast_sum_past_int32():
    x = jnp.broadcast_to(jnp.float32(1.0), (SIDE, SIDE))
    assert x.sum() == np.float32(SIDE * SIDE)


def test_int32_sum_wraps_as_jax():
    total = jnp.ones((BIG,), jnp.int32).sum()
    assert total.dtype == jnp.int32 and int(total) == BIG - 2**32  # -2147483647


def test_max_min_past_int32():
    x = jnp.broadcast_to(jnp.float32(-2.5), (BIG,))
    assert float(x.max()) == -2.5 and float(jnp.broadcast_to(jnp.int32(7), (BIG,)).min()) == 7


@pytest.mark.on_every_device
def test_wrapped_integer_values_keep_their_sign():
    """Value ranges must not be clamped to the type's range: an int32 add can wrap."""
    x = jnp.arange(10, dtype=jnp.int32) + 2147483640
    expect = np.arange(10, dtype=np.int64) + 2147483640
    expect = ((expect + 2**31) % 2**32 - 2**31).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(x < 0), expect < 0)
    np.testing.assert_array_equal(np.asarray(jnp.where(x < 0, 1, 2)), np.where(expect < 0, 1, 2))


def test_wasm_output_past_int32_is_an_error():
    with pytest.raises(JaxRuntimeError, match="UNIMPLEMENTED: .* 2147483649 elements on the wasm"):
        (jnp.arange(BIG, dtype=jnp.int32) % 7).astype(jnp.uint8).block_until_ready()
    assert float(jnp.arange(4.0).sum()) == 6.0  # the device is still usable
