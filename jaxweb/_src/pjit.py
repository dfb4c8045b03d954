"""The `jit` primitive: a call of a staged (closed) jaxpr, so jit boundaries survive
transformations and show in jaxprs as `jit[name=f jaxpr={...}]`.

Its rules transform the inner jaxpr and bind `jit` again: JVP and vmap retrace the
jaxpr under the transformation (cached per jaxpr), partial evaluation splits it into
a known call and a staged unknown call joined by residuals, and transposition runs
the backward pass over the inner jaxpr. Evaluated, it runs the jaxpr compiled for
the arguments' device (`executable`: one schedule, one submit per call); inside
another jaxpr being compiled, its equations are inlined and fuse with the caller's.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Sequence

from . import core
from .executable import device_for, executable
from .interpreters import ad, partial_eval as pe, rules as R
from .lowering import inline_rules
from .interpreters.batching import batch_fun_at_front, bdim_at_front, current_axis_name
from .jaxpr import ClosedJaxpr, JaxprEqn, Var, jaxpr_as_fun, trace_to_closed_jaxpr

jit_p = core.Primitive("jit")
jit_p.multiple_results = True

_jvp_cache: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()
_batch_cache: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def clear_caches() -> None:
    """Drop the per-jaxpr JVP and batched jaxprs (`jax.clear_caches`)."""
    _jvp_cache.clear()
    _batch_cache.clear()


def _cached(cache: weakref.WeakKeyDictionary, closed: ClosedJaxpr, key: Any,
            make: Callable[[], ClosedJaxpr]) -> ClosedJaxpr:
    per = cache.setdefault(closed, {})
    if key not in per:
        per[key] = make()
    return per[key]


@core.def_abstract_eval(jit_p)
def _jit_abstract(*avals, jaxpr, name, donated_invars=()):
    return list(jaxpr.out_avals)


def _jit_impl(*args, jaxpr, name, donated_invars=()):
    return executable(jaxpr, device_for(args), name, donated_invars)(args)


# Transformed calls donate nothing (the donated arrays belong to the caller's program).
def _jit_jvp(primals, tangents, *, jaxpr, name, donated_invars=()):
    n = len(primals)
    tangents = [R.instantiate_zeros(t) for t in tangents]
    avals = tuple(core.get_aval(x) for x in (*primals, *tangents))

    def make() -> ClosedJaxpr:
        def jvp_fun(*pt):
            outs, t_outs = ad.jvp_flat(jaxpr_as_fun(jaxpr), pt[:n], pt[n:])
            return [*outs, *t_outs]
        return trace_to_closed_jaxpr(jvp_fun, avals)

    jvp_jaxpr = _cached(_jvp_cache, jaxpr, avals, make)
    outs = jit_p.bind(*primals, *tangents, jaxpr=jvp_jaxpr, name=f"jvp({name})")
    m = len(outs) // 2
    return outs[:m], outs[m:]


def _jit_batch(args, dims, *, jaxpr, name, donated_invars=()):
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    args = [bdim_at_front(a, d, size) for a, d in zip(args, dims)]
    avals = tuple(core.get_aval(a) for a in args)
    axis_name = current_axis_name()
    batched = _cached(_batch_cache, jaxpr, (avals, axis_name), lambda: trace_to_closed_jaxpr(
        batch_fun_at_front(jaxpr_as_fun(jaxpr), [0] * len(args), size, axis_name), avals))
    outs = jit_p.bind(*args, jaxpr=batched, name=f"vmap({name})")
    return outs, [0] * len(outs)


def _jit_partial_eval(trace, tracers, *, jaxpr, name, donated_invars=()):
    """Known outputs and residuals from one call, unknown outputs from a staged second call."""
    in_unknowns = [not t.pval.is_known for t in tracers]
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(jaxpr.jaxpr, in_unknowns)
    known_outs = jit_p.bind(*[t.pval.const for t in tracers if t.pval.is_known],
                            jaxpr=ClosedJaxpr(known, jaxpr.consts), name=name)
    n_known = len(known_outs) - num_res
    residuals = [trace.lift(r) for r in known_outs[n_known:]]
    staged = trace.stage(jit_p, residuals + [t for t in tracers if not t.pval.is_known],
                         dict(jaxpr=ClosedJaxpr(unknown, []), name=name))
    it_known, it_staged = iter(known_outs[:n_known]), iter(staged)
    return [next(it_staged) if u else trace.lift(next(it_known)) for u in out_unknowns]


def _jit_partial_eval_jaxpr(eqn: JaxprEqn, unks: Sequence[bool]) -> tuple:
    closed, name = eqn.params["jaxpr"], eqn.params["name"]
    known, unknown, out_unks, num_res = pe.partial_eval_jaxpr(closed.jaxpr, unks)
    res = [Var(v.aval) for v in known.outvars[len(known.outvars) - num_res:]]
    known_eqn = JaxprEqn(jit_p, [v for v, u in zip(eqn.invars, unks) if not u],
                         dict(jaxpr=ClosedJaxpr(known, closed.consts), name=name),
                         [v for v, u in zip(eqn.outvars, out_unks) if not u] + res)
    unknown_eqn = JaxprEqn(jit_p, res + [v for v, u in zip(eqn.invars, unks) if u],
                           dict(jaxpr=ClosedJaxpr(unknown, []), name=name),
                           [v for v, u in zip(eqn.outvars, out_unks) if u])
    return known_eqn, unknown_eqn, out_unks


def _jit_transpose(cts, *args, jaxpr, name, donated_invars=()):
    cts_in = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, args, cts)
    return [c if R.is_undefined_primal(a) else None for c, a in zip(cts_in, args)]


core.impl_rules[jit_p] = _jit_impl
inline_rules[jit_p] = lambda params: params["jaxpr"]
R.primitive_jvps[jit_p] = _jit_jvp
R.primitive_batchers[jit_p] = _jit_batch
R.primitive_transposes[jit_p] = _jit_transpose
pe.custom_partial_eval_rules[jit_p] = _jit_partial_eval
pe.partial_eval_jaxpr_rules[jit_p] = _jit_partial_eval_jaxpr


def jit_call(closed: ClosedJaxpr, args: Sequence[Any], name: str, donated: Sequence[bool] = ()) -> list:
    """Run a traced function's jaxpr as one `jit` call (`donated`: per argument, whether the
    call may take over its memory; the argument is deleted after the call)."""
    if any(donated):
        return jit_p.bind(*args, jaxpr=closed, name=name, donated_invars=tuple(donated))
    return jit_p.bind(*args, jaxpr=closed, name=name)
