"""The rest of `jax.scipy.linalg`'s algorithms: hessenberg (Householder), rsf2csf (real to
complex Schur by Givens rotations), funm (complex Schur + Parlett's recurrence),
expm_frechet (the exponential of the block matrix [[A, E], [0, A]]), solve_sylvester
(Bartels-Stewart on the complex Schur forms), eigh_tridiagonal (eigenvalues), qr_multiply.

Loops run over static sizes in Python: these are small dense matrices, and the unrolled
form is differentiable and batches with vmap."""
from __future__ import annotations

__all__ = ["eigh_tridiagonal", "expm_frechet", "funm", "hessenberg", "qr_multiply", "rsf2csf", "solve_sylvester"]

from typing import Any, Callable

from ... import numpy as jnp
from ..api import jit
from ..lax import linalg as lax_linalg
from . import linalg as sla

Array = Any


def _square(name: str, a: Array) -> None:
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name}: expected a square matrix, got shape {a.shape}")


def _inexact(a: Any) -> Array:
    a = jnp.asarray(a)
    return a if jnp.issubdtype(a.dtype, jnp.inexact) else a.astype(jnp.float32)


def hessenberg(a: Any, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """H (zero below the first subdiagonal) with a = Q H Qᴴ, by Householder reflections."""
    h = _inexact(a)
    _square("hessenberg", h)
    n = h.shape[0]
    q = jnp.eye(n, dtype=h.dtype)
    for k in range(n - 2):
        x = h[k + 1:, k]
        alpha = jnp.linalg.norm(x)
        phase = jnp.where(x[0] == 0, 1, x[0] / jnp.where(jnp.abs(x[0]) == 0, 1, jnp.abs(x[0])))
        v = x.at[0].add(phase * alpha)
        vnorm = jnp.linalg.norm(v)
        v = jnp.where(vnorm == 0, jnp.zeros_like(v), v / jnp.where(vnorm == 0, 1, vnorm))
        p = jnp.eye(n - k - 1, dtype=h.dtype) - 2 * jnp.outer(v, jnp.conj(v))
        h = h.at[k + 1:, :].set(p @ h[k + 1:, :])
        h = h.at[:, k + 1:].set(h[:, k + 1:] @ jnp.conj(p.T))
        q = q.at[:, k + 1:].set(q[:, k + 1:] @ jnp.conj(p.T))
        h = h.at[k + 2:, k].set(0)
    return (h, q) if calc_q else h


def rsf2csf(T: Any, Z: Any, check_finite: bool = True) -> tuple[Array, Array]:
    """(T', Z'): the real Schur form T = Zᵀ A Z turned complex upper triangular, each 2x2
    block of a complex pair split by a unitary Givens rotation."""
    t, z = jnp.asarray(T), jnp.asarray(Z)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError("Input 'T' must be square.")
    if z.ndim != 2 or z.shape[0] != z.shape[1]:
        raise ValueError("Input 'Z' must be square.")
    if t.shape[0] != z.shape[0]:
        raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    cdt = jnp.result_type(t, z, jnp.complex64)
    t, z = t.astype(cdt), z.astype(cdt)
    n = t.shape[0]
    eps = jnp.finfo(cdt).eps
    for m in range(n - 1, 0, -1):
        sub = t[m, m - 1]
        small = jnp.abs(sub) <= eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
        blk = t[m - 1:m + 1, m - 1:m + 1]  # its eigenvalues in closed form: h ± √(h² - det)
        half = (blk[0, 0] + blk[1, 1]) / 2
        root = jnp.sqrt(half * half - (blk[0, 0] * blk[1, 1] - blk[0, 1] * blk[1, 0]))
        ev = jnp.stack([half + root, half - root]) - t[m, m]
        mu = ev[jnp.argmax(ev.imag)]  # LAPACK lists a conjugate pair's positive member first
        r = jnp.hypot(jnp.abs(mu), jnp.abs(sub))
        r = jnp.where(r == 0, 1, r)
        c, s = mu / r, sub / r
        g = jnp.stack([jnp.stack([jnp.conj(c), s]), jnp.stack([-s, c])]).astype(cdt)
        g = jnp.where(small, jnp.eye(2, dtype=cdt), g)
        t = t.at[m - 1:m + 1, m - 1:].set(g @ t[m - 1:m + 1, m - 1:])
        t = t.at[:m + 1, m - 1:m + 1].set(t[:m + 1, m - 1:m + 1] @ jnp.conj(g.T))
        z = z.at[:, m - 1:m + 1].set(z[:, m - 1:m + 1] @ jnp.conj(g.T))
        t = t.at[m, m - 1].set(0)
    return t, z


def _parlett(f_diag: Array, t: Array) -> tuple[Array, Array]:
    """F = f(T) for upper triangular T from its diagonal f(T_ii) (Parlett's recurrence,
    superdiagonal by superdiagonal); also the smallest |T_jj - T_ii| it divided by."""
    n = t.shape[0]
    f = jnp.diag(f_diag).astype(t.dtype)
    minden = jnp.abs(t[0, 0])
    for p in range(1, n):
        for i in range(n - p):
            j = i + p
            s = t[i, j] * (f[j, j] - f[i, i])
            if j - i > 1:
                s = s + jnp.dot(t[i, i + 1:j], f[i + 1:j, j]) - jnp.dot(f[i, i + 1:j], t[i + 1:j, j])
            den = t[j, j] - t[i, i]
            f = f.at[i, j].set(jnp.where(den != 0, s / jnp.where(den == 0, 1, den), s))
            minden = jnp.minimum(minden, jnp.abs(den))
    return f, minden


def funm(A: Any, func: Callable[[Array], Array], disp: bool = True) -> Any:
    """func(A) for a matrix function given by its scalar function (complex result):
    A = Z T Zᴴ, then Parlett's recurrence on T. With disp=False also an error estimate."""
    a = _inexact(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = sla.schur(a, output="complex")
    f, minden = _parlett(func(jnp.diagonal(t)), t)
    f = z @ f @ jnp.conj(z.T)
    if disp:
        return f
    tol = jnp.finfo(f.dtype).eps
    minden = jnp.where(minden == 0.0, tol, minden)
    off = jnp.max(jnp.sum(jnp.abs(jnp.triu(t, 1)), axis=0))
    err = jnp.where(jnp.any(jnp.isinf(f)), jnp.inf, jnp.minimum(1, jnp.maximum(tol, (tol / minden) * off)))
    return f, err


def expm_frechet(A: Any, E: Any, *, method: str | None = None, compute_expm: bool = True) -> Any:
    """(expm(A), L(A, E)): the Fréchet derivative of expm at A in the direction E, as the
    upper-right block of expm([[A, E], [0, A]])."""
    a, e = jnp.asarray(A), jnp.asarray(E)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a.shape}")
    if e.shape != a.shape:
        raise ValueError(f"expected E to be the same shape as A, got A.shape={a.shape} E.shape={e.shape}")
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError(f"Unknown implementation {method}")
    dt = jnp.result_type(a, e, jnp.float32)
    a, e = a.astype(dt), e.astype(dt)
    n = a.shape[-1]
    top = jnp.concatenate([a, e], -1)
    bottom = jnp.concatenate([jnp.zeros_like(a), a], -1)
    big = sla.expm(jnp.concatenate([top, bottom], -2))
    expm_a, frechet = big[..., :n, :n], big[..., :n, n:]
    return (expm_a, frechet) if compute_expm else frechet


def solve_sylvester(A: Any, B: Any, C: Any, *, method: str = "schur", tol: float = 1e-8) -> Array:
    """X with A X + X B = C (Bartels-Stewart on complex Schur forms; NaN where some
    eigenvalue sum of A and B is below tol, as JAX)."""
    if method not in ("schur", "eigen"):
        raise ValueError(f"Unrecognized method {method}. The two valid methods are either 'schur' or 'eigen'.")
    a, b, c = (jnp.asarray(v) for v in (A, B, C))
    dt = jnp.result_type(a, b, c, jnp.float32)
    a, b, c = a.astype(dt), b.astype(dt), c.astype(dt)
    m, n = c.shape[-2:]
    if a.shape[-2:] != (m, m) or b.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {a.shape}\nB: {b.shape}\nC: {c.shape}")
    return _sylvester(a, b, c, tol)


@jit
def _sylvester(a: Array, b: Array, c: Array, tol: float) -> Array:
    """Bartels-Stewart, compiled as one program (the two Schur iterations dominate)."""
    m, n = c.shape
    ta, za = sla.schur(a, output="complex")
    tb, zb = sla.schur(b, output="complex")
    f = jnp.conj(za.T) @ c.astype(ta.dtype) @ zb
    cols = []
    for k in range(n):  # T_A y_k + Σ_{j<=k} y_j T_B[j, k] = f_k, column by column
        rhs = f[:, k] - sum((cols[j] * tb[j, k] for j in range(k)), jnp.zeros(m, ta.dtype))
        cols.append(jnp.linalg.solve(ta + tb[k, k] * jnp.eye(m, dtype=ta.dtype), rhs))
    x = za @ jnp.stack(cols, 1) @ jnp.conj(zb.T)
    x = x if jnp.iscomplexobj(c) else x.real.astype(c.dtype)
    bad = jnp.any(jnp.abs(jnp.diagonal(ta)[:, None] + jnp.diagonal(tb)[None, :]) < tol)
    return jnp.where(bad, jnp.nan, x)


def eigh_tridiagonal(d: Any, e: Any, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None,
                     key: Any = None) -> Any:
    """The eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal d and
    off-diagonal e, and (eigvals_only=False, select='a') its eigenvectors."""
    d, e = jnp.asarray(d), jnp.asarray(e)
    n = d.shape[-1]
    if e.shape[-1] != n - 1:
        raise ValueError("e must have one fewer element than d")
    m = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(jnp.conj(e), -1)
    if not eigvals_only:
        if select not in ("a", "all"):
            raise NotImplementedError("eigh_tridiagonal: eigenvectors only for select='a'")
        return jnp.linalg.eigh(m)
    w = jnp.linalg.eigvalsh(m)
    if select in ("a", "all"):
        return w
    if select in ("i", "index"):
        lo, hi = select_range
        return w[int(lo):int(hi) + 1]
    if select in ("v", "value"):
        raise NotImplementedError("eigh_tridiagonal(select='v') is not implemented")
    raise ValueError(f"'select must have a value in {{'a', 'i', 'v'}}, got {select!r}")


def qr_multiply(a: Any, c: Any, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False) -> tuple:
    """(Q @ c or c @ Q — of the economic Q —, R): scipy's qr_multiply without pivoting."""
    if mode not in ("left", "right"):
        raise ValueError(f"Mode argument should be one of ['left', 'right'], got {mode}")
    if pivoting:
        raise NotImplementedError("qr_multiply(pivoting=True) is not supported")
    a, c = _inexact(a), _inexact(c)
    q, r = lax_linalg.qr(a, full_matrices=False)
    q = jnp.conj(q) if conjugate else q
    vector = c.ndim == 1
    if mode == "left":
        cm = c[:, None] if vector else c
        out = q @ cm
    else:
        cm = c[None, :] if vector else c
        out = cm @ q
    return (out.ravel() if vector else out), r
