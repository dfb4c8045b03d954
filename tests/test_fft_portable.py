"""A numpy-free subset of jnp.fft against a direct DFT in Python complex numbers (it
also runs inside Pyodide, marked `pyodide`): mixed-radix, direct-prime and Bluestein
lengths, the real transforms, a round trip and a gradient."""
import cmath
import math

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp

pytestmark = pytest.mark.pyodide


def dft(x, sign=-1):
    n = len(x)
    return [sum(x[j] * cmath.exp(sign * 2j * math.pi * j * k / n) for j in range(n)) for k in range(n)]


def signal(n, seed=1):
    return [complex(math.sin(seed * 0.7 * j + 0.3), math.cos(seed * 1.3 * j * j % 7)) for j in range(n)]


def max_err(got, want):
    scale = max(abs(w) for w in want) or 1.0
    return max(abs(complex(g) - w) for g, w in zip(got, want)) / scale


@pytest.mark.parametrize("n", [1, 6, 16, 45, 61, 67, 128])
def test_fft_matches_dft(n):
    x = signal(n)
    got = jnp.fft.fft(jnp.asarray(x, dtype=jnp.complex64)).tolist()
    assert max_err(got, dft(x)) < 1e-5
    back = jnp.fft.ifft(jnp.fft.fft(jnp.asarray(x, dtype=jnp.complex64))).tolist()
    assert max_err(back, x) < 1e-5


def test_real_transforms():
    x = [math.sin(0.4 * j) + 0.1 * j for j in range(10)]
    want = dft([complex(v) for v in x])[:6]
    assert max_err(jnp.fft.rfft(jnp.asarray(x)).tolist(), want) < 1e-5
    back = jnp.fft.irfft(jnp.fft.rfft(jnp.asarray(x)), n=10).tolist()
    assert max(abs(a - b) for a, b in zip(back, x)) < 1e-5
    assert jnp.fft.fftfreq(4).tolist() == [0.0, 0.25, -0.5, -0.25]


def test_gradient_of_power_spectrum():
    # against central differences (the loss is quadratic: they are exact up to rounding)
    x = [0.3, -1.2, 0.5, 2.0, 0.1, -0.4]

    def loss(a):
        return jnp.sum(jnp.abs(jnp.fft.rfft(a)) ** 2)
    g = jax.grad(loss)(jnp.asarray(x)).tolist()
    h = 1e-2
    for i in range(len(x)):
        up = [v + (h if j == i else 0) for j, v in enumerate(x)]
        dn = [v - (h if j == i else 0) for j, v in enumerate(x)]
        fd = (float(loss(jnp.asarray(up))) - float(loss(jnp.asarray(dn)))) / (2 * h)
        assert math.isclose(g[i], fd, rel_tol=1e-2, abs_tol=1e-2), (i, g[i], fd)
