"""Partial evaluation: run what is known now, stage what is unknown into a jaxpr.

Used by `linearize` (primals known, tangents unknown) after Autodidax: each
tracer holds a PartialVal (known value, or only an abstract value) and, if
unknown, the recipe that produced it; `tracers_to_jaxpr` walks the recipes back
from the outputs. Known values used by unknown operations become the jaxpr's
constants (the residuals). `partial_eval_jaxpr` does the same split on a jaxpr.
Primitives whose staging needs more than "any unknown input stages the equation"
(checkpoint) register in `custom_partial_eval_rules`.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from .. import core
from .trace_util import ensure_live
from ..jaxpr import Jaxpr, JaxprEqn, Var

#: prim -> rule(trace, tracers, **params) -> out tracer(s)
custom_partial_eval_rules: dict[core.Primitive, Callable] = {}
#: prim -> rule(eqn, in_unknowns) -> (known eqn or None, unknown eqn, out_unknowns), for
#: equations holding jaxprs: the known eqn may define extra vars the unknown one reads
partial_eval_jaxpr_rules: dict[core.Primitive, Callable] = {}


class PartialVal(NamedTuple):
    """A known value, or only the abstract value of an unknown one."""

    aval: core.ShapedArray
    const: Any  # None when unknown

    @classmethod
    def known(cls, val: Any) -> "PartialVal":
        return PartialVal(core.get_aval(val), val)

    @classmethod
    def unknown(cls, aval: core.ShapedArray) -> "PartialVal":
        return PartialVal(aval, None)

    is_known = property(lambda self: self.const is not None)


class LambdaBindingRecipe(NamedTuple):
    """An unknown input of the staged jaxpr."""


class ConstRecipe(NamedTuple):
    """A known value used by a staged equation: a constant (residual) of the jaxpr."""

    val: Any


class JaxprEqnRecipe(NamedTuple):
    """A staged equation and the tracers of its outputs."""

    prim: core.Primitive
    tracers_in: list
    params: dict
    avals_out: list
    tracers_out: list


class PartialEvalTracer(core.Tracer):
    """A partially known value and, if unknown, the recipe that produces it."""

    __slots__ = ("_trace", "pval", "recipe")

    def __init__(self, trace: "PartialEvalTrace", pval: PartialVal, recipe: Any):
        self._trace, self.pval, self.recipe = trace, pval, recipe

    @property
    def aval(self) -> core.ShapedArray:
        return self.pval.aval

    def full_lower(self) -> Any:
        if self.pval.is_known:
            return core.full_lower(self.pval.const)
        return self

    def to_concrete_value(self) -> Any:
        c = self.pval.const
        return c.to_concrete_value() if isinstance(c, core.Tracer) else c


class PartialEvalTrace(core.Trace):
    """Evaluates primitives whose inputs are all known; stages the others."""

    def new_arg(self, pval: PartialVal) -> PartialEvalTracer:
        return PartialEvalTracer(self, pval, LambdaBindingRecipe())

    def lift(self, val: Any) -> PartialEvalTracer:
        return PartialEvalTracer(self, PartialVal.known(val), None)

    pure = lift

    def instantiate_const(self, tracer: PartialEvalTracer) -> PartialEvalTracer:
        if tracer.pval.is_known:
            return PartialEvalTracer(self, PartialVal.unknown(tracer.aval), ConstRecipe(tracer.pval.const))
        return tracer

    def process_primitive(self, primitive, tracers, params):
        ensure_live(self)
        if all(t.pval.is_known for t in tracers):
            return primitive.bind(*[t.pval.const for t in tracers], **params)
        rule = custom_partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, tracers, **params)
        return self.stage(primitive, tracers, params)

    def stage(self, primitive: core.Primitive, tracers: Sequence[PartialEvalTracer], params: dict) -> Any:
        """Record `primitive` as an equation of the unknown part."""
        tracers_in = [self.instantiate_const(t) for t in tracers]
        avals = primitive.abstract_eval(*[t.aval for t in tracers_in], **params)
        avals_out = list(avals) if primitive.multiple_results else [avals]
        outs: list = []
        recipe = JaxprEqnRecipe(primitive, tracers_in, params, avals_out, outs)
        outs.extend(PartialEvalTracer(self, PartialVal.unknown(a), recipe) for a in avals_out)
        return outs if primitive.multiple_results else outs[0]

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, **params):
        if all(t.pval.is_known for t in tracers):
            return primitive.bind(*[t.pval.const for t in tracers], call_jaxpr=fun, jvp=jvp, **params)
        return fun(*tracers)  # differentiation already happened above: run the primal

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, **params):
        if all(t.pval.is_known for t in tracers):
            return primitive.bind(*[t.pval.const for t in tracers], call_jaxpr=fun, fwd=fwd, bwd=bwd, **params)
        return fun(*tracers)


def partial_eval_flat(fun: Callable[..., Sequence[Any]], pvals_in: Sequence[PartialVal],
                      instantiate: Callable[[int], Sequence[bool]] | None = None
                      ) -> tuple[Jaxpr, list[PartialVal], list]:
    """Run `fun` on partially known inputs: the jaxpr of its unknown part (over the
    unknown inputs), the output PartialVals, and the jaxpr's constant values. The
    outputs that `instantiate(number of outputs)` marks are jaxpr outputs even when
    known (as constants), so the jaxpr's outputs line up with them (linearize: every
    tangent output, also one a custom JVP rule computed without the tangents)."""
    with core.new_main(PartialEvalTrace) as main:
        trace = PartialEvalTrace(main)
        tracers_in = [trace.new_arg(pv) for pv in pvals_in]
        outs = [trace.full_raise(o) for o in fun(*tracers_in)]
        pvals_out = [t.pval for t in outs]
        unk_in = [t for t in tracers_in if not t.pval.is_known]
        inst = [False] * len(outs) if instantiate is None else list(instantiate(len(outs)))
        unk_out = [trace.instantiate_const(t) for t, i in zip(outs, inst) if i or not t.pval.is_known]
        jaxpr, consts = tracers_to_jaxpr(unk_in, unk_out)
    return jaxpr, pvals_out, consts


def tracers_to_jaxpr(tracers_in: list, tracers_out: list) -> tuple[Jaxpr, list]:
    """Walk recipes back from `tracers_out` into a jaxpr over `tracers_in`."""
    tracer_to_var = {id(t): Var(t.aval) for t in tracers_in}
    constvars: dict[int, Var] = {}
    constvals: list = []
    eqns: list[JaxprEqn] = []
    seen_eqns: set[int] = set()
    for t in toposort(tracers_out):
        r = t.recipe
        if isinstance(r, LambdaBindingRecipe):
            if id(t) not in tracer_to_var:
                raise core.UnexpectedTracerError("a tracer escaped its partial evaluation")
        elif isinstance(r, ConstRecipe):
            var = constvars.get(id(r.val))
            if var is None:
                var = constvars[id(r.val)] = Var(t.aval)
                constvals.append(r.val)
            tracer_to_var[id(t)] = var
        elif isinstance(r, JaxprEqnRecipe) and id(r) not in seen_eqns:
            seen_eqns.add(id(r))
            outvars = [Var(a) for a in r.avals_out]
            for o, v in zip(r.tracers_out, outvars):
                tracer_to_var[id(o)] = v
            eqns.append(JaxprEqn(r.prim, [tracer_to_var[id(x)] for x in r.tracers_in], r.params, outvars))
    jaxpr = Jaxpr(list(constvars.values()), [tracer_to_var[id(t)] for t in tracers_in],
                  [tracer_to_var[id(t)] for t in tracers_out], eqns)
    return jaxpr, constvals


def _parents(t: PartialEvalTracer) -> list:
    return list(t.recipe.tracers_in) if isinstance(t.recipe, JaxprEqnRecipe) else []


def toposort(out_nodes: list) -> list:
    """Tracers reachable from `out_nodes`, each after all its inputs (iterative DFS)."""
    order: list = []
    state: dict[int, bool] = {}  # id -> done
    for root in out_nodes:
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                if not state.get(id(node)):
                    state[id(node)] = True
                    order.append(node)
                continue
            if id(node) in state:
                continue
            state[id(node)] = False
            stack.append((node, True))
            # siblings from the same equation share parents: visiting one suffices
            stack.extend((p, False) for p in reversed(_parents(node)) if id(p) not in state)
    return order


# ---------------------------------------------------------------- jaxpr-level
def partial_eval_jaxpr(jaxpr: Jaxpr, in_unknowns: Sequence[bool],
                       recompute: Callable[[JaxprEqn], bool] | None = None
                       ) -> tuple[Jaxpr, Jaxpr, list[bool], int]:
    """Split `jaxpr` into a known part (known ins -> known outs + residuals) and an
    unknown part (residuals + unknown ins -> unknown outs). An equation with any
    unknown input goes to the unknown part whole; its known inputs become residuals.
    Known equations for which `recompute(eqn)` holds are also copied into the unknown
    part when it needs them (rematerialization): their outputs are then not residuals."""
    unknown: set[int] = {id(v) for v, u in zip(jaxpr.invars, in_unknowns) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        unks = [isinstance(v, Var) and id(v) in unknown for v in eqn.invars]
        rule = partial_eval_jaxpr_rules.get(eqn.primitive)
        if not any(unks):
            known_eqns.append(eqn)
            if recompute is not None and recompute(eqn):
                unknown_eqns.append(eqn)
        elif rule is None:
            unknown_eqns.append(eqn)
            unknown.update(id(v) for v in eqn.outvars)
        else:
            known_eqn, unknown_eqn, out_unks = rule(eqn, unks)
            known_eqns.extend([known_eqn] if known_eqn is not None else [])
            unknown_eqns.append(unknown_eqn)
            unknown.update(id(v) for v, u in zip(eqn.outvars, out_unks) if u)
    out_unknowns = [isinstance(v, Var) and id(v) in unknown for v in jaxpr.outvars]
    unknown_ins = [v for v, u in zip(jaxpr.invars, in_unknowns) if u]
    unknown_outs = [v for v, u in zip(jaxpr.outvars, out_unknowns) if u]
    unknown_eqns = _live_eqns(unknown_eqns, unknown_outs)
    defined = {id(v) for v in unknown_ins} | {id(v) for e in unknown_eqns for v in e.outvars}
    residuals: dict[int, Var] = {}
    for eqn in unknown_eqns:
        for v in eqn.invars:
            if isinstance(v, Var) and id(v) not in defined:
                residuals.setdefault(id(v), v)
    res = list(residuals.values())
    known_outs = [v for v, u in zip(jaxpr.outvars, out_unknowns) if not u]
    jaxpr_known = Jaxpr(jaxpr.constvars, [v for v, u in zip(jaxpr.invars, in_unknowns) if not u],
                        known_outs + res, _live_eqns(known_eqns, known_outs + res))
    jaxpr_unknown = Jaxpr([], res + unknown_ins, unknown_outs, unknown_eqns)
    return jaxpr_known, jaxpr_unknown, out_unknowns, len(res)


def _live_eqns(eqns: Sequence[JaxprEqn], outvars: Sequence[Any]) -> list[JaxprEqn]:
    """The equations that the given outputs depend on, and effectful ones, in order."""
    live = {id(v) for v in outvars if isinstance(v, Var)}
    kept = []
    for eqn in reversed(eqns):
        if eqn.primitive in core.effectful_primitives or any(id(v) in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(id(v) for v in eqn.invars if isinstance(v, Var))
    return kept[::-1]


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool]) -> Jaxpr:
    """`jaxpr` keeping only the selected outputs and the equations they need."""
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, outvars, _live_eqns(jaxpr.eqns, outvars))
