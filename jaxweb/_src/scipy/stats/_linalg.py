"""Small dense linear algebra for multivariate_normal, written with jnp ops.

jaxweb has no lax.linalg yet; a covariance's Cholesky factor and one forward
substitution are all multivariate_normal needs. Both unroll over the (static)
matrix size, one vectorized step per column, so they differentiate and batch like
any jnp code. Fine for the small dimensions of a density; a real lax.linalg
(factorization routines on each backend) would replace them.
"""
from __future__ import annotations

from ._common import Array, jnp


def cholesky(a: Array) -> Array:
    """The lower Cholesky factor of symmetric positive-definite `a` (..., n, n);
    NaN where `a` is not positive definite."""
    n = a.shape[-1]
    rows = jnp.arange(n)
    cols: list = []
    for j in range(n):
        c = a[..., :, j]
        if cols:
            lp = jnp.stack(cols, axis=-1)  # (..., n, j)
            c = c - jnp.einsum("...ik,...k->...i", lp, lp[..., j, :])
        d = jnp.sqrt(c[..., j])
        col = jnp.where(rows > j, c / d[..., None], jnp.where(rows == j, d[..., None], 0.0))
        cols.append(col)
    return jnp.stack(cols, axis=-1)


def solve_lower(l: Array, b: Array) -> Array:
    """y with l @ y = b for lower-triangular l (..., n, n) and b (..., n)."""
    n = l.shape[-1]
    ys: list = []
    for i in range(n):
        r = b[..., i]
        if ys:
            r = r - jnp.sum(l[..., i, :i] * jnp.stack(ys, axis=-1), axis=-1)
        ys.append(r / l[..., i, i])
    return jnp.stack(ys, axis=-1)
