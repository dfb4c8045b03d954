"""`jax.scipy.linalg`'s special matrices: circulant, companion, convolution_matrix, dft,
fiedler, fiedler_companion, hadamard, hankel, helmert, hilbert, invhilbert, pascal,
invpascal, leslie, toeplitz — each built by indexing its defining vector (batched over
leading axes where JAX's are) or from exact integer formulas evaluated in Python."""
from __future__ import annotations

__all__ = ["circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion", "hadamard",
           "hankel", "helmert", "hilbert", "invhilbert", "invpascal", "leslie", "pascal", "toeplitz"]

import math
from typing import Any

from ... import numpy as jnp

Array = Any


def circulant(c: Any) -> Array:
    """C[..., i, j] = c[..., (i - j) mod n]."""
    c = jnp.asarray(c)
    n = c.shape[-1]
    idx = (jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n
    return c[..., idx]


def toeplitz(c: Any, r: Any = None) -> Array:
    """T[..., i, j] = c[i - j] below the diagonal, r[j - i] above (r defaults to conj(c))."""
    c = jnp.asarray(c)
    r = jnp.conj(c) if r is None else jnp.asarray(r)
    dt = jnp.result_type(c, r)
    c, r = c.astype(dt), r.astype(dt)
    m, n = c.shape[-1], r.shape[-1]
    batch = jnp.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    c, r = jnp.broadcast_to(c, batch + (m,)), jnp.broadcast_to(r, batch + (n,))
    vals = jnp.concatenate([jnp.flip(r[..., 1:], -1), c], -1)  # r[n-1], ..., r[1], c[0], ..., c[m-1]
    idx = (jnp.arange(m)[:, None] - jnp.arange(n)[None, :]) + (n - 1)
    return vals[..., idx]


def hankel(c: Any, r: Any = None) -> Array:
    """H[i, j] = c[i + j] for i + j < len(c), then r[i + j - len(c) + 1] (r defaults to 0)."""
    c = jnp.ravel(jnp.asarray(c))
    r = jnp.zeros_like(c) if r is None else jnp.ravel(jnp.asarray(r))
    dt = jnp.result_type(c, r)
    vals = jnp.concatenate([c.astype(dt), r[1:].astype(dt)])
    return vals[jnp.arange(c.shape[0])[:, None] + jnp.arange(r.shape[0])[None, :]]


def companion(a: Any) -> Array:
    """The companion matrix of the polynomial with coefficients a (leading first)."""
    a = jnp.asarray(a)
    if a.ndim != 1:
        raise ValueError("Incorrect shape for `a`.  `a` must be one-dimensional.")
    if a.shape[0] < 2:
        raise ValueError("The length of `a` must be at least 2.")
    first = -a[1:] / (1.0 * a[0])
    n = a.shape[0] - 1
    sub = jnp.eye(n - 1, n, dtype=first.dtype)
    return jnp.concatenate([first[None, :], sub], 0)


def convolution_matrix(a: Any, n: int, mode: str = "full") -> Array:
    """A with A @ v == jnp.convolve(a, v, mode) for every v of length n."""
    a = jnp.asarray(a)
    if a.ndim != 1:
        raise ValueError("convolution_matrix expects a one-dimensional argument.")
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"mode must be one of ('full', 'valid', 'same'); got {mode}")
    m = a.shape[0]
    if m == 0:
        raise ValueError("len(a) must be at least 1.")
    rows = m + n - 1
    k = jnp.arange(rows)[:, None] - jnp.arange(n)[None, :]
    full = jnp.where((k >= 0) & (k < m), a[jnp.clip(k, 0, m - 1)], jnp.zeros((), a.dtype))
    if mode == "full":
        return full
    if mode == "same":
        length = max(m, n)
        start = (rows - length) // 2
    else:
        length = max(m, n) - min(m, n) + 1
        start = min(m, n) - 1
    return full[start:start + length]


def dft(n: int, scale: str | None = None, *, dtype: Any = None) -> Array:
    """W[j, k] = exp(-2πi jk / n), scaled by 1/n ('n') or 1/√n ('sqrtn')."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; {scale!r} is not valid.")
    dtype = jnp.complex64 if dtype is None else dtype
    jk = (jnp.arange(n)[:, None] * jnp.arange(n)[None, :]) % max(n, 1)  # exact angles: jk mod n
    w = jnp.exp(-2j * math.pi * jk.astype(jnp.float32) / n).astype(dtype)
    if scale == "n":
        return w / n
    if scale == "sqrtn":
        return w / math.sqrt(n)
    return w


def fiedler(a: Any) -> Array:
    """F[i, j] = |a[i] - a[j]|."""
    a = jnp.atleast_1d(jnp.asarray(a))
    if a.ndim != 1:
        raise ValueError("Input 'a' must be a 1D array.")
    return jnp.abs(a[:, None] - a[None, :])


def fiedler_companion(a: Any) -> Array:
    """Fiedler's pentadiagonal companion matrix of the polynomial a (leading first)."""
    a = jnp.atleast_1d(jnp.asarray(a))
    if a.ndim != 1:
        raise ValueError("Input 'a' must be a 1-D array.")
    if a.shape[0] <= 2:
        if a.shape[0] == 2:
            return jnp.array([[-(a / a[0])[-1]]])
        return jnp.array([], dtype=a.dtype)
    a = a / a[0]
    n = a.shape[0] - 1
    c = jnp.zeros((n, n), a.dtype)
    c = c.at[jnp.arange(3, n, 2), jnp.arange(1, n - 2, 2)].set(1.0)
    c = c.at[jnp.arange(2, n, 2), jnp.arange(1, n - 1, 2)].set(-a[3::2])
    c = c.at[jnp.arange(0, n - 2, 2), jnp.arange(2, n, 2)].set(1.0)
    c = c.at[jnp.arange(0, n - 1, 2), jnp.arange(1, n, 2)].set(-a[2::2])
    return c.at[0, 0].set(-a[1]).at[1, 0].set(1.0)


def hadamard(n: int, dtype: Any = int) -> Array:
    """Sylvester's Hadamard matrix of order n (a power of 2)."""
    if n < 1 or n & (n - 1):
        raise ValueError("n must be an positive a power of 2 integer")
    h = jnp.ones((1, 1), dtype)
    while h.shape[0] < n:
        h = jnp.block([[h, h], [h, -h]])
    return h


def helmert(n: int, full: bool = False) -> Array:
    """The Helmert matrix (its first row 1/√n only when full)."""
    rows = [[1.0 / math.sqrt(n)] * n]
    for i in range(1, n):
        d = math.sqrt(i * (i + 1))
        rows.append([1.0 / d] * i + [-i / d] + [0.0] * (n - i - 1))
    h = jnp.array(rows, jnp.float32)
    return h if full else h[1:]


def hilbert(n: int) -> Array:
    """H[i, j] = 1 / (i + j + 1)."""
    i = jnp.arange(n, dtype=jnp.float32)
    return 1.0 / (i[:, None] + i[None, :] + 1)


def invhilbert(n: int) -> Array:
    """The exact inverse of hilbert(n) (integer entries, as floats)."""
    c = math.comb
    return jnp.array([[(-1) ** (i + j) * (i + j + 1) * c(n + i, n - j - 1) * c(n + j, n - i - 1) * c(i + j, i) ** 2
                       for j in range(n)] for i in range(n)], jnp.float32)


def _pascal_lower(n: int, inverse: bool) -> list:
    return [[(-1) ** (i - j) * math.comb(i, j) if inverse else math.comb(i, j) for j in range(n)] for i in range(n)]


def pascal(n: int, kind: str | None = None) -> Array:
    """Binomial coefficients: 'symmetric' C(i + j, i), 'lower' C(i, j), 'upper' C(j, i)."""
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be 'symmetric', 'lower', or 'upper'; got {kind}")
    if kind == "symmetric":
        return jnp.array([[math.comb(i + j, i) for j in range(n)] for i in range(n)], jnp.float32)
    low = jnp.array(_pascal_lower(n, False), jnp.float32)
    return low if kind == "lower" else low.T


def invpascal(n: int, kind: str | None = None) -> Array:
    """The exact inverse of pascal(n, kind)."""
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be 'symmetric', 'lower', or 'upper'; got {kind}")
    inv_low = _pascal_lower(n, True)
    if kind == "symmetric":  # P = L Lᵀ, so P⁻¹ = L⁻ᵀ L⁻¹, summed in exact integers
        return jnp.array([[sum(inv_low[k][i] * inv_low[k][j] for k in range(n)) for j in range(n)]
                          for i in range(n)], jnp.float32)
    low = jnp.array(inv_low, jnp.float32)
    return low if kind == "lower" else low.T


def leslie(f: Any, s: Any) -> Array:
    """The Leslie matrix: fecundities f on the first row, survival rates s below the diagonal."""
    f, s = jnp.atleast_1d(jnp.asarray(f)), jnp.atleast_1d(jnp.asarray(s))
    if f.shape[-1] != s.shape[-1] + 1:
        raise ValueError("Incorrect lengths for f and s.  The length of s must be one less than the length of f.")
    dt = jnp.result_type(f, s)
    n = f.shape[-1]
    below = jnp.eye(n - 1, n, dtype=dt) * s.astype(dt)[..., :, None]
    return jnp.concatenate([f.astype(dt)[..., None, :], below], -2)
