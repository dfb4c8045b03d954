"""`jax.scipy.signal`: convolution and correlation (direct and by FFT), detrending, and
the short-time Fourier family (stft, istft, csd, welch) with scipy's conventions.

Direct N-d convolution is one `lax.conv_general_dilated` with the kernel flipped (complex
operands as four real ones); 'same' and 'valid' slice the 'full' result as scipy centres
it. The spectral functions cut the signal into overlapping windowed segments (a gather
of static indices), transform each, and scale as scipy does ('density': 1/(fs Σw²),
'spectrum': 1/(Σw)², square-rooted for stft)."""
from __future__ import annotations

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve",
           "istft", "stft", "welch"]

import math
from typing import Any, Callable

from ... import numpy as jnp
from ..lax import convolution as lax_conv

Array = Any
_MODES = ("full", "same", "valid")


def _pair(in1: Any, in2: Any) -> tuple[Array, Array]:
    """Both operands in their common inexact dtype (integers convolve as floats, as JAX)."""
    a, b = jnp.asarray(in1), jnp.asarray(in2)
    dt = jnp.result_type(a, b, jnp.float32) if not jnp.issubdtype(jnp.result_type(a, b), jnp.inexact) \
        else jnp.result_type(a, b)
    return a.astype(dt), b.astype(dt)


def _valid_order(a: Array, b: Array, what: str) -> tuple[Array, Array]:
    """(larger, smaller) for 'valid' mode: one input must contain the other in every axis."""
    if all(s1 >= s2 for s1, s2 in zip(a.shape, b.shape)):
        return a, b
    if all(s1 <= s2 for s1, s2 in zip(a.shape, b.shape)):
        return b, a
    raise ValueError(what)


def _slice_mode(full: Array, s1: tuple, s2: tuple, mode: str) -> Array:
    """The 'same' (centred on in1) or 'valid' part of a 'full' result."""
    if mode == "full":
        return full
    if mode == "same":
        starts = [(f - n) // 2 for f, n in zip(full.shape, s1)]
        return full[tuple(slice(st, st + n) for st, n in zip(starts, s1))]
    n = [max(a, b) - min(a, b) + 1 for a, b in zip(s1, s2)]
    starts = [min(a, b) - 1 for a, b in zip(s1, s2)]
    return full[tuple(slice(st, st + k) for st, k in zip(starts, n))]


def _conv_real(a: Array, b: Array) -> Array:
    """The 'full' N-d convolution of two real arrays (one conv_general_dilated)."""
    nd = a.ndim
    lhs, rhs = a[None, None], jnp.flip(b)[None, None]
    pads = [(k - 1, k - 1) for k in b.shape]
    dn = lax_conv.conv_dimension_numbers(lhs.shape, rhs.shape, None)
    return lax_conv.conv_general_dilated(lhs, rhs, (1,) * nd, pads, dimension_numbers=dn)[0, 0]


def _conv_full(a: Array, b: Array) -> Array:
    if jnp.issubdtype(a.dtype, jnp.complexfloating):
        ar, ai, br, bi = a.real, a.imag, b.real, b.imag
        return jnp.asarray(_conv_real(ar, br) - _conv_real(ai, bi)) + 1j * (_conv_real(ar, bi) + _conv_real(ai, br))
    return _conv_real(a, b)


def _convolve_nd(in1: Any, in2: Any, mode: str) -> Array:
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    a, b = _pair(in1, in2)
    if a.ndim != b.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if a.size == 0 or b.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes {a.shape} and {b.shape}.")
    s1, s2 = a.shape, b.shape
    if mode == "valid":
        a, b = _valid_order(a, b, "One input must be smaller than the other in every dimension.")
    return _slice_mode(_conv_full(a, b), s1, s2, mode)


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Array:
    """N-d convolution through the FFT (over `axes`; the other axes must match)."""
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    a, b = _pair(in1, in2)
    if a.ndim != b.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    axes = tuple(range(a.ndim)) if axes is None else tuple(ax % a.ndim for ax in ((axes,) if isinstance(axes, int) else axes))
    for ax in range(a.ndim):
        if ax not in axes and a.shape[ax] != b.shape[ax]:
            raise ValueError(f"mapped axes must have same shape; got in1.shape={a.shape} in2.shape={b.shape} {axes=}")
    s1 = a.shape
    if mode == "valid":
        sub = lambda x: tuple(x.shape[i] for i in axes)  # noqa: E731
        big, _ = _valid_order(jnp.zeros(sub(a)), jnp.zeros(sub(b)),
                              "For 'valid' mode, One input must be at least as large as the other in every dimension.")
        if big.shape != sub(a):
            a, b = b, a
    full = [a.shape[i] + b.shape[i] - 1 for i in axes]
    complex_ = jnp.issubdtype(a.dtype, jnp.complexfloating)
    fwd, inv = (jnp.fft.fftn, jnp.fft.ifftn) if complex_ else (jnp.fft.rfftn, jnp.fft.irfftn)
    out = inv(fwd(a, full, axes) * fwd(b, full, axes), full, axes)
    out = out.astype(a.dtype) if jnp.issubdtype(a.dtype, jnp.inexact) else out
    idx = [slice(None)] * a.ndim
    for i in axes:
        n1, n2 = s1[i] if mode != "valid" else a.shape[i], b.shape[i]
        f = a.shape[i] + b.shape[i] - 1
        if mode == "same":
            st = (f - s1[i]) // 2
            idx[i] = slice(st, st + s1[i])
        elif mode == "valid":
            idx[i] = slice(min(n1, n2) - 1, max(n1, n2))
    return out[tuple(idx)]


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None) -> Array:
    """N-d convolution ('direct' or 'fft'; 'auto' is direct, as JAX)."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("auto", "direct"):
        return _convolve_nd(in1, in2, mode)
    raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None) -> Array:
    """N-d cross-correlation: convolve(in1, flip(conj(in2)))."""
    return convolve(in1, jnp.flip(_conj(jnp.asarray(in2))), mode, method=method)


def _check_2d(name: str, in1: Any, in2: Any, boundary: str, fillvalue: Any) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0,
               precision: Any = None) -> Array:
    """2-D convolution (zero fill at the boundary only)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(in1, in2, mode)


def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0,
                precision: Any = None) -> Array:
    """2-D cross-correlation as a flipped convolution. Which operand is flipped follows
    JAX (it decides where 'same' centres an even kernel, and that a larger in2 gives
    the swapped, conjugated correlation in 'full' and 'valid' modes, as scipy)."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    a, b = _pair(in1, in2)
    swap = all(s1 <= s2 for s1, s2 in zip(a.shape, b.shape))
    flip_conv = lambda u, v, m: _convolve_nd(jnp.flip(u), _conj(v), m)  # noqa: E731
    if mode == "same" or not swap or (mode == "valid" and a.shape == b.shape):
        return jnp.flip(flip_conv(a, b, mode))
    out = flip_conv(b, a, mode)
    return _conj(out) if mode == "full" else out


def _conj(x: Array) -> Array:
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


def detrend(data: Any, axis: int = -1, type: str = "linear", bp: Any = 0, overwrite_data: Any = None) -> Array:
    """Remove the mean ('constant') or the least-squares line of each piece between the
    breakpoints `bp` ('linear') along `axis`."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear", "c", "l"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    x = jnp.asarray(data)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.result_type(float))
    if type in ("constant", "c"):
        return x - jnp.mean(x, axis, keepdims=True)
    n = x.shape[axis]
    bps = sorted({0, *(int(v) for v in jnp.atleast_1d(jnp.asarray(bp)).tolist()), n})
    if bps[0] < 0 or bps[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data along given axis.")
    y = jnp.moveaxis(x, axis, -1)
    pieces = []
    for lo, hi in zip(bps[:-1], bps[1:]):
        seg = y[..., lo:hi]
        t = jnp.arange(hi - lo, dtype=seg.real.dtype)
        tc = t - t.mean()
        denom = jnp.sum(tc * tc)
        slope = jnp.sum(seg * tc, -1, keepdims=True) / jnp.where(denom == 0, 1, denom)
        pieces.append(seg - seg.mean(-1, keepdims=True) - slope * tc)
    return jnp.moveaxis(jnp.concatenate(pieces, -1), -1, axis)


# ---------------------------------------------------------------- spectral analysis
def _window(window: Any, nperseg: int, dtype: Any) -> Array:
    """A periodic window of nperseg points ('hann'/'hanning', 'boxcar'/'ones', or an array;
    other names through scipy.signal.get_window when scipy is installed, as JAX)."""
    if isinstance(window, str) or isinstance(window, tuple):
        if window in ("hann", "hanning"):
            n = jnp.arange(nperseg, dtype=dtype)
            return 0.5 - 0.5 * jnp.cos(2 * math.pi * n / nperseg)
        if window in ("boxcar", "ones", "rectangular", "rect"):
            return jnp.ones(nperseg, dtype)
        try:
            import scipy.signal as ss  # noqa: PLC0415  (optional third-party windows, as JAX)
        except ImportError as err:
            raise ImportError(f"scipy must be available to use {window=}") from err
        return jnp.asarray(ss.get_window(window, nperseg), dtype=dtype)
    win = jnp.asarray(window, dtype=dtype)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if win.shape[0] != nperseg:
        raise ValueError(f"window must have length of {nperseg}")
    return win


def _extend(x: Array, n: int, kind: str) -> Array:
    """x (last axis) extended by n points each side: 'zeros', 'even', 'odd', 'constant'."""
    if n == 0:
        return x
    if kind == "zeros":
        return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)])
    if kind == "constant":
        return jnp.concatenate([jnp.repeat(x[..., :1], n, -1), x, jnp.repeat(x[..., -1:], n, -1)], -1)
    left, right = jnp.flip(x[..., 1:n + 1], -1), jnp.flip(x[..., -n - 1:-1], -1)
    if kind == "odd":
        left, right = 2 * x[..., :1] - left, 2 * x[..., -1:] - right
    return jnp.concatenate([left, x, right], -1)


def _detrender(detrend_type: Any) -> Callable[[Array], Array]:
    if detrend_type is False or detrend_type is None:
        return lambda s: s
    if callable(detrend_type):
        return detrend_type
    if detrend_type in ("constant", "linear"):
        return lambda s: detrend(s, -1, detrend_type)
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _spectral(x: Any, y: Any, fs: Any, window: Any, nperseg: int | None, noverlap: int | None,
              nfft: int | None, detrend_type: Any, return_onesided: bool, scaling: str, axis: int,
              mode: str, boundary: str | None, padded: bool) -> tuple[Array, Array, Array]:
    """(freqs, segment times, per-segment spectra with frequencies then segments last)."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in (None, "zeros", "even", "odd", "constant"):
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         "['even', 'odd', 'constant', 'zeros', None]")
    xa = jnp.moveaxis(jnp.asarray(x), axis, -1)
    ya = None if y is None else jnp.moveaxis(jnp.asarray(y), axis, -1)
    dt = jnp.result_type(xa, ya if ya is not None else xa, jnp.float32)
    real_dt = jnp.finfo(dt).dtype if jnp.issubdtype(dt, jnp.complexfloating) else dt
    xa = xa.astype(dt)
    if ya is not None:
        ya = ya.astype(dt)
        xa, ya = jnp.broadcast_arrays(xa, ya) if xa.shape[:-1] != ya.shape[:-1] else (xa, ya)
    n = xa.shape[-1]
    if not isinstance(window, (str, tuple)):
        nperseg = jnp.asarray(window).shape[0] if nperseg is None else nperseg
    nperseg = min(n, 256) if nperseg is None else int(nperseg)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if n and nperseg > n and isinstance(window, (str, tuple)):
        nperseg = n
    nfft = nperseg if nfft is None else int(nfft)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    win = _window(window, nperseg, real_dt)

    def segments(v: Array) -> Array:
        if boundary is not None:
            v = _extend(v, nperseg // 2, boundary)
        if padded:
            extra = (-(v.shape[-1] - nperseg) % step) % nperseg
            v = jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, extra)])
        count = (v.shape[-1] - nperseg) // step + 1
        idx = jnp.arange(count)[:, None] * step + jnp.arange(nperseg)[None, :]
        return v[..., idx], v.shape[-1]

    onesided = return_onesided and not jnp.issubdtype(dt, jnp.complexfloating)
    fft = (lambda s: jnp.fft.rfft(s, nfft)) if onesided else (lambda s: jnp.fft.fft(s, nfft))
    detr = _detrender(detrend_type)
    xs, total = segments(xa)
    fx = fft(detr(xs) * win)
    if scaling == "density":
        scale = 1.0 / (fs * jnp.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / jnp.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        out = fx * jnp.sqrt(scale)
    else:
        fy = fx if ya is None else fft(detr(segments(ya)[0]) * win)
        out = jnp.conj(fx) * fy * scale
        if onesided:
            last = -1 if nfft % 2 == 0 else None
            out = out.at[..., 1:last].multiply(2)
    freqs = (jnp.fft.rfftfreq if onesided else jnp.fft.fftfreq)(nfft, 1 / fs).astype(real_dt)
    times = jnp.arange(nperseg / 2, total - nperseg / 2 + 1, step, dtype=real_dt) / fs
    if boundary is not None:
        times = times - (nperseg / 2) / fs
    return freqs, times, jnp.swapaxes(out, -1, -2)


def _place(result: Array, axis: int, ndim: int) -> Array:
    """Frequencies back at `axis` of the input (segments stay last), as scipy."""
    ax = axis % ndim
    return result if ax == ndim - 1 else jnp.moveaxis(result, -2, ax)


def stft(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int = 256, noverlap: int | None = None,
         nfft: int | None = None, detrend: Any = False, return_onesided: bool = True,
         boundary: str | None = "zeros", padded: bool = True, axis: int = -1) -> tuple[Array, Array, Array]:
    """(frequencies, segment times, Zxx): the short-time Fourier transform."""
    f, t, z = _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                        "spectrum", axis, "stft", boundary, padded)
    return f, t, _place(z, axis, jnp.ndim(x))


def csd(x: Any, y: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None,
        noverlap: int | None = None, nfft: int | None = None, detrend: Any = "constant",
        return_onesided: bool = True, scaling: str = "density", axis: int = -1,
        average: str = "mean") -> tuple[Array, Array]:
    """(frequencies, Pxy): the cross spectral density by Welch's method (y None: x with itself)."""
    f, _, p = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
                        axis, "psd", None, False)
    if p.ndim >= 2 and p.size > 0:
        if p.shape[-1] > 1:
            if average == "median":
                bias = _median_bias(p.shape[-1])
                med = jnp.median(p.real, -1)
                if jnp.iscomplexobj(p):
                    med = med + 1j * jnp.median(p.imag, -1)
                p = med / bias
            elif average == "mean":
                p = p.mean(-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            p = p[..., 0]
    return f, jnp.moveaxis(p, -1, axis) if p.ndim else p


def _median_bias(n: int) -> float:
    """scipy's bias of the median of n chi-squared(2) periodogram values."""
    ii = range(1, (n - 1) // 2 + 1)
    return 1 + sum(1.0 / (2 * i + 1) - 1.0 / (2 * i) for i in ii)


def welch(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None, noverlap: int | None = None,
          nfft: int | None = None, detrend: Any = "constant", return_onesided: bool = True,
          scaling: str = "density", axis: int = -1, average: str = "mean") -> tuple[Array, Array]:
    """(frequencies, Pxx): the power spectral density by Welch's method."""
    f, p = csd(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis, average)
    return f, p.real


def istft(Zxx: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, input_onesided: bool = True,
          boundary: bool = True, time_axis: int = -1, freq_axis: int = -2) -> tuple[Array, Array]:
    """(times, x): the inverse of stft by windowed overlap-add (scipy's normalization)."""
    z = jnp.asarray(Zxx)
    if z.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    ta, fa = time_axis % z.ndim, freq_axis % z.ndim
    if ta == fa:
        raise ValueError("Must specify differing time and frequency axes!")
    z = jnp.moveaxis(z, (fa, ta), (-2, -1))
    nfreq = z.shape[-2]
    if nperseg is None:
        nperseg = 2 * (nfreq - 1) if input_onesided else nfreq
    nperseg = int(nperseg)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    nfft = (2 * (nfreq - 1) if input_onesided else nfreq) if nfft is None else int(nfft)
    if nfft < nperseg:
        raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    real_dt = jnp.finfo(z.dtype).dtype if jnp.iscomplexobj(z) else jnp.float32
    win = _window(window, nperseg, real_dt)
    segs = (jnp.fft.irfft(z, nfft, axis=-2) if input_onesided else jnp.fft.ifft(z, nfft, axis=-2))
    segs = jnp.swapaxes(segs[..., :nperseg, :], -1, -2) * jnp.sum(win)  # (..., nseg, nperseg)
    count = segs.shape[-2]
    total = nperseg + (count - 1) * step
    pos = (jnp.arange(count)[:, None] * step + jnp.arange(nperseg)[None, :]).ravel()
    flat = (segs * win).reshape(segs.shape[:-2] + (-1,))
    out = jnp.zeros(segs.shape[:-2] + (total,), flat.dtype).at[..., pos].add(flat)
    norm = jnp.zeros((total,), real_dt).at[pos].add(jnp.tile(win * win, count))
    out = out / jnp.where(norm > 1e-10, norm, 1.0)
    if boundary:
        out = out[..., nperseg // 2: total - nperseg // 2]
    times = jnp.arange(out.shape[-1], dtype=real_dt) / fs
    return times, out
