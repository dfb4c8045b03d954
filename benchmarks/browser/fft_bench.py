# Python side of the FFT benchmark page (fft.mjs loads it into Pyodide). Each case returns
# per-run seconds of a jitted jnp.fft.fft of 2^p complex64 points (compiled by warm-up
# calls first), timed as a user runs it; jax-js gets the same input bytes.
import time

import jaxweb as jax
import jaxweb.numpy as jnp

from page_timing import timed

_dev = jax.devices("wasm")[0]
_state = {}
_fft = jax.jit(jnp.fft.fft)


def _input(n):
    """x_j = sin(0.7 j) + i cos(0.3 j): complex64, and its two float32 parts."""
    if n not in _state:
        with jax.default_device(_dev):
            j = jnp.arange(n, dtype=jnp.float32)
            re, im = jnp.sin(j * 0.7), jnp.cos(j * 0.3)
            x = jax.lax.complex(re, im).block_until_ready()
        _state[n] = (x, re.block_until_ready(), im.block_until_ready())
    return _state[n]


def compile_seconds(n):
    """The first call's time: tracing, scheduling and code generation, then one run."""
    x = _input(n)[0]
    t = time.perf_counter()
    with jax.default_device(_dev):
        _fft(x).block_until_ready()
    return time.perf_counter() - t


def bench(n, reps):
    x = _input(n)[0]
    with jax.default_device(_dev):
        return timed(lambda: _fft(x).block_until_ready(), reps)


def part_bytes(which, n):
    """Input part (0: real, 1: imaginary) or result part (2, 3) as float32 bytes."""
    x, re, im = _input(n)
    if which < 2:
        return bytes((re if which == 0 else im).contiguous_buffer().read())
    with jax.default_device(_dev):
        y = _fft(x)
        part = jnp.real(y) if which == 2 else jnp.imag(y)
        return bytes(part.block_until_ready().contiguous_buffer().read())


def kernels(n):
    x = _input(n)[0]
    with jax.default_device(_dev):
        return _fft.lower(x).compile().cost_analysis()["kernels"]
