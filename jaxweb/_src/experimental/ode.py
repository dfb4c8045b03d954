"""`jax.experimental.ode.odeint`: adaptive Dormand–Prince (RK45) integration with JAX's
step-size control, dense output and adjoint gradients.

The algorithm is JAX's, so results agree to round-off: the initial step of Hairer,
Nørsett & Wanner (II.4), each step's 5th-order solution with its embedded 4th-order
error estimate, steps accepted when the RMS of error / (atol + rtol·|y|) is ≤ 1 and
resized by 0.9·ratio^(-1/5) within [0.2, 10]×, and the value at each requested time from
the 4th-order polynomial fitted through the step (its midpoint from Shampine's dense
output coefficients). Reverse mode integrates the adjoint system backwards between the
output times (`custom_vjp`), so memory does not grow with the number of steps.
"""
from __future__ import annotations

__all__ = ["odeint"]

import math
from typing import Any, Callable

from ... import numpy as jnp
from ...lax import fori_loop, scan, while_loop
from ..api import closure_convert, jit, vjp, vmap
from ..custom_derivatives import custom_vjp
from ..tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten

_DOPRI_MID = [6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2, -2691868925 / 45128329728 / 2,
              187940372067 / 1594534317056 / 2, -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2]
_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0.0]
_BETA = [[1 / 5, 0, 0, 0, 0, 0, 0], [3 / 40, 9 / 40, 0, 0, 0, 0, 0], [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]]
_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERR = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
          -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300, -1.0 / 60.0]


def _ravel(tree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """(one flat vector of every leaf, a function rebuilding the tree from such a vector)."""
    leaves, treedef = tree_flatten(tree)
    leaves = [jnp.asarray(x) for x in leaves]
    shapes = [x.shape for x in leaves]
    sizes = [math.prod(s) for s in shapes]
    dtype = jnp.result_type(*leaves) if leaves else jnp.float32
    flat = jnp.concatenate([jnp.ravel(x).astype(dtype) for x in leaves]) if leaves else jnp.zeros(0, dtype)
    dtypes = [x.dtype for x in leaves]

    def unravel(v: Any) -> Any:
        parts, at = [], 0
        for shape, size, dt in zip(shapes, sizes, dtypes):
            parts.append(jnp.reshape(v[at:at + size], shape).astype(dt))
            at += size
        return tree_unflatten(treedef, parts)
    return flat, unravel


def _fit_4th_order(y0, y1, y_mid, dy0, dy1, dt):
    dt = dt.astype(y0.dtype)
    a = -2.0 * dt * dy0 + 2.0 * dt * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * dt * dy0 - 3.0 * dt * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * dt * dy0 + dt * dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return jnp.stack([a, b, c, dt * dy0, y0])


def _interp_fit(y0, y1, k, dt):
    y_mid = y0 + dt.astype(y0.dtype) * jnp.dot(jnp.array(_DOPRI_MID, y0.dtype), k)
    return _fit_4th_order(y0, y1, y_mid, k[0], k[-1], dt)


def _initial_step(fun, t0, y0, order, rtol, atol, f0):
    scale = atol + jnp.abs(y0) * rtol
    d0 = jnp.linalg.norm(y0 / scale.astype(y0.dtype))
    d1 = jnp.linalg.norm(f0 / scale.astype(y0.dtype))
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = fun(y0 + h0.astype(y0.dtype) * f0, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale.astype(y0.dtype)) / h0
    h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)))
    return jnp.minimum(100.0 * h0, h1)


def _rk_step(func, y0, f0, t0, dt):
    alpha = jnp.array(_ALPHA, dt.dtype)
    beta = jnp.array(_BETA, f0.dtype)

    def stage(i, k):
        yi = y0 + dt.astype(f0.dtype) * jnp.dot(beta[i - 1, :], k)
        return k.at[i, :].set(func(yi, t0 + dt * alpha[i - 1]))
    k = fori_loop(1, 7, stage, jnp.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0))
    y1 = dt.astype(f0.dtype) * jnp.dot(jnp.array(_C_SOL, f0.dtype), k) + y0
    err = dt.astype(f0.dtype) * jnp.dot(jnp.array(_C_ERR, f0.dtype), k)
    return y1, k[-1], err, k


def _error_ratio(err, rtol, atol, y0, y1):
    tol = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    ratio = err / tol.astype(err.dtype)
    sq = ratio.real ** 2 + ratio.imag ** 2 if jnp.iscomplexobj(ratio) else ratio ** 2
    return jnp.sqrt(jnp.mean(sq))


def _next_step(last, ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0):
    dfactor = jnp.where(ratio < 1, 1.0, dfactor)
    factor = jnp.minimum(ifactor, jnp.maximum(ratio ** (-1.0 / order) * safety, dfactor))
    return jnp.where(ratio == 0, last * ifactor, last * factor)


def _integrate(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    def f(y, t):
        return func(y, t, *args)

    def to_target(carry, target):
        def cond(state):
            i, _, _, t, dt, _, _ = state
            return (t < target) & (i < mxstep) & (dt > 0)

        def body(state):
            i, y, fy, t, dt, last_t, coeff = state
            y1, f1, err, k = _rk_step(f, y, fy, t, dt)
            t1 = t + dt
            ratio = _error_ratio(err, rtol, atol, y, y1)
            new_coeff = _interp_fit(y, y1, k, dt)
            dt = jnp.clip(_next_step(dt, ratio), 0.0, hmax)
            accept = ratio <= 1.0  # a rejected step keeps the state and retries with the smaller dt
            new = [i + 1, y1, f1, t1, dt, t, new_coeff]
            old = [i + 1, y, fy, t, dt, last_t, coeff]
            return [jnp.where(accept, a, b) for a, b in zip(new, old)]

        _, *carry = while_loop(cond, body, [0] + carry)
        _, _, t, _, last_t, coeff = carry
        rel = (target - last_t) / (t - last_t)
        return carry, jnp.polyval(coeff, rel.astype(coeff.dtype))

    f0 = f(y0, ts[0])
    dt = jnp.clip(_initial_step(f, ts[0], y0, 4, rtol, atol, f0), 0.0, hmax)
    init = [y0, f0, ts[0], dt, ts[0], jnp.stack([y0] * 5)]
    _, ys = scan(to_target, init, ts[1:])
    return jnp.concatenate((y0[None], ys))


def _integrate_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _integrate_rev(func, rtol, atol, mxstep, hmax, res, g):
    """Integrate (y, ȳ, t̄, ārgs) backwards from each output time to the previous one."""
    ys, ts, args = res

    def aug_dynamics(state, t, *args):
        y, y_bar = state[0], state[1]
        y_dot, vjp_fun = vjp(func, y, -t, *args)
        return (-y_dot, *vjp_fun(y_bar))

    def step(carry, i):
        y_bar, t0_bar, args_bar = carry
        t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i]).real
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(aug_dynamics, (ys[i], y_bar, t0_bar, args_bar),
                                            jnp.array([-ts[i], -ts[i - 1]]), *args, rtol=rtol, atol=atol,
                                            mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_map(lambda x: x[1], (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], 0.0, tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), rev_ts_bar = scan(step, init, jnp.arange(len(ts) - 1, 0, -1))
    ts_bar = jnp.concatenate([jnp.array([t0_bar]), rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint = custom_vjp(_integrate, nondiff_argnums=(0, 1, 2, 3, 4))
_odeint.defvjp(_integrate_fwd, _integrate_rev)


def _wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    y0_flat, unravel = _ravel(y0)

    def flat_func(y, t, *a):
        return _ravel(func(unravel(y), t, *a))[0]
    return vmap(unravel)(_odeint(flat_func, rtol, atol, mxstep, hmax, y0_flat, ts, *args))


_wrapper_jit = jit(_wrapper, static_argnums=(0, 1, 2, 3, 4))


def odeint(func: Callable, y0: Any, t: Any, *args: Any, rtol: float = 1.4e-8, atol: float = 1.4e-8,
           mxstep: float = math.inf, hmax: float = math.inf) -> Any:
    """`jax.experimental.ode.odeint`: y(t) for dy/dt = func(y, t, *args), y(t[0]) = y0, at
    each (strictly increasing) time of `t`; a pytree y0 gives a pytree of stacked values."""
    for arg in tree_leaves(args):
        if not hasattr(arg, "dtype") and not isinstance(arg, (bool, int, float, complex)):
            raise TypeError(f"The contents of odeint *args must be arrays or scalars, but got {arg}.")
    t = jnp.asarray(t)
    if not jnp.issubdtype(t.dtype, jnp.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    converted, consts = closure_convert(func, y0, t[0], *args)
    return _wrapper_jit(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)
