"""Automatic differentiation: forward mode (JVPTrace), linearize and reverse mode.

Forward mode carries (primal, tangent) pairs through `rules.primitive_jvps`;
tangents may be symbolic `Zero`s so unused inputs cost nothing. Reverse mode is
Autodidax's: linearize = JVP under partial evaluation with the primals known and
the tangents unknown, which stages the linear part into a jaxpr; `vjp` transposes
that jaxpr with `backward_pass`, which runs `rules.primitive_transposes` in reverse.
"""
from __future__ import annotations

import functools

from typing import Any, Callable, Sequence

from .. import core
from ..jaxpr import Jaxpr, Literal, Var
from . import partial_eval as pe
from .trace_util import ensure_live, is_live
from .rules import (UndefinedPrimal, Zero, array_ops, instantiate_zeros, is_undefined_primal,
                    primitive_jvps, primitive_transposes, tangent_dtype)


# ---------------------------------------------------------------- forward mode
class JVPTracer(core.Tracer):
    """A primal value with its tangent (possibly a symbolic Zero)."""

    __slots__ = ("_trace", "primal", "tangent")

    def __init__(self, trace: "JVPTrace", primal: Any, tangent: Any):
        self._trace, self.primal, self.tangent = trace, primal, tangent

    @property
    def aval(self) -> core.ShapedArray:
        return core.get_aval(self.primal)

    def to_concrete_value(self) -> Any:
        p = self.primal
        return p.to_concrete_value() if isinstance(p, core.Tracer) else p


def zero_tangent(x: Any) -> Zero:
    """The symbolic zero tangent of `x` (float0 for integers and bools)."""
    aval = core.get_aval(x)
    return Zero(aval.update(dtype=tangent_dtype(aval.dtype)))


class JVPTrace(core.Trace):
    """Forward mode: each primitive runs its JVP rule on (primals, tangents)."""

    def pure(self, val: Any) -> JVPTracer:
        return JVPTracer(self, val, zero_tangent(val))

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        ensure_live(self)
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(isinstance(t, Zero) for t in tangents):  # nothing to differentiate: as JAX, no rule
            out = primitive.bind(*primals, **params)
            return [self.pure(o) for o in out] if primitive.multiple_results else self.pure(out)
        rule = primitive_jvps.get(primitive)
        if rule is None:
            raise NotImplementedError(
                f"Differentiation rule for '{primitive.name}' not implemented")
        out, t_out = rule(primals, tangents, **params)
        if primitive.multiple_results:
            return [JVPTracer(self, p, t) for p, t in zip(out, t_out)]
        return JVPTracer(self, out, t_out)

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros=False, **_):
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(isinstance(t, Zero) for t in tangents):
            outs = primitive.bind(*primals, call_jaxpr=fun, jvp=jvp, symbolic_zeros=symbolic_zeros)
            return [self.pure(o) for o in outs]
        if not symbolic_zeros:
            tangents = [instantiate_zeros(t) for t in tangents]
        outs, t_outs = jvp(primals, tangents)
        return [JVPTracer(self, p, t) for p, t in zip(outs, t_outs)]

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, **params):
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(isinstance(t, Zero) for t in tangents):
            outs = primitive.bind(*primals, call_jaxpr=fun, fwd=fwd, bwd=bwd, **params)
            return [self.pure(o) for o in outs]
        outs, t_outs = custom_vjp_jvp(fwd, bwd, primals, tangents)
        return [JVPTracer(self, p, t) for p, t in zip(outs, t_outs)]


def jvp_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any], tangents: Sequence[Any],
             instantiate: bool = True) -> tuple[list, list]:
    """Primal and tangent outputs of a flat function; zeros instantiated unless asked not to."""
    tangents = [_float0_to_zero(t) for t in tangents]
    with core.new_main(JVPTrace) as main:
        trace = JVPTrace(main)
        # an input with a symbolic-zero tangent (integers, float0) enters as its plain value,
        # as in JAX: it stays concrete, so it can still be a static argument of a jit inside
        tracers_in = [x if isinstance(t, Zero) else JVPTracer(trace, x, t) for x, t in zip(primals, tangents)]
        outs = [trace.full_raise(o) for o in fun(*tracers_in)]
        primals_out = [core.full_lower(t.primal) for t in outs]
        tangents_out = [t.tangent if isinstance(t.tangent, Zero) else core.full_lower(t.tangent)
                        for t in outs]
    if instantiate:
        tangents_out = [instantiate_zeros(t) for t in tangents_out]
    return primals_out, tangents_out


def _float0_to_zero(t: Any) -> Any:
    """Tangents of integer/bool inputs (float0) are symbolic zeros inside, as in JAX."""
    if isinstance(t, Zero):
        return t
    aval = core.get_aval(t)
    return Zero(aval) if aval.dtype.name == "float0" else t


def lower_finished(x: Any) -> Any:
    """A value computed inside a finished jvp/linearize (an `aux` output), as its primal."""
    while isinstance(x, core.Tracer) and not is_live(x._trace.main):
        if isinstance(x, JVPTracer):
            x = x.primal
        elif isinstance(x, pe.PartialEvalTracer) and x.pval.is_known:
            x = x.pval.const
        else:
            break
    return core.full_lower(x)


# ---------------------------------------------------------------- linearize
def linearize_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
                   ) -> tuple[list, Jaxpr, list]:
    """Primal outputs and the linear map as (jaxpr over tangent inputs, its consts)."""
    n = len(primals)
    pvals = [pe.PartialVal.known(x) for x in primals] + \
            [pe.PartialVal.unknown(core.get_aval(x).update(dtype=tangent_dtype(core.get_aval(x).dtype)))
             for x in primals]

    def fun_jvp(*args):
        outs, t_outs = jvp_flat(fun, args[:n], args[n:])
        return [*outs, *t_outs]

    jaxpr, pvals_out, consts = pe.partial_eval_flat(fun_jvp, pvals, lambda k: [i >= k // 2 for i in range(k)])
    m = len(pvals_out) // 2
    if not all(pv.is_known for pv in pvals_out[:m]):
        raise AssertionError("linearize: a primal output was staged with the tangents; a partial "
                             "evaluation rule is wrong")
    primals_out = [pv.const for pv in pvals_out[:m]]
    return primals_out, jaxpr, consts


# ---------------------------------------------------------------- transposition
def vjp_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
             ) -> tuple[list, Callable[..., list]]:
    """Primal outputs and the pullback (output cotangents -> input cotangents)."""
    primals_out, jaxpr, consts = linearize_flat(fun, primals)
    return primals_out, functools.partial(pullback, jaxpr, consts)


def pullback(jaxpr: Jaxpr, consts: Sequence[Any], *cts: Any) -> list:
    """Input cotangents of the linear map `jaxpr` (with `consts`) at output cotangents `cts`."""
    in_avals = [v.aval for v in jaxpr.invars]
    out = backward_pass(jaxpr, consts, [UndefinedPrimal(a) for a in in_avals], cts)
    return [instantiate_zeros(Zero(a)) if isinstance(c, Zero) else c for c, a in zip(out, in_avals)]


def add_cotangents(a: Any, b: Any) -> Any:
    """Sum of two cotangents of one variable (symbolic zeros and float0 absorb)."""
    if isinstance(a, Zero):
        return b
    if isinstance(b, Zero):
        return a
    if core.get_aval(a).dtype.name == "float0":
        return a
    return array_ops["add"](a, b)


def backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any], cts: Sequence[Any]
                  ) -> list:
    """Cotangents of the jaxpr's invars (UndefinedPrimal in `args`) given output cotangents.

    Equations that do not touch a linear input are evaluated forward first (they
    compute residuals); the others are transposed in reverse order."""
    primal_env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts))
    linear: set[int] = set()
    for v, a in zip(jaxpr.invars, args):
        if is_undefined_primal(a):
            linear.add(id(v))
        else:
            primal_env[v] = a

    def read_primal(a: Any) -> Any:
        if isinstance(a, Literal):
            return a.val
        return UndefinedPrimal(a.aval) if id(a) in linear else primal_env[a]

    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(isinstance(v, Var) and id(v) in linear for v in eqn.invars):
            linear.update(id(v) for v in eqn.outvars)
            linear_eqns.append(eqn)
        else:
            out = eqn.primitive.bind(*[read_primal(v) for v in eqn.invars], **eqn.params)
            primal_env.update(zip(eqn.outvars, out if eqn.primitive.multiple_results else [out]))

    ct_env: dict[int, Any] = {}

    def write_ct(v: Any, ct: Any) -> None:
        if isinstance(v, Var) and id(v) in linear and ct is not None and not isinstance(ct, Zero):
            ct_env[id(v)] = add_cotangents(ct_env[id(v)], ct) if id(v) in ct_env else ct

    def read_ct(v: Var) -> Any:
        ct = ct_env.pop(id(v), None)
        return Zero(v.aval) if ct is None else ct

    for v, ct in zip(jaxpr.outvars, cts):
        write_ct(v, ct)
    for eqn in reversed(linear_eqns):
        cts_out = [read_ct(v) for v in eqn.outvars]
        if all(isinstance(c, Zero) for c in cts_out):
            continue
        rule = primitive_transposes.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for '{eqn.primitive.name}' "
                "not implemented")
        ct = cts_out if eqn.primitive.multiple_results else cts_out[0]
        cts_in = rule(ct, *[read_primal(v) for v in eqn.invars], **eqn.params)
        for v, c in zip(eqn.invars, cts_in):
            write_ct(v, c)
    return [read_ct(v) if id(v) in linear else Zero(v.aval) for v in jaxpr.invars]


# ---------------------------------------------------------------- custom_vjp under jvp: custom_lin (its reverse mode)
custom_lin_p = core.Primitive("custom_lin")
custom_lin_p.multiple_results = True


@core.def_abstract_eval(custom_lin_p)
def _custom_lin_abstract(*avals, num_res, bwd, out_avals):
    return list(out_avals)


def _custom_lin_impl(*args, num_res, bwd, out_avals):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
    res = list(args[:num_res])
    cts = [instantiate_zeros(c) for c in cts]
    return [None] * num_res + list(bwd(res, cts))


core.impl_rules[custom_lin_p] = _custom_lin_impl
primitive_transposes[custom_lin_p] = _custom_lin_transpose


def custom_vjp_jvp(fwd: Callable, bwd: Callable, primals: Sequence[Any], tangents: Sequence[Any]
                   ) -> tuple[list, list]:
    """JVP of a custom_vjp call: run fwd, and make the tangents a custom_lin of them."""
    outs, res = fwd(*primals)
    out_avals = [tangent_aval(o) for o in outs]
    tangents = [instantiate_zeros(t) for t in tangents]
    t_outs = custom_lin_p.bind(*res, *tangents, num_res=len(res), bwd=bwd, out_avals=tuple(out_avals))
    return list(outs), list(t_outs)


def tangent_aval(x: Any) -> core.ShapedArray:
    aval = core.get_aval(x)
    return aval.update(dtype=tangent_dtype(aval.dtype))
