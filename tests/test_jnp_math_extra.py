"""gcd/lcm, frexp/ldexp/modf/spacing, i0, sinc's derivatives, window functions, heaviside,
angle/iscomplex/isreal/isscalar/iterable: values against numpy, dtypes and weak types
as JAX, gradients through the rule checker, jit/vmap agreeing with eager."""
import math
import warnings

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from rule_checker import check_grads, check_vmap

pytestmark = pytest.mark.on_every_device

F = np.array([3.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -2.5e-42, 1e38, 0.1, -7.0], np.float32)


def test_gcd_lcm_against_numpy():
    a = np.array([12, -18, 0, 7, 0, 2**30, 1836311903, -2**31 + 1], np.int32)
    b = np.array([8, 12, 5, 0, 0, 3 * 2**20, 1134903170, 6], np.int32)  # Fibonacci pair: worst case
    np.testing.assert_array_equal(jnp.gcd(a, b), np.gcd(a, b))
    np.testing.assert_array_equal(jnp.lcm(a[:5], b[:5]), np.lcm(a[:5], b[:5]))
    u = np.array([200, 150, 0, 255], np.uint8)
    np.testing.assert_array_equal(jnp.gcd(u, u[::-1]), np.gcd(u, u[::-1]))
    assert jnp.gcd(a, b).dtype == jnp.int32 and jnp.gcd(u, u).dtype == jnp.uint8
    assert int(jnp.gcd(12, 18)) == 6 and jnp.lcm(4, np.int16(6)).dtype == jnp.int16
    np.testing.assert_array_equal(jax.jit(jnp.gcd)(a, b), np.gcd(a, b))
    with pytest.raises(ValueError, match="must be integers"):
        jnp.gcd(1.0, 2.0)


def test_frexp_ldexp_exact_through_subnormals():
    m, e = jnp.frexp(F)
    nm, ne = np.frexp(F)
    np.testing.assert_array_equal(m, nm)
    np.testing.assert_array_equal(e, ne)
    assert m.dtype == jnp.float32 and e.dtype == jnp.int32
    h = F[np.abs(F) < 6e4].astype(np.float16)
    np.testing.assert_array_equal(jnp.frexp(h)[0], np.frexp(h)[0])
    warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warnings below
    n = np.array([-150, -149, -127, -126, 0, 127, 128, 300], np.int32)
    np.testing.assert_array_equal(jnp.ldexp(np.float32(1.5), n), np.ldexp(np.float32(1.5), n))
    np.testing.assert_array_equal(jnp.ldexp(F, 3), np.ldexp(F, 3))
    np.testing.assert_array_equal(jnp.ldexp(F, -130), np.ldexp(F, -130))
    assert float(jnp.ldexp(np.float32(3e-39), 100)) == float(np.ldexp(np.float32(3e-39), 100))
    assert jnp.ldexp(2, 3).dtype == jnp.float32 and float(jnp.ldexp(2, 3)) == 16.0
    with pytest.raises(ValueError, match="ldexp not supported"):
        jnp.ldexp(F, 2.0)


def test_frexp_ldexp_gradients():
    x = np.array([3.0, -0.7, 1e-3], np.float32)
    np.testing.assert_allclose(jax.grad(lambda v: jnp.ldexp(v, 3).sum())(x), [8.0] * 3)
    np.testing.assert_allclose(jax.grad(lambda v: jnp.frexp(v)[0].sum())(x), 2.0 ** -np.frexp(x)[1])
    np.testing.assert_allclose(jax.vmap(jnp.frexp)(x)[0], np.frexp(x)[0])


def test_modf_spacing_angle():
    g = F[np.isfinite(F)]
    fr, wh = jnp.modf(g)
    nfr, nwh = np.modf(g)
    np.testing.assert_array_equal(fr, nfr)
    np.testing.assert_array_equal(wh, nwh)
    fr, wh = jnp.modf(np.float32(np.inf))  # JAX: x - trunc(x), so the fraction of inf is NaN
    assert np.isnan(float(fr)) and float(wh) == np.inf
    assert jnp.modf(np.array([1, -2])).__getitem__(1).dtype == jnp.float32
    pos = g[~np.signbit(g) | (g != 0)]
    np.testing.assert_array_equal(jnp.spacing(pos), np.spacing(pos))
    assert float(jnp.spacing(np.float32(-0.0))) < 0  # JAX: copysign(smallest subnormal, x)
    assert not jnp.spacing(1).weak_type and float(jnp.spacing(1)) == float(np.spacing(np.float32(1)))
    np.testing.assert_allclose(jnp.angle(np.array([1.0, -2.0, 0.0])), [0, math.pi, 0])
    np.testing.assert_allclose(jnp.angle(np.array([1, -2]), deg=True), [0, 180])


def test_real_predicates():
    assert jnp.iscomplex(F).tolist() == [False] * F.size and jnp.isreal(3).tolist() is True
    assert jnp.isreal(3).weak_type and not jnp.isreal(F).weak_type
    assert jnp.isscalar(3) and jnp.isscalar(jnp.array(3)) and jnp.isscalar(np.float32(3))
    assert jnp.isscalar(np.array(3)) and jnp.isscalar("a") and not jnp.isscalar([3])
    assert not jnp.isscalar(jnp.zeros(2))
    assert jnp.iterable(jnp.zeros(2)) and not jnp.iterable(jnp.array(2)) and not jnp.iterable(3)


def test_i0_values_dtypes_and_derivative(kernel_platform):
    x = np.array([0.0, 0.5, -1.0, 3.0, 7.9, 8.0, 8.5, -30.0, 80.0], np.float32)
    np.testing.assert_allclose(jnp.i0(x), np.i0(x.astype(np.float64)), rtol=2e-6)
    assert jnp.i0(3).weak_type and jnp.i0(np.array([1, 2])).dtype == jnp.float32
    h = jnp.i0(x[:6].astype(np.float16))
    assert h.dtype == jnp.float16
    np.testing.assert_allclose(h, np.i0(x[:6].astype(np.float64)), rtol=2e-3)
    # I0' = I1, and I1(x) = x/2 (1 + x^2/8 + ...) near zero
    np.testing.assert_allclose(jax.grad(jnp.i0)(2.0), 1.5906368546373291, rtol=1e-6)
    assert float(jax.grad(jnp.i0)(0.0)) == 0.0 and jax.grad(jnp.i0)(2.0).weak_type
    if kernel_platform == "cpu":  # the rule checks once (wasm has its values checked above)
        check_grads(jnp.i0, (np.array([0.3, -2.0, 9.0], np.float32),), order=2)


def test_sinc_derivatives_at_zero():
    d = jnp.sinc
    values = []
    for _ in range(5):
        values.append(float(d(0.0)))
        d = jax.grad(d)
    # d^k/dx^k sin(pi x)/(pi x) at 0: 1, 0, -pi^2/3, 0, pi^4/5
    np.testing.assert_allclose(values, [1, 0, -math.pi ** 2 / 3, 0, math.pi ** 4 / 5], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(jax.grad(jnp.sinc)))(0.0), -math.pi ** 2 / 3, rtol=1e-5)
    x = np.array([-1.5, 0.0, 0.25, 2.0], np.float32)
    np.testing.assert_allclose(jnp.sinc(x), np.sinc(x), rtol=1e-6, atol=1e-7)
    check_grads(jnp.sinc, (x,), order=2)
    check_vmap(jax.grad(jnp.sinc), (x,))


def test_window_functions_against_numpy(kernel_platform):
    sizes = (0, 1, 2, 7, 10) if kernel_platform == "cpu" else (0, 1, 7)  # (wasm: kernel budget)
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        for m in sizes:
            got = getattr(jnp, name)(m)
            assert got.dtype == jnp.float32 and got.shape == (m,)
            np.testing.assert_allclose(got, getattr(np, name)(m), atol=2e-7, err_msg=f"{name}({m})")
    for m, beta in ((1, 3.0), (6, 3.0), (12, 14.0), (5, 0))[:4 if kernel_platform == "cpu" else 2]:
        np.testing.assert_allclose(jnp.kaiser(m, beta), np.kaiser(m, beta), rtol=2e-6, atol=1e-7)
    assert jnp.hanning(3.5).shape == (3,)
    with pytest.raises(TypeError, match="nonnegative"):
        jnp.hanning(-1)


def test_heaviside_weak_types():
    xi = np.array([3, -1, 0], np.int32)
    got = jnp.heaviside(xi, 0.5)
    assert got.dtype == jnp.float32 and not got.weak_type and got.tolist() == [1.0, 0.0, 0.5]
    assert jnp.heaviside(0.0, 0.5).weak_type
    assert np.isnan(float(jnp.heaviside(np.float32(np.nan), 1.0)))
