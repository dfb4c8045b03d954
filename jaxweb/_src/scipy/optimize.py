"""`jax.scipy.optimize.minimize` with method 'BFGS': a quasi-Newton loop in lax.while_loop
(so it traces under jit and vmap), with a backtracking line search on the strong-Wolfe
decrease condition; the inverse Hessian estimate is updated only when the curvature
condition holds. Results are `OptimizeResults` with JAX's fields and status codes
(0 converged, 1 max iterations, 3 line search failed)."""
from __future__ import annotations

__all__ = ["OptimizeResults", "minimize"]

from typing import Any, Callable, Mapping, NamedTuple

from ... import numpy as jnp
from ..api import jit, value_and_grad
from ..lax.control_flow.loops import while_loop

Array = Any


class OptimizeResults(NamedTuple):
    """The result of `minimize` (the fields of JAX's OptimizeResults)."""
    x: Array
    success: Array
    status: Array
    fun: Array
    jac: Array
    hess_inv: Array | None
    nfev: Array
    njev: Array
    nit: Array


def minimize(fun: Callable, x0: Any, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """Minimize `fun(x, *args)` over a 1-D `x` from `x0` ('BFGS'; options: maxiter, norm,
    gtol, line_search_maxiter)."""
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
    options = dict(options or {})
    if tol is not None:
        options.setdefault("gtol", tol)
    if method.lower() == "bfgs":  # one compiled loop: eagerly, each step would dispatch its ops
        return jit(lambda x: _bfgs(lambda v: fun(v, *args), x, **options))(jnp.asarray(x0))
    raise ValueError(f"Method {method} not recognized")


def _bfgs(fun: Callable, x0: Array, maxiter: int | None = None, norm: float = jnp.inf, gtol: float = 1e-5,
          line_search_maxiter: int = 10) -> OptimizeResults:
    if x0.ndim != 1:
        raise ValueError(f"x0 must be a 1-dimensional array, got shape {x0.shape}")
    x0 = x0 if jnp.issubdtype(x0.dtype, jnp.inexact) else x0.astype(jnp.float32)
    n = x0.shape[0]
    maxiter = n * 200 if maxiter is None else maxiter
    vg = value_and_grad(fun)
    f0, g0 = vg(x0)
    eye = jnp.eye(n, dtype=x0.dtype)
    gnorm = lambda g: jnp.linalg.norm(g, ord=norm)  # noqa: E731
    # state: k, nfev, ngev, x, f, g, H, converged, failed
    state = (jnp.asarray(0), jnp.asarray(1), jnp.asarray(1), x0, f0, g0, eye, gnorm(g0) < gtol, jnp.asarray(False))

    def cond(s):
        k, _, _, _, _, _, _, converged, failed = s
        return (~converged) & (~failed) & (k < maxiter)

    def line_search(x, f, g, p):
        slope = jnp.dot(g, p)

        def ls_cond(c):
            i, _, _, _, ok = c
            return (~ok) & (i < line_search_maxiter * 3)

        def ls_body(c):
            i, alpha, _, _, _ = c
            fa, ga = vg(x + alpha * p)
            ok = jnp.isfinite(fa) & (fa <= f + 1e-4 * alpha * slope) & (jnp.abs(jnp.dot(ga, p)) <= 0.9 * jnp.abs(slope))
            armijo_only = jnp.isfinite(fa) & (fa <= f + 1e-4 * alpha * slope) & (i >= line_search_maxiter)
            return i + 1, jnp.where(ok | armijo_only, alpha, alpha * 0.5), fa, ga, ok | armijo_only

        start = (jnp.asarray(0), jnp.asarray(1.0, x.dtype), f, g, jnp.asarray(False))
        i, alpha, fa, ga, ok = while_loop(ls_cond, ls_body, start)
        return alpha, fa, ga, ok & (slope < 0), i

    def body(s):
        k, nfev, ngev, x, f, g, h, _, _ = s
        p = -h @ g
        alpha, f_new, g_new, ok, evals = line_search(x, f, g, p)
        step = alpha * p
        x_new = jnp.where(ok, x + step, x)
        y = g_new - g
        sy = jnp.dot(step, y)
        rho = 1.0 / jnp.where(sy > 0, sy, 1.0)
        a = eye - rho * jnp.outer(step, y)
        h_new = a @ h @ a.T + rho * jnp.outer(step, step)
        h = jnp.where(ok & (sy > 0), h_new, h)
        f = jnp.where(ok, f_new, f)
        g = jnp.where(ok, g_new, g)
        return (k + 1, nfev + evals, ngev + evals, x_new, f, g, h, gnorm(g) < gtol, ~ok)

    k, nfev, ngev, x, f, g, h, converged, failed = while_loop(cond, body, state)
    status = jnp.where(converged, 0, jnp.where(k >= maxiter, 1, jnp.where(failed, 3, -1)))
    return OptimizeResults(x=x, success=converged & ~failed, status=status, fun=f, jac=g, hess_inv=h,
                           nfev=nfev, njev=ngev, nit=k)
