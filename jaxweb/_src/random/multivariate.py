"""Samplers of vectors and matrices: multivariate_normal, orthogonal."""
from __future__ import annotations

from operator import index
from typing import Any, Sequence

import jaxweb.numpy as jnp

from .. import core, dtypes
from .floats import _normal_real
from .keys import PRNGKeyArray
from .linalg import factorization
from .prng import check_prng_key
from .util import jit, broadcast_shapes, canonicalize_shape, check_shape, user_dtype

Shape = Sequence[int]


def _promote_inexact(*xs: Any) -> list:
    arrs = [jnp.asarray(x) for x in xs]
    dt = jnp.result_type(*arrs)
    if dt.kind not in "fc":
        dt = dtypes.default_float()
    return [a.astype(dt) for a in arrs]


@jit(static_argnums=(3, 4, 5))
def _multivariate_normal(key: PRNGKeyArray, mean: Any, cov: Any, shape: Any, dtype: dtypes.DType,
                         method: str) -> Any:
    if not mean.ndim >= 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}")
    if not cov.ndim >= 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {tuple(cov.shape)}.")
    if shape is None:
        shape = broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = factorization("svd")(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = factorization("eigh")(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = factorization("cholesky")(cov)
    samples = _normal_real(key, tuple(shape) + mean.shape[-1:], dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, samples)


def multivariate_normal(key: Any, mean: Any, cov: Any, shape: Shape | None = None, dtype: Any = None,
                        method: str = "cholesky", *, out_sharding: Any = None) -> Any:
    """Normal vectors with the given mean (..., n) and covariance (..., n, n); `method`
    ('cholesky', 'eigh' or 'svd', the latter two for singular covariances) factors cov."""
    key, _ = check_prng_key("multivariate_normal", key)
    mean, cov = _promote_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else user_dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dtype}")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@jit(static_argnums=(1, 2, 3, 4))
def _orthogonal(key: PRNGKeyArray, n: int, m: int, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    z = _normal_real(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = factorization("qr")(z)
    d = jnp.diagonal(r, axis1=-2, axis2=-1)
    x = q * jnp.expand_dims(jnp.sign(d), -2)
    return jnp.swapaxes(x, -1, -2) if n < m else x


def orthogonal(key: Any, n: int, shape: Shape = (), dtype: Any = None, m: int | None = None, *,
               out_sharding: Any = None) -> Any:
    """Haar-random orthogonal (n, n) matrices, or semi-orthogonal (n, m) ones (Mezzadri 2007)."""
    shape = canonicalize_shape(shape)
    key, _ = check_prng_key("orthogonal", key)
    dtype = user_dtype(float if dtype is None else dtype)
    n = index(core.concrete_or_error(n, "The error occurred in jax.random.orthogonal()"))
    m = n if m is None else index(core.concrete_or_error(m, "The error occurred in jax.random.orthogonal()"))
    return _orthogonal(key, n, m, shape, dtype)
