"""`lax.custom_root` and `lax.custom_linear_solve`: solvers whose derivatives come from
implicit differentiation at the solution rather than from differentiating the solver.

- custom_root: x* = solve(f, guess) with f(x*, θ) = 0, so ∂f/∂x · ẋ = -∂f/∂θ · θ̇: the
  JVP solves that system with `tangent_solve` (a `custom_jvp`; reverse mode transposes it,
  which needs `tangent_solve` linear in its right-hand side, as JAX's usage requires).
  θ are the floating-point values `f` closes over (`closure_convert`); the initial guess
  gets no gradient.
- custom_linear_solve: x = solve(A, b); reverse mode (a `custom_vjp`) gives
  b̄ = transpose_solve(Aᵀ, x̄) and θ̄ = -(∂(A x)/∂θ)ᵀ b̄ for the values A closes over.
  Forward mode is not available here (JAX 0.10 has both).
"""
from __future__ import annotations

__all__ = ["custom_linear_solve", "custom_root"]

from typing import Any, Callable

from .api import closure_convert, jvp, linear_transpose, vjp
from .custom_derivatives import custom_jvp, custom_vjp
from .lax.ad_util import stop_gradient
from .lax.elementwise import neg
from .tree_util import tree_map


def _neg(tree: Any) -> Any:
    return tree_map(neg, tree)


def custom_root(f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False) -> Any:
    """solve(f, initial_guess), differentiated implicitly with respect to the values f
    closes over (`tangent_solve(g, y)` solves g(x) = y for f linearized at the root)."""
    f_conv, consts = closure_convert(f, initial_guess)

    @custom_jvp
    def root(params: tuple, guess: Any) -> Any:
        return solve(lambda x: f_conv(x, *params), guess)

    @root.defjvp
    def root_jvp(primals: tuple, tangents: tuple) -> tuple:
        params, guess = primals
        params_dot = tangents[0]
        out = root(params, guess)
        sol = out[0] if has_aux else out
        _, rhs = jvp(lambda p: f_conv(sol, *p), (params,), (params_dot,))
        sol_dot = _neg(tangent_solve(lambda v: jvp(lambda x: f_conv(x, *params), (sol,), (v,))[1], rhs))
        if has_aux:
            return out, (sol_dot, tree_map(lambda a: a * 0, out[1]))
        return out, sol_dot

    return root(tuple(consts), tree_map(stop_gradient, initial_guess))


def custom_linear_solve(matvec: Callable, b: Any, solve: Callable, transpose_solve: Callable | None = None,
                        symmetric: bool = False, has_aux: bool = False) -> Any:
    """solve(matvec, b), differentiated (reverse mode) by solving the transposed system with
    `transpose_solve` (`solve` when symmetric) instead of differentiating the solver."""
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    mv_conv, consts = closure_convert(matvec, b)

    @custom_vjp
    def lin_solve(rhs: Any, params: tuple) -> Any:
        return solve(lambda x: mv_conv(x, *params), rhs)

    def fwd(rhs: Any, params: tuple) -> tuple:
        out = lin_solve(rhs, params)
        return out, (out[0] if has_aux else out, params)

    def bwd(res: tuple, ct: Any) -> tuple:
        x, params = res
        if transpose_solve is None:
            raise TypeError("transpose_solve required for backwards mode automatic differentiation of "
                            "custom_linear_solve")
        ct_x = ct[0] if has_aux else ct
        vecmat_t = linear_transpose(lambda v: mv_conv(v, *params), x)
        ct_b = transpose_solve(lambda y: vecmat_t(y)[0], ct_x)
        ct_b = ct_b[0] if has_aux else ct_b
        _, pullback = vjp(lambda *p: mv_conv(x, *p), *params)
        return ct_b, tuple(_neg(pullback(ct_b)))

    lin_solve.defvjp(fwd, bwd)
    return lin_solve(b, tuple(consts))
