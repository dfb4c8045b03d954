"""Behaviours from JAX 0.10's documentation that programs from its docs depend on
(issue 25's list); the expected values were printed by JAX 0.10.2 on CPU."""
from __future__ import annotations

import math

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp

pytestmark = pytest.mark.on_every_device

INF, NAN = math.inf, math.nan


def test_typeof_prints_full_dtype_names_while_jaxprs_stay_short():
    a = jax.typeof(jnp.ones((3, 3)))
    assert str(a) == "float32[3,3]" and repr(a) == "ShapedArray(float32[3,3])"
    assert "a:f32[3]" in str(jax.make_jaxpr(lambda x: x * 2)(jnp.ones(3)))


def test_complex_arccosh_at_infinities_and_branch_points():
    z = np.array([1 + 0j, -1 + 0j, 0j, complex(INF, 0), complex(-1, INF), complex(NAN, 0),
                  complex(-INF, 0), complex(0, -INF), complex(INF, NAN)], np.complex64)
    got = np.asarray(jnp.arccosh(jnp.asarray(z)))
    want = np.array([0j, complex(0, math.pi), complex(0, math.pi / 2), complex(INF, 0),
                     complex(INF, math.pi / 2), complex(NAN, NAN), complex(INF, math.pi),
                     complex(INF, -math.pi / 2), complex(INF, NAN)], np.complex64)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_vmap_sum_match_sums_a_batched_output_whose_out_axis_is_none():
    x = jnp.ones((3, 2))
    assert float(jax.vmap(lambda v: v.sum(), out_axes=None, sum_match=True)(x)) == 6.0
    s, y = jax.vmap(lambda v, c: (v.sum(), c), in_axes=(0, None), out_axes=(None, None), sum_match=True)(x, 5.0)
    assert float(s) == 6.0 and y == 5.0
    np.testing.assert_array_equal(jax.vmap(lambda v: v.sum(), sum_match=True)(x), [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        jax.vmap(lambda v: v.sum(), out_axes=None)(x)
    assert float(jax.grad(lambda w: jax.vmap(lambda v: (v * w).sum(), out_axes=None, sum_match=True)(x))(2.0)) == 6.0


class _Scaled:
    """JAX's FAQ ("how to use jit with methods", strategy 2): self as a pytree whose
    aux data is a dict — unhashable, so the jit cache must not need to hash it."""

    def __init__(self, x, mul):
        self.x, self.mul = x, mul

    @jax.jit
    def calc(self, y):
        return self.x * y if self.mul else y


jax.tree_util.register_pytree_node(_Scaled, lambda s: ((s.x,), {"mul": s.mul}),
                                   lambda aux, ch: _Scaled(*ch, **aux))


def test_jitted_method_of_a_pytree_with_dict_aux_data():
    c = _Scaled(2, True)
    assert int(c.calc(3)) == 6
    c.mul = False
    assert int(c.calc(3)) == 3
    c.x, c.mul = 4, True
    assert int(c.calc(3)) == 12


def test_docstring_examples_of_jnp():
    """Examples from jax.numpy docstrings that jaxweb got wrong (JAX 0.10.2's outputs)."""
    import array
    assert complex(jnp.linalg.vecdot(jnp.array([1j, 2j, 3j]), jnp.array([4.0, 5.0, 6.0]))) == -32j
    assert complex(jnp.vecdot(jnp.array([1 + 2j, 3 - 4j]), jnp.array([5 + 6j, 7j]))) == -11 + 17j
    np.testing.assert_array_equal(jnp.rint(jnp.array([-2.5 + 3.5j, 4.5 - 0.5j])), [-2 + 4j, 4 - 0j])
    y = jnp.ones((2, 3, 4))
    assert (jnp.size(y, axis=(1,)), jnp.size(y, axis=(0, 1)), jnp.size(y, -1)) == (3, 6, 4)
    np.testing.assert_array_equal(jnp.array(range(5)), np.arange(5))
    assert jnp.asarray(array.array("i", [1, 2, 3])).dtype == jnp.int32
    with pytest.raises(TypeError):
        jnp.array(b"ab")
    assert jnp.promote_types("uint8", int) == jnp.uint8 and jnp.promote_types("float16", float) == jnp.float16
    assert jnp.promote_types(int, float) == jnp.float64 and jnp.promote_types("bfloat16", complex) == jnp.complex64
