"""`jax.custom_derivatives.linear_call`: call a function linear in some of its arguments,
with a user-given transpose.

One `linear_call` equation holds `fun`'s jaxpr (over the residual and linear arguments,
flattened) and `fun_transpose`. Evaluated or compiled it runs the jaxpr; its JVP is the
same call on the linear arguments' tangents (residuals must not be differentiated, as in
JAX); transposed, it runs `fun_transpose(residuals, cotangent)` instead of transposing
`fun`. As JAX 0.10's, it has no batching rule.
"""
from __future__ import annotations

__all__ = ["linear_call", "linear_call_p"]

import functools
from typing import Any, Callable

from . import core
from .dispatch import eager_apply
from .interpreters import rules as R
from .jaxpr import trace_to_closed_jaxpr
from .lowering import inline_rules
from .tree_util import tree_flatten, tree_unflatten

linear_call_p = core.Primitive("linear_call")
linear_call_p.multiple_results = True
core.def_abstract_eval(linear_call_p)(lambda *avals, callee, **_: list(callee.out_avals))
inline_rules[linear_call_p] = lambda params: params["callee"]
core.impl_rules[linear_call_p] = functools.partial(eager_apply, linear_call_p)


def _jvp(primals, tangents, *, callee, transpose, num_res, trees):
    if any(not isinstance(t, R.Zero) for t in tangents[:num_res]):
        raise NotImplementedError("linear_call: differentiating with respect to the residual arguments is "
                                  "not supported")
    outs = linear_call_p.bind(*primals, callee=callee, transpose=transpose, num_res=num_res, trees=trees)
    lin_t = [R.instantiate_zeros(t) for t in tangents[num_res:]]
    t_outs = linear_call_p.bind(*primals[:num_res], *lin_t, callee=callee, transpose=transpose,
                                num_res=num_res, trees=trees)
    return outs, t_outs


def _transpose(cts, *args, callee, transpose, num_res, trees):
    res_tree, lin_tree, out_tree = trees
    res = tree_unflatten(res_tree, list(args[:num_res]))
    ct = tree_unflatten(out_tree, [R.instantiate_zeros(c) for c in cts])
    ct_lin, tree = tree_flatten(transpose(res, ct))
    if tree != lin_tree:
        raise TypeError(f"linear_call: the transpose returned structure {tree}, expected {lin_tree}")
    return [None] * num_res + ct_lin


def _batch(args, dims, **_):
    raise NotImplementedError("Batching rule for 'linear_call' not implemented")  # as JAX 0.10


R.primitive_jvps[linear_call_p] = _jvp
R.primitive_transposes[linear_call_p] = _transpose
R.primitive_batchers[linear_call_p] = _batch


def linear_call(fun: Callable, fun_transpose: Callable, residual_args: Any, linear_args: Any) -> Any:
    """`fun(residual_args, linear_args)`, linear in `linear_args`, transposed by
    `fun_transpose(residual_args, cotangent)` (which returns the linear arguments' cotangent)."""
    res_flat, res_tree = tree_flatten(residual_args)
    lin_flat, lin_tree = tree_flatten(linear_args)
    n = len(res_flat)
    out_trees: list = []

    def flat_fun(*xs: Any) -> list:
        out = fun(tree_unflatten(res_tree, list(xs[:n])), tree_unflatten(lin_tree, list(xs[n:])))
        leaves, tree = tree_flatten(out)
        out_trees.append(tree)
        return leaves
    callee = trace_to_closed_jaxpr(flat_fun, [core.get_aval(x) for x in res_flat + lin_flat])
    outs = linear_call_p.bind(*res_flat, *lin_flat, callee=callee, transpose=fun_transpose, num_res=n,
                              trees=(res_tree, lin_tree, out_trees[0]))
    return tree_unflatten(out_trees[0], outs)
