"""`lax.fft`: the FFT primitive with JAX's shape rules, error messages and rules.

One primitive `fft` transforms the trailing len(fft_lengths) axes (FFT, IFFT complex to
complex, RFFT real to the n//2 + 1 non-negative frequencies, IRFFT back). It is linear:
its JVP is itself, its transpose is an FFT (the DFT matrix is symmetric), and the real
transforms' transposes are JAX's (RFFT's is an IRFFT of the cotangent with the
Hermitian-duplicated bins halved, IRFFT's an RFFT with them doubled). Batching moves
the mapped axis in front.

Lowering: the complex operand is split into its real and imaginary parts, each axis is
transformed by `fft_passes` (Stockham passes of fused kernels, Bluestein for large
primes), and the parts are joined again. An eager call runs as a one-equation compiled
program cached per shape (as the linalg primitives do), so its passes are scheduled
and code-generated once, not on every flush.
"""
from __future__ import annotations

__all__ = ["fft", "fft_p", "FftType"]

import enum
import math
from typing import Any, Sequence

from .. import core, dtypes
from ..lowering import current_target
from ..compiler import expr as E, graph
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..interpreters import rules as R
from ..interpreters.batching import bdim_at_front
from . import fft_passes
from .complex import conj
from .elementwise import asarray, convert_element_type
from ..executable import one_equation_impl


class FftType(enum.IntEnum):
    """Which FFT operation to perform (JAX's values)."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


_BY_NAME = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT, "irfft": FftType.IRFFT}


def _fft_type(t: Any) -> FftType:
    if isinstance(t, FftType):
        return t
    if isinstance(t, str):
        if t.lower() in _BY_NAME and (t.islower() or t.isupper()):
            return _BY_NAME[t.lower()]
        raise ValueError(f"Unknown FFT type '{t}'")
    raise TypeError(f"Unknown FFT type value '{t}'")


fft_p = core.Primitive("fft")


@core.def_abstract_eval(fft_p)
def _fft_abstract(x, *, fft_type, fft_lengths):
    nd = len(fft_lengths)
    if nd > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input dimensions "
                         f"as fft_lengths {fft_lengths}.")
    minor = x.shape[x.ndim - nd:]
    if fft_type == FftType.RFFT:
        if x.dtype not in (dtypes.float32, dtypes.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype.name}")
        if minor != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                             f"fft_lengths {fft_lengths}")
        shape = x.shape[:x.ndim - nd] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
        return x.update(shape=shape, dtype=dtypes.complex_of(x.dtype), weak_type=False)
    if x.dtype.kind != "c":
        raise ValueError(f"{fft_type.name} input must be complex64 or complex128, got {x.dtype.name}")
    if fft_type == FftType.IRFFT:
        if minor[:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to all "
                             f"except the last fft_length, got fft_lengths={fft_lengths}")
        if minor[-1] != fft_lengths[-1] // 2 + 1:
            raise ValueError(f"IRFFT input shape {x.shape} last dimension must be "
                             f"fft_lengths[-1] // 2 + 1 = {fft_lengths[-1] // 2 + 1}")
        shape = x.shape[:x.ndim - nd] + fft_lengths
        return x.update(shape=shape, dtype=dtypes.real_part_dtype(x.dtype), weak_type=False)
    if minor != fft_lengths:
        raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                         f"fft_lengths {fft_lengths}")
    return x.update(weak_type=False)


# ---------------------------------------------------------------- lowering
def _device() -> Any:
    return current_target()


def _along(x: fft_passes.Pair, axis: int, sign: int, last: bool) -> fft_passes.Pair:
    """The DFT of both parts along `axis` (moved last and flattened to (B, n) for the passes)."""
    shape = x[0].shape
    nd = len(shape)
    order = [a for a in range(nd) if a != axis] + [axis]
    moved = tuple(shape[a] for a in order)
    flat = (math.prod(moved[:-1]), moved[-1])
    parts = [p.permute(order).reshape(flat) for p in x]
    out = fft_passes.transform((parts[0], parts[1]), sign, _device(), last)
    back = [order.index(a) for a in range(nd)]
    return tuple(p.reshape(moved).permute(back) for p in out)


def _hermitian_full(x: fft_passes.Pair, n: int) -> fft_passes.Pair:
    """The n-point spectrum whose first n//2 + 1 bins are x (last axis): Z[k] = conj(X[n-k])."""
    xr, xi = x
    shape = xr.shape[:-1] + (n,)
    last = len(shape) - 1

    def part(which: int) -> Node:
        src = xr if which == 0 else xi

        def at(ctx, idxs):
            k = idxs[last]
            upper = E.binary("gt", k, E.const(n // 2, dtypes.int32))
            j = E.where(upper, E.const(n, dtypes.int32) - k, k)
            v = src.at(ctx, list(idxs[:last]) + [j])
            return E.where(upper, -v, v) if which else v
        return graph.fn(shape, src.dtype, at, (src,), "fft")
    return part(0), part(1)


def _scale(x: fft_passes.Pair, c: float) -> fft_passes.Pair:
    return tuple(graph.alu("mul", p, graph.const(c, p.dtype, p.shape)) for p in x)


@def_lowering(fft_p)
def _fft_lower(x: Node, *, fft_type, fft_lengths):
    nd = len(fft_lengths)
    axes = list(range(x.ndim - nd, x.ndim))
    if fft_type == FftType.RFFT:
        pair = (x, graph.const(0.0, x.dtype, x.shape))
        m = fft_lengths[-1] // 2 + 1
        pair = _along(pair, axes[-1], -1, nd == 1)
        keep = [(0, d) for d in x.shape[:-1]] + [(0, m)]
        pair = tuple(p.shrink(keep) for p in pair)
        for i, a in enumerate(reversed(axes[:-1])):
            pair = _along(pair, a, -1, i == nd - 2)
        return graph.make_complex(*pair)
    pair = (graph.alu("real", x), graph.alu("imag", x))
    if fft_type == FftType.IRFFT:
        for a in axes[:-1]:
            pair = _along(pair, a, 1, False)
        pair = _along(_hermitian_full(pair, fft_lengths[-1]), axes[-1], 1, True)
        return _scale(pair, 1.0 / math.prod(fft_lengths))[0]
    sign = -1 if fft_type == FftType.FFT else 1
    for i, a in enumerate(reversed(axes)):
        pair = _along(pair, a, sign, i == nd - 1)
    if fft_type == FftType.IFFT:
        pair = _scale(pair, 1.0 / math.prod(fft_lengths))
    return graph.make_complex(*pair)


core.impl_rules[fft_p] = one_equation_impl(fft_p)  # eager: the one-equation program, compiled once


# ---------------------------------------------------------------- rules
def _bin_weights(t: Any, fft_lengths: tuple, double: float) -> Any:
    """1 at the DC (and, for even n, Nyquist) bin and `double` elsewhere, along the last axis."""
    m = core.get_aval(t).shape[-1]
    even = fft_lengths[-1] % 2 == 0
    weights = [1.0 if k == 0 or (k == m - 1 and even) else double for k in range(m)]
    return asarray(weights, dtypes.real_part_dtype(core.get_aval(t).dtype))


def _fft_transpose(t, x, *, fft_type, fft_lengths):
    if isinstance(t, R.Zero):
        return [R.Zero(x.aval)]
    size = math.prod(fft_lengths)
    if fft_type == FftType.RFFT:
        return [size * fft(conj(t) * _bin_weights(t, fft_lengths, 0.5), FftType.IRFFT, fft_lengths)]
    if fft_type == FftType.IRFFT:
        spec = fft(t, FftType.RFFT, fft_lengths)
        return [conj(spec * (_bin_weights(spec, fft_lengths, 2.0) / size))]
    return [fft(t, fft_type, fft_lengths)]


def _fft_batch(args, dims, *, fft_type, fft_lengths):
    (x,), (d,) = args, dims
    x = bdim_at_front(x, d, core.get_aval(x).shape[d])
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), 0


R.deflinear(fft_p, _fft_transpose)
R.primitive_batchers[fft_p] = _fft_batch


def fft(x: Any, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Any:
    """`lax.fft`: the transform `fft_type` over the trailing len(fft_lengths) axes;
    integer and real inputs are converted as in JAX (to complex, or for RFFT to float)."""
    typ = _fft_type(fft_type)
    aval = core.get_aval(x)
    if typ == FftType.RFFT:
        if aval.dtype.kind == "c":
            raise ValueError("only real valued inputs supported for rfft")
        x = convert_element_type(x, aval.dtype if aval.dtype.kind == "f" else dtypes.default_float())
    else:
        real = aval.dtype if aval.dtype.kind in "fc" else dtypes.default_float()
        x = convert_element_type(x, dtypes.complex_of(real))
    fft_lengths = tuple(int(n) for n in fft_lengths)
    if not fft_lengths:
        return x
    return fft_p.bind(x, fft_type=typ, fft_lengths=fft_lengths)
