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


def _weak(x) -> str:
    return f"{x.dtype}{'w' if x.weak_type else ''}"


def test_classification_weak_types_follow_jax():
    """JAX builds isnan as x != x (weak in, weak out), isfinite from lax.is_finite (keeps the
    weak type), isinf/isposinf/isneginf/signbit/isclose against typed constants (never weak);
    the table is JAX 0.10.2's."""
    ins = (6, 6.0, math.inf, 3 - 4j, True, jnp.array([1.0, INF]), jnp.array([1, 2]))
    want = {"isnan": "bw bw bw bw b b b", "isinf": "b b b b b b b", "isfinite": "b bw bw bw b b b",
            "isneginf": "b b b - b b b", "isposinf": "b b b - b b b", "signbit": "b b b - b b b",
            "isclose": "b b b b b b b", "allclose": "b b b b b b b", "array_equal": "b b b b b b b"}
    for name, expect in want.items():
        fn = getattr(jnp, name)
        got = []
        for v in ins:
            try:
                r = fn(v, v) if name in ("isclose", "allclose", "array_equal") else fn(v)
            except ValueError as e:
                assert "not well defined" in str(e)
                got.append("-")
                continue
            got.append("bw" if r.weak_type else "b")
            assert r.dtype == jnp.bool_
        assert " ".join(got) == expect, name
    assert jax.lax.is_finite(jnp.asarray(1.0)).weak_type
    assert not jnp.allclose(jnp.exp(3 - 4j), jnp.exp(3) * jnp.exp(-4j)).weak_type
    np.testing.assert_array_equal(jnp.isnan(jnp.array([2, 1 + 4j, INF, NAN])), [False, False, False, True])


def test_complex_cos_and_sin_give_plus_zero_where_the_real_part_is_zero():
    """JAX's complex cos (sin) sets the imaginary (real) part to +0 where the real part is
    +-0: jnp.cos(1j * x) is real with +0j, and a huge imaginary part gives no 0 * inf NaN."""
    x = jnp.array([[3, -1, 0], [4, 7, -5]])
    c = np.asarray(jnp.cos(1j * x))
    assert not np.signbit(c.imag).any()
    np.testing.assert_allclose(c.real, np.cosh(np.asarray(x, np.float32)), rtol=1e-6)
    z = jnp.array([complex(-0.0, 3), complex(0, -3), -0j, complex(-0.0, 100)], jnp.complex64)
    s = np.asarray(jnp.sin(z))
    assert not np.signbit(s.real).any() and np.isinf(s.imag[-1])
    big = complex(jnp.cos(jnp.complex64(complex(0, 100))))  # cosh(100) overflows float32
    assert big.real == INF and big.imag == 0 and not math.copysign(1, big.imag) < 0
    w = np.asarray(jnp.cos(jnp.array([1 + 2j, -3 - 0.5j], jnp.complex64)))
    np.testing.assert_allclose(w, np.cos(np.array([1 + 2j, -3 - 0.5j])), rtol=1e-5)


#: JAX 0.10.2's signs (real, imaginary) of f(z) at zeros of either part: "+" for +0 or positive
_ZERO_SIGNS = [  # (not a dict: 0j, -0j and their kin are equal keys)
    (3j, "cos:++ sin:++ cosh:-+ sinh:++ tan:++ tanh:+- exp:-+"),
    (complex(0, -3), "cos:++ sin:+- cosh:-+ sinh:+- tan:+- tanh:++ exp:--"),
    (0j, "cos:++ sin:++ cosh:++ sinh:++ tan:++ tanh:++ exp:++"),
    (complex(0, -0.0), "cos:++ sin:+- cosh:++ sinh:++ tan:+- tanh:++ exp:++"),
    (complex(-0.0, 3), "cos:++ sin:++ cosh:-+ sinh:++ tan:++ tanh:-- exp:-+"),
    (complex(-0.0, -3), "cos:++ sin:+- cosh:-+ sinh:+- tan:+- tanh:-+ exp:--"),
    (complex(-0.0, 0.0), "cos:++ sin:++ cosh:++ sinh:++ tan:++ tanh:-+ exp:++"),
    (complex(-0.0, -0.0), "cos:++ sin:+- cosh:++ sinh:++ tan:+- tanh:-+ exp:++"),
]


def test_complex_elementary_functions_sign_zeros_as_jax():
    """A part that is a product with sin(+-0) (sinh(+-0)) is +0 in JAX whatever the signs."""
    z = jnp.asarray(np.array([v for v, _ in _ZERO_SIGNS], np.complex64))
    for want in zip(*(row.split() for _, row in _ZERO_SIGNS)):
        name = want[0].split(":")[0]
        got = np.asarray(getattr(jnp, name)(z))
        signs = [f"{name}:{'-' if np.signbit(v.real) else '+'}{'-' if np.signbit(v.imag) else '+'}" for v in got]
        assert signs == list(want), name


def test_complex_tanh_tan_exp_at_large_and_infinite_arguments():
    """JAX 0.10.2's values: tanh's imaginary part for large |x| is 2 sin 2y e^(-2|x|) (not 0),
    tanh(inf + i inf) = 1 + 0i, tanh(0 + i inf) NaN, exp/cosh/sinh(inf + 0j) have +0j (no inf * 0)."""
    z = jnp.asarray(np.array([complex(25, 0.5), complex(-25, -1), complex(INF, 3), complex(INF, INF),
                              complex(0, INF), complex(1e-3, 20)], np.complex64))
    t = np.asarray(jnp.tanh(z))
    np.testing.assert_allclose(t[[0, 1, 5]], [1 + 3.245974308109169e-22j, -1 - 3.5076143530397566e-22j,
                                              0.006004856899380684 + 2.237147569656372j], rtol=1e-5)
    assert t[2] == 1 and math.copysign(1, t[2].imag) < 0 and t[3] == 1 and np.isnan(t[4].real)
    tn = np.asarray(jnp.tan(z))
    np.testing.assert_allclose(tn[[3, 4]], [1j, 1j])
    for f in (jnp.exp, jnp.cosh, jnp.sinh):
        v = complex(f(jnp.complex64(complex(INF, 0))))
        assert v.real == INF and v.imag == 0 and math.copysign(1, v.imag) > 0, f


def test_roots_without_stripping_zeros():
    """roots(strip_zeros=False): leading zeros give NaN roots at the end (static count, so it
    runs under jit); JAX 0.10.2's values."""
    c = jnp.array([0, 1, 2])
    for f in (lambda c: jnp.roots(c, strip_zeros=False), jax.jit(lambda c: jnp.roots(c, strip_zeros=False))):
        r = np.asarray(f(c))
        assert r.dtype == np.complex64 and r.shape == (2,)
        np.testing.assert_allclose(r[0], -2, rtol=1e-6)
        assert np.isnan(r[1].real) and np.isnan(r[1].imag)
    r = np.asarray(jnp.roots(jnp.array([0.0, 0, 1, -3, 2]), strip_zeros=False))
    np.testing.assert_allclose(np.sort(r[:2].real), [1, 2], rtol=1e-6)
    assert np.isnan(r[2:]).all()
    assert np.isnan(np.asarray(jnp.roots(jnp.zeros(3), strip_zeros=False))).all()
    np.testing.assert_allclose(np.asarray(jnp.roots(c)), [-2], rtol=1e-6)
    assert jnp.roots(3.0).shape == (0,)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="pass strip_zeros=False"):
        jax.jit(jnp.roots)(c)


def test_jnp_ufunc_objects():
    """jnp.add & co. are jnp.ufunc objects, as in JAX (its jax.numpy.ufunc docstring)."""
    x = jnp.arange(4)
    assert isinstance(jnp.add, jnp.ufunc) and repr(jnp.add) == "<jnp.ufunc 'add'>"
    assert (jnp.add.nin, jnp.add.nout, jnp.add.identity) == (2, 1, 0)
    assert (jnp.bitwise_and.identity, jnp.maximum.identity, jnp.negative.nin) == (-1, None, 1)
    assert jnp.logaddexp.identity == -INF and jnp.logical_and.identity is True
    np.testing.assert_array_equal(jnp.add.outer(x, x), np.add.outer(np.arange(4), np.arange(4)))
    assert int(jnp.add.reduce(x)) == 6 and jnp.add.reduce(x).dtype == jnp.int32
    np.testing.assert_array_equal(jnp.add.accumulate(x), [0, 1, 3, 6])
    np.testing.assert_array_equal(jnp.add.at(x, 0, 100, inplace=False), [100, 1, 2, 3])
    np.testing.assert_array_equal(jnp.add.reduceat(x, jnp.array([0, 2])), [1, 5])
    np.testing.assert_array_equal(jnp.multiply.reduce(jnp.arange(1, 5)), 24)
    np.testing.assert_array_equal(jnp.multiply.accumulate(jnp.arange(1, 5)), [1, 2, 6, 24])
    np.testing.assert_array_equal(jnp.maximum.reduce(jnp.array([[1, 5], [3, 2]]), axis=1), [5, 3])
    np.testing.assert_array_equal(jnp.minimum.reduce(jnp.array([[1, 5], [3, 2]])), [1, 2])
    np.testing.assert_array_equal(jnp.bitwise_or.reduce(jnp.array([1, 2, 8])), 11)
    assert bool(jnp.logical_and.reduce(jnp.array([True, False]))) is False
    np.testing.assert_array_equal(jnp.subtract.at(x, jnp.array([1, 1]), 1, inplace=False), [0, -1, 2, 3])
    np.testing.assert_array_equal(jnp.add.at(jnp.array([True, False]), 1, True, inplace=False), [True, True])
    np.testing.assert_allclose(jnp.logaddexp.reduce(jnp.array([0.0, 0.0])), math.log(2), rtol=1e-6)
    np.testing.assert_array_equal(jnp.negative(x), [0, -1, -2, -3])
    assert float(jax.jit(jnp.add)(1.0, 2.0)) == 3.0 and float(jax.grad(jnp.multiply)(3.0, 4.0)) == 4.0
    with pytest.raises(NotImplementedError, match="inplace=False"):
        jnp.add.at(x, 0, 1)


def test_lowered_cost_analysis_counts_the_flops_of_each_matmul_order():
    """jnp.linalg.multi_dot's docstring: jit(f).lower(...).cost_analysis()['flops']."""
    x, y, z = jnp.ones((200, 5)), jnp.ones((5, 100)), jnp.ones((100, 10))
    assert jax.jit(lambda x, y, z: (x @ y) @ z).lower(x, y, z).cost_analysis()["flops"] == 600000.0
    assert jax.jit(lambda x, y, z: x @ (y @ z)).lower(x, y, z).cost_analysis()["flops"] == 30000.0
    assert jax.jit(jnp.linalg.multi_dot).lower([x, y, z]).cost_analysis()["flops"] == 30000.0


def test_eig_orders_a_tied_2x2_block_as_lapack():
    """jnp.linalg.eig's docstring: [[1, 2], [2, 1]] gives [3, -1] (LAPACK's dlanv2 puts the
    larger first when the diagonal is equal) and a conjugate pair comes +imag first."""
    w, v = jnp.linalg.eig(jnp.array([[1.0, 2.0], [2.0, 1.0]]))
    np.testing.assert_allclose(np.asarray(w), [3, -1], rtol=1e-6, atol=1e-6)
    s = math.sqrt(0.5)
    np.testing.assert_allclose(np.abs(np.asarray(v)), [[s, s], [s, s]], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvals(jnp.array([[1.0, 2.0], [2.0, 1.0]]))), [3, -1],
                               rtol=1e-6, atol=1e-6)
    pair = np.asarray(jnp.linalg.eigvals(jnp.array([[1.0, -2.0], [3.0, 1.0]])))
    np.testing.assert_allclose(pair, [1 + math.sqrt(6) * 1j, 1 - math.sqrt(6) * 1j], rtol=1e-6)
