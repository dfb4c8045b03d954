"""lax.fft and jnp.fft: values against numpy.fft on every device (every length 1..64,
large primes through Bluestein, powers of two), round-trip error O(log n eps), every
jnp.fft function with n/s/axes/norm, JAX's errors, gradients (the generic checker and
JAX's transposes of RFFT/IRFFT), vmap, and kernel counts of a jitted transform.

Every length 1..64 runs (batched) on the reference backend, a subset of them on wasm and
webgpu (each length is its own kernels: this keeps the wasm module count and
lavapipe's shader compiles small); large sizes run on wasm only (the reference
interpreter is slow there).
"""
import math

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from kernel_count import count_kernels
from rule_checker import check_grads, check_vmap

EPS = float(np.finfo(np.float32).eps)
R = np.random.RandomState(0)


def crand(*shape):
    return (R.randn(*shape) + 1j * R.randn(*shape)).astype(np.complex64)


def rel_err(got, want):
    got, want = np.asarray(got, np.complex128), np.asarray(want, np.complex128)
    return np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)


def bound(n):
    """O(log n eps): the float32 error of an FFT (Bluestein: the length M >= 2n it runs)."""
    m = n if lax_factors(n) else 1 << (2 * n - 2).bit_length()
    return 4 * EPS * (math.log2(max(m, 2)) + 2)


def lax_factors(n):
    from jaxweb._src.lax import fft_passes
    return fft_passes.factors(n)


@pytest.mark.on_every_device
@pytest.mark.parametrize("kind", ["fft", "ifft", "rfft", "irfft"])
def test_every_length_1_to_64(kind, kernel_platform):
    lengths = {"cpu": range(1, 65), "wasm": [1, 2, 3, 5, 7, 12, 13, 16, 30, 37, 61, 64]}.get(
        kernel_platform, [1, 2, 3, 7, 12, 16, 37])  # webgpu on a software adapter: compiles slowly
    for n in lengths:
        x = crand(2, n)
        if kind in ("fft", "ifft"):
            got = lax.fft(jnp.asarray(x), kind, (n,))
            want = getattr(np.fft, kind)(x.astype(np.complex128))
        elif kind == "rfft":
            got = lax.fft(jnp.asarray(x.real), "rfft", (n,))
            want = np.fft.rfft(x.real.astype(np.float64))
        else:
            h = np.fft.rfft(x.real.astype(np.float64))
            got = lax.fft(jnp.asarray(h.astype(np.complex64)), "irfft", (n,))
            want = x.real
        assert rel_err(got, want) <= bound(n), (kind, n, rel_err(got, want))


@pytest.mark.parametrize("n", [1009, 4099, 2 ** 10, 2 ** 16, 3 * 5 * 7 * 11, 2 * 3 * 5 * 64])
def test_large_lengths_and_round_trip(n):
    with jax.default_device(jax.devices("wasm")[0]):  # the reference interpreter is slow here
        x = crand(n)
        y = jnp.fft.fft(x)
        assert rel_err(y, np.fft.fft(x.astype(np.complex128))) <= bound(n)
        back = jnp.fft.ifft(y)
        assert rel_err(back, x) <= 2 * bound(n)


@pytest.mark.on_every_device
def test_multi_axis_and_batched():
    x = crand(3, 4, 6)
    assert rel_err(lax.fft(jnp.asarray(x), "fft", (4, 6)), np.fft.fftn(x, axes=(1, 2))) <= 1e-6
    assert rel_err(lax.fft(jnp.asarray(x), "ifft", (3, 4, 6)), np.fft.ifftn(x)) <= 1e-6
    xr = x.real.copy()
    assert rel_err(lax.fft(jnp.asarray(xr), "rfft", (4, 6)), np.fft.rfftn(xr, axes=(1, 2))) <= 1e-6
    h = np.fft.rfftn(xr, axes=(1, 2)).astype(np.complex64)
    assert rel_err(lax.fft(jnp.asarray(h), "irfft", (4, 6)), np.fft.irfftn(h, (4, 6), axes=(1, 2))) <= 1e-6


FUNCS = ["fft", "ifft", "rfft", "ihfft"]
FUNCS_ND = ["fft2", "ifft2", "rfft2", "fftn", "ifftn", "rfftn"]
INVERSE = ["irfft", "hfft"]
INVERSE_ND = ["irfft2", "irfftn"]


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_jnp_fft_functions(norm):
    x = R.randn(4, 6, 5).astype(np.float32)
    for f in FUNCS:
        for kw in ({}, {"n": 7}, {"n": 3, "axis": 0}, {"axis": 1}):
            got, want = getattr(jnp.fft, f)(x, norm=norm, **kw), getattr(np.fft, f)(x, norm=norm, **kw)
            assert got.shape == want.shape and rel_err(got, want) <= 1e-5, (f, kw)
    for f in FUNCS_ND:
        for kw in ({}, {"s": (3, 8)}, {"axes": (0, 2)}, {"s": (5, 2), "axes": (2, 0)}):
            if f.endswith("n") and not kw:
                kw = {"axes": None}
            got, want = getattr(jnp.fft, f)(x, norm=norm, **kw), getattr(np.fft, f)(x, norm=norm, **kw)
            assert got.shape == want.shape and rel_err(got, want) <= 1e-5, (f, kw)
    h = np.fft.rfftn(x).astype(np.complex64)
    for f in INVERSE:
        for kw in ({}, {"n": 9}, {"axis": 0}):
            got, want = getattr(jnp.fft, f)(h, norm=norm, **kw), getattr(np.fft, f)(h, norm=norm, **kw)
            assert got.shape == want.shape and rel_err(got, want) <= 1e-5, (f, kw)
    for f in INVERSE_ND:
        for kw in ({}, {"s": (6, 8)}, {"axes": (0, 1)}):
            got, want = getattr(jnp.fft, f)(h, norm=norm, **kw), getattr(np.fft, f)(h, norm=norm, **kw)
            assert got.shape == want.shape and rel_err(got, want) <= 1e-5, (f, kw)


def test_freqs_shifts_and_dtypes():
    for n in (1, 4, 5):
        for d in (1.0, 0.3):
            np.testing.assert_allclose(jnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d), rtol=1e-6)
            np.testing.assert_allclose(jnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d), rtol=1e-6)
    x = np.arange(12).reshape(3, 4)
    for axes in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(jnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(jnp.fft.ifftshift(x, axes), np.fft.ifftshift(x, axes))
    assert jnp.fft.fft(jnp.arange(4)).dtype == jnp.complex64
    assert jnp.fft.rfft(jnp.arange(4)).dtype == jnp.complex64
    assert jnp.fft.irfft(jnp.ones(3, jnp.complex64)).dtype == jnp.float32
    assert jnp.fft.fftfreq(4).dtype == jnp.float32


def test_errors_as_jax():
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        lax.fft(jnp.ones(4, jnp.complex64), "rfft", (4,))
    with pytest.raises(ValueError, match="Unknown FFT type 'bad'"):
        lax.fft(jnp.ones(4), "bad", (4,))
    with pytest.raises(TypeError, match="Unknown FFT type value"):
        lax.fft(jnp.ones(4), 7, (4,))
    with pytest.raises(ValueError, match=r"must have at least as many input dimensions"):
        lax.fft(jnp.ones(4, jnp.complex64), "fft", (2, 4))
    with pytest.raises(ValueError, match=r"minor dimensions must be equal to fft_lengths"):
        lax.fft(jnp.ones(4, jnp.complex64), "fft", (5,))
    with pytest.raises(ValueError, match="Invalid norm value"):
        jnp.fft.fft(jnp.ones(4), norm="bad")
    with pytest.raises(ValueError, match="Shape should be positive"):
        jnp.fft.fftn(jnp.ones(4), s=(0,))
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        jnp.fft.fftn(jnp.ones((4, 4)), s=(4,), axes=(0, 1))
    with pytest.raises(ValueError, match="does not support repeated axes"):
        jnp.fft.fftn(jnp.ones((4, 4)), axes=(0, 0))
    with pytest.raises(ValueError, match="does not support multiple axes"):
        jnp.fft.fft(jnp.ones((4, 4)), axis=(0, 1))
    with pytest.raises(ValueError, match="only supports 2 axes"):
        jnp.fft.fft2(jnp.ones((4, 4, 4)), axes=(0, 1, 2))


@pytest.mark.parametrize("kind,n", [("fft", 6), ("ifft", 8), ("fft", 7), ("rfft", 6), ("rfft", 5),
                                    ("irfft", 6), ("irfft", 5)])
def test_gradients(kind, n):
    if kind == "irfft":
        x = crand(2, n // 2 + 1)
    elif kind == "rfft":
        x = R.randn(2, n).astype(np.float32)
    else:
        x = crand(2, n)
    check_grads(lambda a: lax.fft(a, kind, (n,)), (x,), order=1, atol=2e-2, rtol=2e-2)


def test_gradient_of_real_loss_against_finite_differences():
    x = R.randn(8).astype(np.float32)

    def loss(a):
        return jnp.sum(jnp.abs(jnp.fft.rfft(a)) ** 2) + jnp.sum(jnp.fft.irfft(jnp.fft.rfft(a) * 1j).real * a)
    g = np.asarray(jax.grad(loss)(x))
    h = 1e-3
    fd = np.array([(float(loss(x + h * e)) - float(loss(x - h * e))) / (2 * h) for e in np.eye(8, dtype=np.float32)])
    np.testing.assert_allclose(g, fd, rtol=2e-2, atol=2e-2)


def test_vmap():
    check_vmap(lambda a: lax.fft(a, "fft", (8,)), (crand(3, 8),))
    check_vmap(lambda a: jnp.fft.rfft(a), (R.randn(8, 3).astype(np.float32),), in_axes=1)
    check_vmap(lambda a: jnp.fft.irfft2(a), (crand(4, 3, 5),), in_axes=0)


def test_kernel_count_of_jitted_fft():
    with jax.default_device(jax.devices("wasm")[0]):
        x = jnp.asarray(crand(4, 1024))
        f = jax.jit(lambda a: jnp.fft.fft(a))
        f(x).block_until_ready()
        with count_kernels() as ks:
            f(x).block_until_ready()
        assert 1 <= len(ks) <= 10  # log4(1024) = 5 passes (+ joining the parts)


def test_complex128_under_x64():
    with jax.enable_x64():
        x = R.randn(2, 67) + 1j * R.randn(2, 67)
        y = jnp.fft.fft(x)
        assert y.dtype == jnp.complex128 and rel_err(y, np.fft.fft(x)) < 1e-13
        r = jnp.fft.irfft(jnp.fft.rfft(x.real), n=67)
        assert r.dtype == jnp.float64 and np.abs(np.asarray(r) - x.real).max() < 1e-13
