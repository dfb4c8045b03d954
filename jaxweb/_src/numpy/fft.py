"""`jax.numpy.fft`: numpy's FFT functions on `lax.fft` (JAX's argument handling: s/n crop
or zero-pad, axes are moved last, norm "backward" / "ortho" / "forward" / None)."""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

from .. import core, dtypes
from ..lax.fft import FftType, fft as lax_fft
from .creation import arange, asarray
from .padding import pad
from .shape import moveaxis, roll
from .util import check_arraylike
from .ufuncs import conjugate

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _norm_factor(s: Sequence[int], func_name: str, norm: str | None) -> float | None:
    if norm is None or norm == "backward":
        return None
    size = float(math.prod(s))
    inverse = func_name.startswith("i")
    if norm == "ortho":
        return math.sqrt(size) if inverse else 1 / math.sqrt(size)
    if norm == "forward":
        return size if inverse else 1 / size
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _core(func_name: str, fft_type: FftType, a: Any, s: Sequence[int] | None,
          axes: Sequence[int] | None, norm: str | None) -> Any:
    full_name = f"jax.numpy.fft.{func_name}"
    check_arraylike(full_name, a)
    arr = asarray(a)
    if s is not None:
        s = tuple(map(operator.index, s))
        if any(d <= 0 for d in s):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    axes = [operator.index(ax) for ax in axes]
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {tuple(axes)}.")
    if orig_axes is not None:
        new_axes = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = moveaxis(arr, axes, new_axes)
        axes = list(new_axes)
    if s is not None:
        in_s = list(arr.shape)
        for ax, d in zip(axes, s):
            in_s[ax] = d
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(d) for d in in_s)]
        arr = pad(arr, [(0, x - y) for x, y in zip(in_s, arr.shape)])
    else:
        if fft_type == FftType.IRFFT:
            s = [arr.shape[ax] for ax in axes[:-1]]
            if axes:
                s += [max(0, 2 * (arr.shape[axes[-1]] - 1))]
        else:
            s = [arr.shape[ax] for ax in axes]
    out = _nd(arr, fft_type, tuple(s))
    factor = _norm_factor(s, func_name, norm)
    if factor is not None:
        out = out * asarray(factor, dtype=out.dtype)
    if orig_axes is not None:
        out = moveaxis(out, axes, [operator.index(a) for a in orig_axes])
    return out


def _nd(arr: Any, fft_type: FftType, s: tuple) -> Any:
    """lax.fft over the trailing len(s) axes, in groups of at most 3 (as JAX does)."""
    if len(s) <= 3:
        return lax_fft(arr, fft_type, s)
    n = 2 if len(s) == 4 else 3
    src = tuple(range(arr.ndim - len(s), arr.ndim - n))
    dst = tuple(range(arr.ndim - len(s) + n, arr.ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = moveaxis(lax_fft(arr, fft_type, s[-n:]), src, dst)
        return moveaxis(_nd(arr, FftType.FFT, s[:-n]), dst, src)
    arr = moveaxis(_nd(moveaxis(arr, src, dst), FftType.IFFT, s[:-n]), dst, src)
    return lax_fft(arr, fft_type, s[-n:])


def _check_1d(func_name: str, axis: Any) -> None:
    if isinstance(axis, (list, tuple)):
        full = f"jax.numpy.fft.{func_name}"
        raise ValueError(f"{full} does not support multiple axes. Please use {full}n. Got axis = {axis!r}.")


def _core_1d(func_name: str, fft_type: FftType, a: Any, n: int | None, axis: int | None,
             norm: str | None) -> Any:
    _check_1d(func_name, axis)
    return _core(func_name, fft_type, a, None if n is None else [n], None if axis is None else [axis], norm)


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """One-dimensional discrete Fourier transform."""
    return _core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """One-dimensional inverse discrete Fourier transform."""
    return _core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """One-dimensional transform of real input (the n//2 + 1 non-negative frequencies)."""
    return _core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Inverse of rfft: n real values (default 2 (m - 1)) from m non-negative frequencies."""
    return _core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of a Hermitian-symmetric signal given by its first half (real output)."""
    conj_a = conjugate(asarray(a))
    _check_1d("hfft", axis)
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    return _core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of hfft: the first half of a Hermitian spectrum from real input."""
    _check_1d("ihfft", axis)
    arr = asarray(a)
    nn = arr.shape[axis] if n is None else n
    return conjugate(_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)) * (1 / nn)


def _core_2d(func_name: str, fft_type: FftType, a: Any, s: Any, axes: Sequence[int], norm: Any) -> Any:
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _core(func_name, fft_type, a, s, axes, norm)


def fft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """Two-dimensional discrete Fourier transform."""
    return _core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """Two-dimensional inverse discrete Fourier transform."""
    return _core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """Two-dimensional transform of real input."""
    return _core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """Inverse of rfft2."""
    return _core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def fftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None) -> Any:
    """N-dimensional discrete Fourier transform."""
    return _core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None) -> Any:
    """N-dimensional inverse discrete Fourier transform."""
    return _core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None) -> Any:
    """N-dimensional transform of real input."""
    return _core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None) -> Any:
    """Inverse of rfftn."""
    return _core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _freq_args(name: str, n: Any, d: Any) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """Sample frequencies of fft: [0, 1, ..., n//2 - 1 or so, -n//2, ..., -1] / (d n)."""
    _freq_args("fftfreq", n, d)
    out_dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float()
    dt = dtypes.real_part_dtype(out_dtype) if out_dtype.kind in "fc" else dtypes.default_float()
    i = arange(n, dtype=dt)
    k = (i + n // 2) % n - n // 2
    out = (k / asarray(d * n, dtype=dt)).astype(out_dtype)
    return out if device is None else out.to_device(device)


def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """Sample frequencies of rfft: [0, 1, ..., n//2] / (d n)."""
    _freq_args("rfftfreq", n, d)
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float()
    k = arange(0, n // 2 + 1, dtype=dt)
    out = k / asarray(d * n, dtype=dt)
    return out if device is None else out.to_device(device)


def _shifts(x: Any, axes: Any, sign: int) -> tuple:
    shape = core.get_aval(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
        return [sign * (d // 2) for d in shape], axes
    if isinstance(axes, int):
        return sign * (shape[axes] // 2), axes
    return [sign * (shape[ax] // 2) for ax in axes], axes


def fftshift(x: Any, axes: Any = None) -> Any:
    """Move the zero frequency to the centre."""
    check_arraylike("fftshift", x)
    x = asarray(x)
    shift, axes = _shifts(x, axes, 1)
    return roll(x, shift, axes)


def ifftshift(x: Any, axes: Any = None) -> Any:
    """The inverse of fftshift."""
    check_arraylike("ifftshift", x)
    x = asarray(x)
    shift, axes = _shifts(x, axes, -1)
    return roll(x, shift, axes)
