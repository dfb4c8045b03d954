"""Primitives defined by a decomposition: `lax.composite`, and named primitives such as
`igamma_p` whose meaning is a Python function of other primitives.

JAX keeps a few operations as primitives of their own although XLA lowers them through a
decomposition (`mlir.lower_fun`): `igamma`, `zeta`, `square`'s siblings, `composite`. Such an
equation shows in a jaxpr under its own name, and its rules come from the decomposition:
its abstract value and its lowering trace the function (once per input types and
parameters), its JVP and its batching rule transform the decomposition itself (so a
`custom_jvp` inside it gives the derivative). `decomposed_primitive` builds one.
`composite_p` carries its decomposition as a jaxpr parameter and, as JAX 0.10's, has
no JVP or batching rule (JAX's errors).
"""
from __future__ import annotations

__all__ = ["composite", "composite_p"]

import functools
from typing import Any, Callable, Sequence

from .. import core
from ..interpreters import ad, rules as R
from ..interpreters.batching import batch_fun_at_front, bdim_at_front, current_axis_name
from ..jaxpr import ClosedJaxpr, trace_to_closed_jaxpr
from ..lowering import const_node, current_target, inline_rules, lower_jaxpr, lowering_rules
from ..device import use_device
from ..dispatch import eager_apply

from ..tree_util import tree_flatten, tree_unflatten


def _as_list(out: Any, multiple: bool) -> list:
    return list(out) if multiple else [out]


def _jvp_rule(fun_of: Callable[[dict], Callable[..., list]], multiple: bool) -> Callable:
    """The JVP of the decomposition (tangents instantiated: the decomposition sees arrays)."""
    def jvp(primals, tangents, **params):
        outs, t_outs = ad.jvp_flat(fun_of(params), primals, [R.instantiate_zeros(t) for t in tangents])
        return (outs, t_outs) if multiple else (outs[0], t_outs[0])
    return jvp


def _batch_rule(fun_of: Callable[[dict], Callable[..., list]], multiple: bool) -> Callable:
    """vmap of the decomposition, every batched input moved to axis 0."""
    def batch(args, dims, **params):
        size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
        args = [bdim_at_front(a, d, size) if d is not None else a for a, d in zip(args, dims)]
        in_dims = [0 if d is not None else None for d in dims]
        outs = batch_fun_at_front(fun_of(params), in_dims, size, current_axis_name())(*args)
        return (outs, [0] * len(outs)) if multiple else (outs[0], 0)
    return batch


def decomposed_primitive(name: str, impl: Callable[..., Any], multiple_results: bool = False,
                         elementwise: bool = False) -> core.Primitive:
    """A primitive named `name` meaning `impl(*operands, **params)` (params hashable).
    `elementwise`: its result is weakly typed when every operand is (JAX's n-ary op rule)."""
    prim = core.Primitive(name)
    prim.multiple_results = multiple_results

    def fun_of(params: dict) -> Callable[..., list]:
        return lambda *xs: _as_list(impl(*xs, **params), multiple_results)

    @functools.lru_cache(maxsize=256)
    def traced(avals: tuple, items: tuple, device: Any) -> ClosedJaxpr:
        with use_device(device):  # its constants are made on the device that will read them
            return trace_to_closed_jaxpr(fun_of(dict(items)), avals)

    def closed_for(avals: Sequence[core.ShapedArray], params: dict) -> ClosedJaxpr:
        """The decomposition's jaxpr; per device, as the constants it captures live on one."""
        return traced(tuple(avals), tuple(sorted(params.items())), current_target())

    @core.def_abstract_eval(prim)
    def _abstract(*avals, **params):
        out = closed_for(avals, params).out_avals
        if elementwise:
            weak = all(a.weak_type for a in avals)
            out = [a.update(weak_type=weak) for a in out]
        return list(out) if multiple_results else out[0]

    def _lower(*nodes, **params):
        avals = [core.ShapedArray(n.shape, n.dtype) for n in nodes]
        closed = closed_for(avals, params)
        outs = lower_jaxpr(closed.jaxpr, [const_node(c) for c in closed.consts], list(nodes))
        return outs if multiple_results else outs[0]

    lowering_rules[prim] = _lower
    core.impl_rules[prim] = functools.partial(eager_apply, prim)
    R.primitive_jvps[prim] = _jvp_rule(fun_of, multiple_results)
    R.primitive_batchers[prim] = _batch_rule(fun_of, multiple_results)
    return prim


# ---------------------------------------------------------------- lax.composite
composite_p = core.Primitive("composite")
composite_p.multiple_results = True
core.def_abstract_eval(composite_p)(lambda *avals, jaxpr, **_: list(jaxpr.out_avals))
inline_rules[composite_p] = lambda params: params["jaxpr"]
core.impl_rules[composite_p] = functools.partial(eager_apply, composite_p)




def _no_jvp(primals, tangents, **params):
    raise ValueError("JVP rule for composite not implemented. You can use `jax.custom_jvp` to add support. "
                     "See https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


def _no_batching(args, dims, **params):
    raise NotImplementedError("Batching rule for 'composite' not implemented")


R.primitive_jvps[composite_p] = _no_jvp  # as in JAX 0.10: a composite is opaque to jvp and vmap
R.primitive_batchers[composite_p] = _no_batching


def composite(decomposition: Callable, name: str, version: int = 0) -> Callable:
    """`lax.composite`: `decomposition` as one `composite[name=...]` equation (XLA keeps it as
    a stablehlo.composite; here, as in XLA on CPU, it runs the decomposition). Positional
    arguments are its operands (a pytree of arrays); keyword arguments are static attributes."""
    @functools.wraps(decomposition)
    def call(*args: Any, **attributes: Any) -> Any:
        if any(isinstance(v, core.Tracer) for v in tree_flatten(attributes)[0]):
            raise core.UnexpectedTracerError(
                f"Found a JAX Tracer as an attribute in the decomposition for the composite op '{name}'. "
                "Any values that aren't explicitly known at compile time must be explicitly passed as "
                "arguments to the composite.")
        flat, in_tree = tree_flatten(args)
        out_tree = []

        def flat_fun(*xs: Any) -> list:
            leaves, tree = tree_flatten(decomposition(*tree_unflatten(in_tree, list(xs)), **attributes))
            out_tree.append(tree)
            return leaves
        closed = trace_to_closed_jaxpr(flat_fun, [core.get_aval(x) for x in flat])
        attrs = tuple((k, repr(v)) for k, v in attributes.items())
        outs = composite_p.bind(*flat, name=name, attributes=attrs, version=version, jaxpr=closed)
        return tree_unflatten(out_tree[0], outs)
    return call
