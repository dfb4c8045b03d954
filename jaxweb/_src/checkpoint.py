"""`checkpoint` / `remat`: recompute a function's intermediates in the backward pass.

`checkpoint(f)` stages `f` into a jaxpr and binds the `checkpoint` primitive on it.
Its rules decide what reverse mode keeps: partial evaluation computes the known
outputs plus only the residuals that `policy(prim, *avals, **params)` saves (none
by default), and stages the rest of the differentiated jaxpr, recomputation
included, as a new checkpoint; its transpose rule re-runs the non-linear part
before transposing the linear one. `checkpoint_name(x, "h")` tags values for the
`save_only_these_names` / `save_anything_except_these_names` policies.
"""
from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any, Callable, Sequence

from . import core
from .api_util import OutStore, abstractify, flatten_fun
from .interpreters import ad, partial_eval as pe, rules as R
from .interpreters.batching import batch_fun_at_front, bdim_at_front, current_axis_name
from .jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, convert_constvars_jaxpr, eval_jaxpr, trace_to_closed_jaxpr
from .dispatch import def_lowering
from .lowering import inline_rules
from .tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = ["checkpoint", "remat", "checkpoint_policies", "checkpoint_name", "Saveable", "Recompute",
           "Offloadable"]

checkpoint_p = core.Primitive("checkpoint")
checkpoint_p.multiple_results = True


def _run(jaxpr: Jaxpr) -> Callable[..., list]:
    return lambda *args: eval_jaxpr(jaxpr, [], *args)


def _stage(fun: Callable[..., Sequence[Any]], avals: Sequence[core.ShapedArray]) -> tuple[Jaxpr, list]:
    """An open jaxpr of `fun` whose captured constants are leading inputs."""
    return convert_constvars_jaxpr(trace_to_closed_jaxpr(fun, avals))


@core.def_abstract_eval(checkpoint_p)
def _checkpoint_abstract(*avals, jaxpr, **_):
    return [v.aval for v in jaxpr.outvars]


def _checkpoint_impl(*args, jaxpr, **_):
    return eval_jaxpr(jaxpr, [], *args)


def _checkpoint_jvp(primals, tangents, *, jaxpr, **params):
    n = len(primals)
    tangents = [R.instantiate_zeros(t) for t in tangents]

    def jvp_fun(*pt):
        outs, t_outs = ad.jvp_flat(_run(jaxpr), pt[:n], pt[n:])
        return [*outs, *t_outs]

    jvp_jaxpr, consts = _stage(jvp_fun, [core.get_aval(x) for x in (*primals, *tangents)])
    outs = checkpoint_p.bind(*consts, *primals, *tangents, jaxpr=jvp_jaxpr, **{**params, "differentiated": True})
    m = len(outs) // 2
    return outs[:m], outs[m:]


def _recompute(policy: Callable | None) -> Callable[[JaxprEqn], bool]:
    """Which equations the backward pass recomputes: those `policy` does not save."""
    if policy is None:
        return lambda eqn: True
    return lambda eqn: not policy(eqn.primitive, *[v.aval for v in eqn.invars], **eqn.params)


def _split(jaxpr: Jaxpr, unks: Sequence[bool], policy: Callable | None) -> tuple:
    return pe.partial_eval_jaxpr(jaxpr, unks, recompute=_recompute(policy))


def _checkpoint_partial_eval(trace, tracers, *, jaxpr, **params):
    """Known outputs and the residuals the policy saves now; the unknown part, which
    recomputes everything else from them, staged as a checkpoint of its own."""
    known, unknown, out_unks, num_res = _split(jaxpr, [not t.pval.is_known for t in tracers],
                                               params["policy"])
    known_outs = checkpoint_p.bind(*[t.pval.const for t in tracers if t.pval.is_known],
                                   jaxpr=known, **params)
    n_known = len(known_outs) - num_res
    residuals = [trace.lift(r) for r in known_outs[n_known:]]
    staged = iter(trace.stage(checkpoint_p, residuals + [t for t in tracers if not t.pval.is_known],
                              dict(jaxpr=unknown, **params)))
    it_known = iter(known_outs[:n_known])
    return [next(staged) if u else trace.lift(next(it_known)) for u in out_unks]


def _checkpoint_partial_eval_jaxpr(eqn: JaxprEqn, unks: Sequence[bool]) -> tuple:
    """The same split on a checkpoint equation inside a jaxpr being partially evaluated."""
    known, unknown, out_unks, num_res = _split(eqn.params["jaxpr"], unks, eqn.params["policy"])
    res = [Var(v.aval) for v in known.outvars[len(known.outvars) - num_res:]]
    known_eqn = JaxprEqn(checkpoint_p, [v for v, u in zip(eqn.invars, unks) if not u],
                         {**eqn.params, "jaxpr": known},
                         [v for v, u in zip(eqn.outvars, out_unks) if not u] + res)
    unknown_eqn = JaxprEqn(checkpoint_p, res + [v for v, u in zip(eqn.invars, unks) if u],
                           {**eqn.params, "jaxpr": unknown},
                           [v for v, u in zip(eqn.outvars, out_unks) if u])
    return known_eqn, unknown_eqn, out_unks


def _checkpoint_transpose(cts, *args, jaxpr, **params):
    """Recompute the residuals from the known inputs, then transpose the linear part."""
    in_unknowns = [R.is_undefined_primal(a) for a in args]
    jaxpr_known, jaxpr_unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr, in_unknowns)
    n_known_out = len(jaxpr_known.outvars) - num_res
    res_only = pe.dce_jaxpr(jaxpr_known, [False] * n_known_out + [True] * num_res)
    res = eval_jaxpr(res_only, [], *[a for a, u in zip(args, in_unknowns) if not u])
    lin_args = [a for a, u in zip(args, in_unknowns) if u]
    lin_cts = [c for c, u in zip(cts, out_unknowns) if u]
    cts_lin = iter(ad.backward_pass(jaxpr_unknown, [], [*res, *lin_args], lin_cts)[num_res:])
    return [next(cts_lin) if u else None for u in in_unknowns]


def _checkpoint_batch(args, dims, *, jaxpr, **params):
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    args = [bdim_at_front(a, d, size) for a, d in zip(args, dims)]
    batched, consts = _stage(batch_fun_at_front(_run(jaxpr), [0] * len(args), size, current_axis_name()),
                             [core.get_aval(a) for a in args])
    outs = checkpoint_p.bind(*consts, *args, jaxpr=batched, **params)
    return outs, [0] * len(outs)


core.impl_rules[checkpoint_p] = _checkpoint_impl
inline_rules[checkpoint_p] = lambda params: ClosedJaxpr(params["jaxpr"], [])
R.primitive_jvps[checkpoint_p] = _checkpoint_jvp
R.primitive_transposes[checkpoint_p] = _checkpoint_transpose
R.primitive_batchers[checkpoint_p] = _checkpoint_batch
pe.custom_partial_eval_rules[checkpoint_p] = _checkpoint_partial_eval
pe.partial_eval_jaxpr_rules[checkpoint_p] = _checkpoint_partial_eval_jaxpr


def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums: int | tuple[int, ...] = ()) -> Callable:
    """`jax.checkpoint`: same values as `fun`; its reverse mode recomputes `fun`'s
    intermediates from the inputs instead of storing them."""
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        fixed = {i: args[i] for i in static}
        dyn = tuple(a for i, a in enumerate(args) if i not in fixed)

        def f_dyn(*dyn_args, **kw):
            it = iter(dyn_args)
            return fun(*[fixed[i] if i in fixed else next(it) for i in range(len(args))], **kw)

        flat, in_tree = tree_flatten((dyn, kwargs))
        store = OutStore()
        jaxpr, consts = _stage(flatten_fun(f_dyn, in_tree, store), [abstractify(x) for x in flat])
        outs = checkpoint_p.bind(*consts, *flat, jaxpr=jaxpr, prevent_cse=prevent_cse,
                                 differentiated=False, policy=policy)
        return tree_unflatten(store.tree, outs)

    return wrapped


remat = checkpoint


# ---------------------------------------------------------------- names and policies
checkpoint_name_p = core.Primitive("name")
core.def_abstract_eval(checkpoint_name_p)(lambda x, *, name: x)
def_lowering(checkpoint_name_p)(lambda x, *, name: x)
R.defvectorized(checkpoint_name_p)
R.deflinear(checkpoint_name_p, lambda ct, x, *, name: [ct])


def checkpoint_name(x: Any, name: str) -> Any:
    """`x` (a pytree), tagged `name` for the `save_*_these_names` checkpoint policies."""
    return tree_map(lambda v: checkpoint_name_p.bind(v, name=name), x)


def _policy(save: bool) -> Callable[..., bool]:
    return lambda *_, **__: save


def _save_names(names: tuple[str, ...], inside: bool) -> Callable[..., bool]:
    """Save values tagged with one of `names` (inside) or everything but them (not inside)."""
    def policy(prim: core.Primitive, *_: Any, **params: Any) -> bool:
        if prim is checkpoint_name_p:
            return (params["name"] in names) == inside
        return not inside
    return policy


def _dots(prim: core.Primitive, *_: Any, **params: Any) -> bool:
    return prim.name == "dot_general"


def _dots_no_batch(prim: core.Primitive, *_: Any, **params: Any) -> bool:
    dims = params.get("dimension_numbers")
    return prim.name == "dot_general" and dims is not None and not any(dims[1])


def _save_named_except(names: tuple[str, ...]) -> Callable[..., bool]:
    """Save every named value whose name is not in `names` (unnamed values recompute)."""
    def policy(prim: core.Primitive, *_: Any, **params: Any) -> bool:
        return prim is checkpoint_name_p and params["name"] not in names
    return policy


def _save_from_both(p1: Callable, p2: Callable) -> Callable[..., bool]:
    return lambda prim, *avals, **params: bool(p1(prim, *avals, **params)) or \
        bool(p2(prim, *avals, **params))


def _save_and_offload_names(*, names_which_can_be_saved: Sequence[str] = (),
                            names_which_can_be_offloaded: Sequence[str] = (),
                            offload_src: str = "device", offload_dst: str = "pinned_host"):
    """Offloading is saving here (one memory space): both name lists are saved."""
    return _save_names(tuple(names_which_can_be_saved) + tuple(names_which_can_be_offloaded), True)


class _Decision:
    """What a policy may return instead of a bool: Saveable (truthy) or Recompute (falsy)."""

    def __init__(self, name: str, save: bool):
        self.name, self.save = name, save

    def __bool__(self) -> bool:
        return self.save

    def __repr__(self) -> str:
        return self.name


Saveable, Recompute = _Decision("Saveable", True), _Decision("Recompute", False)


class Offloadable:
    """A policy's answer 'save, offloaded from src to dst' (saved in place here)."""

    def __init__(self, src: str, dst: str):
        self.src, self.dst = src, dst

    def __bool__(self) -> bool:
        return True


checkpoint_policies = SimpleNamespace(
    everything_saveable=_policy(True), nothing_saveable=_policy(False),
    dots_saveable=_dots, checkpoint_dots=_dots,
    dots_with_no_batch_dims_saveable=_dots_no_batch,
    checkpoint_dots_with_no_batch_dims=_dots_no_batch,
    offload_dot_with_no_batch_dims=lambda offload_src="device", offload_dst="pinned_host": _dots_no_batch,
    save_anything_except_these_names=lambda *names: _save_names(names, False),
    save_any_names_but_these=lambda *names: _save_named_except(names),
    save_only_these_names=lambda *names: _save_names(names, True),
    save_from_both_policies=_save_from_both,
    save_and_offload_only_these_names=_save_and_offload_names,
)
