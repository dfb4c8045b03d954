"""The FFT as graph nodes: Stockham passes over (real, imaginary) pairs, Bluestein for
lengths with a large prime factor.

A transform of length n = r1 r2 ... rk is k passes; pass i combines radix r = ri over
the current run length L (the product of the earlier radices) into L' = r L:

    Y[b, t, j] = sum_s w_L'^(s t) X[b, t mod L, s, j]        (t < L', j < n / L')

where X is the previous pass's (B, L, n/L) array read as (B, L, r, n/L'), and
w_L'^(s t) = w_n^((s t mod L') n/L'), read from one table of n twiddles
(cos 2 pi t/n, sin 2 pi t/n computed in float64 on the host) shared by every pass of
the length. Each pass is one fused kernel over the whole batch computing both parts
(`buffered`: its value is read at r indices, so it is never recomputed per use); no
digit-reversal permutation is needed (Stockham autosort) and the last pass of a
program fuses into its consumer. The passes work on real nodes only (complex nodes are
split into parts before), so every backend runs them as ordinary float kernels.

Radices: 4, then 2, 3, 5, then other primes up to MAX_RADIX (a pass of radix p is a
direct p-point DFT, cheaper than Bluestein for small p). A length with a larger prime
factor uses Bluestein's chirp-z identity: the length-n DFT is a circular convolution
of length M (a power of two >= 2n - 1) with a chirp, computed by two power-of-two
transforms and a pointwise product with the chirp's transform (computed on the host in
float64 once per length).
"""
from __future__ import annotations

import array
import cmath
import math
from typing import Any

from .. import core, dtypes
from ..array import Array
from ..compiler import expr as E
from ..compiler import graph
from ..compiler.graph import Node
from ..compiler.shapetracker import ShapeTracker
from ..device import Buffer

#: primes up to this are direct passes (a p-point DFT costs p multiplies per output; Bluestein
#: costs about 25 and compiles into small kernels); larger prime factors use Bluestein
MAX_RADIX = 16

Pair = tuple[Node, Node]


def factors(n: int) -> list[int] | None:
    """The radices of n's passes (4s first: fewest passes), or None when n has a prime
    factor above MAX_RADIX."""
    out: list[int] = []
    while n % 4 == 0:
        out.append(4)
        n //= 4
    p = 2
    while n > 1 and p <= MAX_RADIX:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1 if p == 2 else 2
    return out if n == 1 else None


# ---------------------------------------------------------------- host-side tables
_TABLES: dict = {}


def _table(key: tuple, values: list[float], dt: dtypes.DType, device: Any) -> Node:
    """A realized 1-d node holding `values` (cached per key, dtype and device; the cache
    keeps each table's Array, so its buffer lives as long as the process)."""
    k = (key, dt, id(device))
    hit = _TABLES.get(k)
    if hit is None:
        buf = Buffer(device, len(values), dt)
        buf.write(array.array("d" if dt is dtypes.float64 else "f", values).tobytes())
        st = ShapeTracker.from_shape((len(values),))
        hit = _TABLES[k] = Array.from_buffer(core.ShapedArray((len(values),), dt), buf, st)
    return hit.realized_node()


def _twiddles(n: int, dt: dtypes.DType, device: Any) -> Pair:
    """cos(2 pi t / n), sin(2 pi t / n) for t < n, exact to float64 (by symmetry: the
    angle is reduced to the first octant before calling cos and sin)."""
    cos, sin = [], []
    for t in range(n):
        c, s = _unit(t, n)
        cos.append(c)
        sin.append(s)
    return _table(("cos", n), cos, dt, device), _table(("sin", n), sin, dt, device)


def _unit(t: int, n: int) -> tuple[float, float]:
    """(cos, sin) of 2 pi t / n, the angle reduced exactly (in integers) to [0, pi/4]."""
    quadrant, rem = divmod(4 * (t % n), n)  # angle = pi/2 (quadrant + rem / n)
    if 2 * rem <= n:
        a = math.pi / 2 * rem / n
        c, s = math.cos(a), math.sin(a)
    else:
        a = math.pi / 2 * (n - rem) / n
        c, s = math.sin(a), math.cos(a)
    for _ in range(quadrant):
        c, s = -s, c
    return c, s


# ---------------------------------------------------------------- one pass
def _cmul(ar: E.Expr, ai: E.Expr, wr: E.Expr, wi: E.Expr, part: int) -> E.Expr:
    return ar * wr - ai * wi if part == 0 else ar * wi + ai * wr


def _pass(x: Pair, tw: Pair, n: int, run: int, r: int, sign: int, last: bool) -> Pair:
    """One Stockham pass of radix r over (B, n) parts at run length `run` (see the module)."""
    xr, xi = x
    cos_t, sin_t = tw
    batch, dt = xr.shape[0], xr.dtype
    m = n // run
    mp = m // r
    lp = run * r
    step = n // lp

    def part(which: int) -> Node:
        def at(ctx, idxs):
            b, t, j = idxs
            k = t % run if run > 1 else E.const(0, dtypes.int32)
            acc = None
            for s in range(r):
                off = k * m + (s * mp) + j
                ar, ai = xr.at(ctx, [b, off]), xi.at(ctx, [b, off])
                if s == 0:
                    term = ar if which == 0 else ai
                else:
                    e = ((t * s) % lp) * step
                    wr = cos_t.at(ctx, [e])
                    ws = sin_t.at(ctx, [e])
                    wi = -ws if sign < 0 else ws
                    term = _cmul(ar, ai, wr, wi, which)
                acc = term if acc is None else acc + term
            return acc
        node = graph.fn((batch, lp, mp), dt, at, (xr, xi, cos_t, sin_t), "fft", buffered=not last)
        return node.reshape((batch, n))
    return part(0), part(1)


def _radix_passes(x: Pair, n: int, radices: list[int], sign: int, device: Any, last: bool) -> Pair:
    tw = _twiddles(n, x[0].dtype, device)
    run = 1
    for i, r in enumerate(radices):
        x = _pass(x, tw, n, run, r, sign, last and i == len(radices) - 1)
        run *= r
    return x


# ---------------------------------------------------------------- Bluestein
def _host_fft(v: list[complex]) -> list[complex]:
    """Iterative radix-2 FFT in float64 (len(v) a power of two): the chirp's transform."""
    n = len(v)
    bits = n.bit_length() - 1
    out = [v[int(format(i, f"0{bits}b")[::-1], 2)] if bits else v[i] for i in range(n)]
    size = 2
    while size <= n:
        half = size // 2
        ws = [cmath.exp(-2j * math.pi * k / size) for k in range(half)]
        for start in range(0, n, size):
            for k in range(half):
                a, b = out[start + k], out[start + k + half] * ws[k]
                out[start + k], out[start + k + half] = a + b, a - b
        size *= 2
    return out


def _chirp(n: int, sign: int) -> list[tuple[float, float]]:
    """b_j = exp(sign pi i j^2 / n) for j < n (j^2 reduced mod 2n exactly)."""
    out = []
    for j in range(n):
        c, s = _unit(j * j % (2 * n), 2 * n)
        out.append((c, sign * s))
    return out


def _chirp_tables(n: int, sign: int, size: int) -> list[list[float]]:
    """The chirp b (real, imaginary parts) and the transform of the convolution kernel
    h_m = conj(b_|m|) (circular, length `size`) divided by `size`, in float64."""
    chirp = _chirp(n, sign)
    h = [0j] * size
    for m, (c, s) in enumerate(chirp):
        h[m] = h[(size - m) % size] = complex(c, -s)
    spectrum = [v / size for v in _host_fft(h)]
    return [[c for c, _ in chirp], [s for _, s in chirp], [v.real for v in spectrum], [v.imag for v in spectrum]]


def _bluestein(x: Pair, n: int, sign: int, device: Any) -> Pair:
    """X_k = b_k sum_j (x_j b_j) conj(b_(k-j)): a circular convolution of length M."""
    dt = x[0].dtype
    size = 1 << (2 * n - 2).bit_length()
    names = [("bluestein", n, sign, part) for part in ("br", "bi", "hr", "hi")]
    if (names[0], dt, id(device)) not in _TABLES:
        for name, values in zip(names, _chirp_tables(n, sign, size)):
            _table(name, values, dt, device)
    br, bi, hr, hi = (_table(name, [], dt, device) for name in names)
    batch = x[0].shape[0]

    def bcast(v: Node, length: int) -> Node:
        return v.reshape((1, length)).expand((batch, length))

    xr, xi = x
    cr, ci = bcast(br, n), bcast(bi, n)
    a = (_sub(_mul(xr, cr), _mul(xi, ci)), _add(_mul(xr, ci), _mul(xi, cr)))
    pad = [(0, 0), (0, size - n)]
    a = (a[0].pad(pad), a[1].pad(pad))
    radices = factors(size)
    f = _radix_passes(a, size, radices, -1, device, False)
    gr, gi = bcast(hr, size), bcast(hi, size)
    g = (_sub(_mul(f[0], gr), _mul(f[1], gi)), _add(_mul(f[0], gi), _mul(f[1], gr)))
    conv = _radix_passes(g, size, radices, 1, device, False)
    keep = [(0, batch), (0, n)]
    cr2, ci2 = conv[0].shrink(keep), conv[1].shrink(keep)
    return (_sub(_mul(cr2, cr), _mul(ci2, ci)), _add(_mul(cr2, ci), _mul(ci2, cr)))


def _mul(a: Node, b: Node) -> Node:
    return graph.alu("mul", a, b)


def _add(a: Node, b: Node) -> Node:
    return graph.alu("add", a, b)


def _sub(a: Node, b: Node) -> Node:
    return graph.alu("sub", a, b)


# ---------------------------------------------------------------- entry point
def transform(x: Pair, sign: int, device: Any, last: bool) -> Pair:
    """The unnormalized DFT (sign -1) or its conjugate (sign +1) along the last axis of
    (B, n) parts; `last`: the result is the program's (its final pass may fuse onward)."""
    n = x[0].shape[-1]
    if n <= 1:
        return x
    radices = factors(n)
    if radices is None:
        return _bluestein(x, n, sign, device)
    return _radix_passes(x, n, radices, sign, device, last)
