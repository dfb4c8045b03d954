"""`jax.custom_batching`: functions with their own vmap rule (`custom_vmap`) and
`sequential_vmap` (vmap as a loop over the batch).

A call stages one `custom_vmap_call` equation holding the function's jaxpr and the rule,
as JAX's does: evaluated or compiled, it runs the jaxpr; under vmap, its batching rule
calls `rule(axis_size, in_batched, *args)` with every batched argument's batch axis in
front and broadcasts the unbatched outputs the rule reports. Differentiation goes through
the function itself (JAX 0.10 gives forward mode only; here reverse mode works too).
"""
from __future__ import annotations

__all__ = ["custom_vmap", "sequential_vmap"]

import functools
from typing import Any, Callable

from . import core
from .interpreters import ad, rules as R
from .interpreters.batching import bdim_at_front
from .jaxpr import jaxpr_as_fun, trace_to_closed_jaxpr
from .lowering import inline_rules
from .dispatch import eager_apply
from .lax.structural import concatenate, expand_dims, index_in_dim
from .tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten

custom_vmap_call_p = core.Primitive("custom_vmap_call")
custom_vmap_call_p.multiple_results = True
core.def_abstract_eval(custom_vmap_call_p)(lambda *avals, call, **_: list(call.out_avals))
inline_rules[custom_vmap_call_p] = lambda params: params["call"]
core.impl_rules[custom_vmap_call_p] = functools.partial(eager_apply, custom_vmap_call_p)


def _jvp(primals, tangents, *, call, **_):
    return ad.jvp_flat(jaxpr_as_fun(call), primals, [R.instantiate_zeros(t) for t in tangents])


def _batch(args, dims, *, call, rule, in_tree, out_tree):
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    args = [bdim_at_front(a, d, size) if d is not None else a for a, d in zip(args, dims)]
    in_batched = list(tree_unflatten(in_tree, [d is not None for d in dims]))
    out, out_batched = rule(size, in_batched, *tree_unflatten(in_tree, args))
    flat_out, tree = tree_flatten(out)
    if tree != out_tree:
        raise ValueError(f"structure of output returned by custom vmap rule ({rule.__name__}) does not match "
                         f"that of original custom-vmapped function: {tree} vs {out_tree}")
    if isinstance(out_batched, bool):
        out_batched = tree_map(lambda _: out_batched, out)
    flags = tree_structure(out).flatten_up_to(out_batched)
    outs = [o if b else bdim_at_front(o, None, size) for o, b in zip(flat_out, flags)]
    return outs, [0] * len(outs)


R.primitive_jvps[custom_vmap_call_p] = _jvp
R.primitive_batchers[custom_vmap_call_p] = _batch


class custom_vmap:
    """A function with a custom vmap rule: `@custom_vmap def f(x): ...` then
    `@f.def_vmap def rule(axis_size, in_batched, *args): return out, out_batched`."""

    def __init__(self, fun: Callable):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable | None = None

    def def_vmap(self, vmap_rule: Callable) -> Callable:
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError("custom_vmap functions take positional arguments only")
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function {self.fun.__name__} "
                                 "using def_vmap.")
        flat, in_tree = tree_flatten(args)
        trees: list = []

        def flat_fun(*xs: Any) -> list:
            leaves, tree = tree_flatten(self.fun(*tree_unflatten(in_tree, list(xs))))
            trees.append(tree)
            return leaves
        call = trace_to_closed_jaxpr(flat_fun, [core.get_aval(x) for x in flat])
        outs = custom_vmap_call_p.bind(*flat, call=call, rule=self.vmap_rule, in_tree=in_tree, out_tree=trees[0])
        return tree_unflatten(trees[0], outs)


def sequential_vmap(f: Callable) -> custom_vmap:
    """`f` whose vmap runs it once per batch member and stacks the results (for functions
    that cannot be vectorized, such as host callbacks)."""
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size: int, in_batched: list, *args: Any) -> tuple:
        flags = tree_structure(args).flatten_up_to(tuple(in_batched))
        flat, tree = tree_flatten(args)
        rows = []
        for i in range(axis_size):
            member = [index_in_dim(x, i, 0, keepdims=False) if b else x for x, b in zip(flat, flags)]
            rows.append(f.fun(*tree_unflatten(tree, member)))
        out = tree_map(lambda *xs: concatenate([expand_dims(x, (0,)) for x in xs], 0), *rows)
        return out, True
    return f
