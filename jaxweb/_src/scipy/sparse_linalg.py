"""`jax.scipy.sparse.linalg`: the Krylov solvers cg, bicgstab and gmres for a matrix or a
linear function A (and preconditioner M), on arrays or pytrees (flattened to one vector),
in lax.while_loop. They return (x, None) as JAX does (no convergence info)."""
from __future__ import annotations

__all__ = ["bicgstab", "cg", "gmres"]

from typing import Any, Callable

from ... import numpy as jnp
from ..api import jit
from ..lax.control_flow.loops import while_loop as _while_loop
from ..tree_util import tree_flatten, tree_unflatten

Array = Any


def while_loop(cond: Callable, body: Callable, init: Any) -> Any:
    """lax.while_loop compiled as one program (eagerly, each iteration would dispatch its ops)."""
    return jit(lambda state: _while_loop(cond, body, state))(init)


def _vectorize(A: Any, b: Any, x0: Any, M: Any) -> tuple[Callable, Array, Array, Callable, Callable]:
    """(A as a function of flat vectors, flat b, flat x0, M likewise, unflatten)."""
    leaves, tree = tree_flatten(b)
    leaves = [jnp.asarray(v) for v in leaves]
    shapes = [v.shape for v in leaves]
    sizes = [v.size for v in leaves]
    dt = jnp.result_type(*leaves) if leaves else jnp.float32

    def flat(t: Any) -> Array:
        ls, tr = tree_flatten(t)
        if tr != tree:
            raise ValueError(f"Expected pytree structure {tree}, got {tr}")
        return jnp.concatenate([jnp.ravel(jnp.asarray(v)).astype(dt) for v in ls]) if ls else jnp.zeros(0, dt)

    def unflat(v: Array) -> Any:
        out, start = [], 0
        for shape, size in zip(shapes, sizes):
            out.append(v[start:start + size].reshape(shape))
            start += size
        return tree_unflatten(tree, out)

    def as_fn(op: Any) -> Callable:
        if op is None:
            return lambda v: v
        if callable(op):
            return lambda v: flat(op(unflat(v)))
        mat = jnp.asarray(op)
        if mat.ndim != 2 or mat.shape[0] != mat.shape[1]:
            raise ValueError(f"A must be a square matrix or a function, got shape {mat.shape}")
        return lambda v: mat @ v

    fb = flat(b)
    fx0 = jnp.zeros_like(fb) if x0 is None else flat(x0)
    return as_fn(A), fb, fx0, as_fn(M), unflat


def _tolerance(b: Array, tol: float, atol: float) -> Array:
    return jnp.maximum(jnp.square(tol) * jnp.vdot(b, b).real, jnp.square(atol))


def cg(A: Any, b: Any, x0: Any = None, *, tol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
       M: Any = None) -> tuple[Any, None]:
    """Conjugate gradients for a Hermitian positive definite A."""
    a, bv, x0v, m, unflat = _vectorize(A, b, x0, M)
    maxiter = 10 * bv.size if maxiter is None else maxiter
    limit = _tolerance(bv, tol, atol)
    r0 = bv - a(x0v)
    z0 = m(r0)
    start = (x0v, r0, jnp.vdot(r0, z0).real.astype(r0.real.dtype), z0, 0)

    def cond(s):
        _, r, _, _, k = s
        return (jnp.vdot(r, r).real > limit) & (k < maxiter)

    def body(s):
        x, r, gamma, p, k = s
        ap = a(p)
        alpha = gamma / jnp.vdot(p, ap).real
        x, r = x + alpha * p, r - alpha * ap
        z = m(r)
        gamma_new = jnp.vdot(r, z).real.astype(gamma.dtype)
        return x, r, gamma_new, z + (gamma_new / gamma) * p, k + 1

    return unflat(while_loop(cond, body, start)[0]), None


def bicgstab(A: Any, b: Any, x0: Any = None, *, tol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
             M: Any = None) -> tuple[Any, None]:
    """The stabilized biconjugate gradient method for a general (non-symmetric) A."""
    a, bv, x0v, m, unflat = _vectorize(A, b, x0, M)
    maxiter = 10 * bv.size if maxiter is None else maxiter
    limit = _tolerance(bv, tol, atol)
    r0 = bv - a(x0v)
    one = jnp.ones((), r0.dtype)
    start = (x0v, r0, r0, one, one, one, jnp.zeros_like(r0), jnp.zeros_like(r0), 0)

    def cond(s):
        r, k = s[1], s[8]
        return (jnp.vdot(r, r).real > limit) & (k < maxiter) & (k >= 0)

    def body(s):
        x, r, rhat, alpha, omega, rho, p, q, k = s
        rho_new = jnp.vdot(rhat, r)
        beta = rho_new / rho * alpha / omega
        p = r + beta * (p - omega * q)
        phat = m(p)
        q = a(phat)
        alpha = rho_new / jnp.vdot(rhat, q)
        sv = r - alpha * q
        shat = m(sv)
        t = a(shat)
        omega = jnp.vdot(t, sv) / jnp.vdot(t, t)
        x = x + alpha * phat + omega * shat
        r = sv - omega * t
        broke = (omega == 0) | (rho_new == 0)  # breakdown: stop (k < 0)
        return x, r, rhat, alpha, omega, rho_new, p, q, jnp.where(broke, -1, k + 1)

    return unflat(while_loop(cond, body, start)[0]), None


def gmres(A: Any, b: Any, x0: Any = None, *, tol: float = 1e-5, atol: float = 0.0, restart: int = 20,
          maxiter: int | None = None, M: Any = None, solve_method: str = "batched") -> tuple[Any, None]:
    """Restarted GMRES: each cycle builds a `restart`-dimensional Krylov basis (modified
    Gram-Schmidt) of the left-preconditioned system and takes its least-squares step."""
    if solve_method not in ("incremental", "batched"):
        raise ValueError(f"invalid solve_method {solve_method!r}, must be either 'incremental' or 'batched'")
    a, bv, x0v, m, unflat = _vectorize(A, b, x0, M)
    size = bv.size
    restart = max(1, min(restart, size))
    maxiter = 10 * size if maxiter is None else maxiter
    b_pre = m(bv)
    limit = jnp.sqrt(_tolerance(b_pre, tol, atol))

    def residual(x):
        return m(bv - a(x))

    def cond(s):
        x, r, k = s
        return (jnp.linalg.norm(r) > limit) & (k < maxiter)

    def body(s):
        x, r, k = s
        beta = jnp.linalg.norm(r)
        basis = [r / jnp.where(beta == 0, 1, beta)]
        h = jnp.zeros((restart + 1, restart), r.dtype)
        for j in range(restart):
            w = m(a(basis[j]))
            for i in range(j + 1):
                hij = jnp.vdot(basis[i], w)
                h = h.at[i, j].set(hij)
                w = w - hij * basis[i]
            norm = jnp.linalg.norm(w)
            h = h.at[j + 1, j].set(norm)
            basis.append(w / jnp.where(norm == 0, 1, norm))
        e1 = jnp.zeros(restart + 1, r.dtype).at[0].set(beta)
        y = jnp.linalg.lstsq(h, e1)[0]
        x = x + jnp.stack(basis[:restart], 1) @ y
        return x, residual(x), k + 1

    x = while_loop(cond, body, (x0v, residual(x0v), 0))[0]
    return unflat(x), None
