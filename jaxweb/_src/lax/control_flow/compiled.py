"""Control flow compiled: lowering rules of `cond`, `while` and `scan`, and their
eager implementations through the same compiled path.

Inside a jitted program each becomes one `call` node of the lazy graph whose
sub-programs (the branches, the predicate and body, the scan body) are lowered once
into graphs of their own and scheduled into precompiled schedules; at run time the
backend's control-flow executor (`backends/control.py`) runs them per iteration, with
no re-tracing and no re-scheduling. Special cases fold at lowering time: a cond on a
constant index is just that branch, and a scan with `unroll` at least its length is
the body inlined `length` times (it then fuses across iterations). A while loop whose
predicate was batched by vmap gets a predicate program reducing it with `any` and a
body program selecting per element, as the eager rule does.

Evaluated eagerly (outside jit), each primitive runs as a one-equation jaxpr compiled
like any jitted function, so an eager loop costs one schedule per iteration.
"""
from __future__ import annotations

from typing import Any, Sequence

from ... import core, dtypes
from ...compiler import graph
from ...compiler.kernel import Call
from ...executable import one_equation_impl
from ...jaxpr import ClosedJaxpr, eval_jaxpr, trace_to_closed_jaxpr
from ...lowering import collect_effects, const_node, input_nodes, lower_jaxpr, lowering_rules, record_effect
from . import common as C
from .conditionals import cond_p
from .loops import _select_prefix, while_p
from .scan import scan_p
from ..reductions import reduce_or
from ..structural import concatenate_p


def _subgraph(closed: ClosedJaxpr, avals: Sequence[core.ShapedArray]) -> tuple[list, list]:
    """The output nodes of `closed` on placeholder inputs 0..len(avals)-1, and its effects."""
    with collect_effects() as effects:
        outs = lower_jaxpr(closed.jaxpr, [const_node(c) for c in closed.consts], input_nodes(avals))
    return outs, effects


def _call(kind: str, subs: list[tuple[list, list]], params: dict, srcs: Sequence, out_types: list) -> list:
    call = Call(kind, [o for o, _ in subs], params, kind, [e for _, e in subs])
    outs = graph.call(call, srcs, out_types)
    if any(e for _, e in subs):  # a loop that prints: it runs although nothing reads it
        record_effect(call.node)
    return outs


def _types(avals: Sequence[core.ShapedArray]) -> list[tuple]:
    return [(a.shape, a.dtype) for a in avals]


def _nbytes(a: core.ShapedArray) -> int:
    return a.size * a.dtype.itemsize


# ---------------------------------------------------------------- cond
def _lower_cond(index, *ops, branches):
    if index.op == "const":  # a static branch: inline it
        b = branches[min(max(int(index.arg), 0), len(branches) - 1)]
        return lower_jaxpr(b.jaxpr, [const_node(c) for c in b.consts], list(ops))
    avals = branches[0].in_avals
    return _call("cond", [_subgraph(b, avals) for b in branches], {"index_dtype": index.dtype},
                 (index, *ops), _types(branches[0].out_avals))


# ---------------------------------------------------------------- while
def _while_programs(cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts) -> tuple[list, list]:
    """The predicate program (cond_consts + carry -> bool scalar) and the body program
    (cond_consts + body_consts + carry -> carry)."""
    c_avals = cond_jaxpr.in_avals
    b_avals = body_jaxpr.in_avals
    carry_avals = b_avals[body_nconsts:]
    all_avals = [*c_avals[:cond_nconsts], *b_avals]
    if cond_jaxpr.out_avals[0].ndim == 0:
        pred = _subgraph(cond_jaxpr, c_avals)
        with collect_effects() as effects:
            body = lower_jaxpr(body_jaxpr.jaxpr, [const_node(c) for c in body_jaxpr.consts],
                               input_nodes(all_avals)[cond_nconsts:])
        return pred, (body, effects)

    def any_pred(*args):
        (p,) = eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *args)
        return [reduce_or(p, tuple(range(core.get_aval(p).ndim)))]

    def select_body(*args):
        cc, bc, carry = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts], \
            args[cond_nconsts + body_nconsts:]
        (p,) = eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *cc, *carry)
        new = eval_jaxpr(body_jaxpr.jaxpr, body_jaxpr.consts, *bc, *carry)
        return [_select_prefix(p, n, o) for n, o in zip(new, carry)]
    pred = _subgraph(trace_to_closed_jaxpr(any_pred, c_avals), c_avals)
    body = _subgraph(trace_to_closed_jaxpr(select_body, all_avals), all_avals)
    return pred, body


def _lower_while(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    pred, body = _while_programs(cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts)
    carry_avals = body_jaxpr.in_avals[body_nconsts:]
    params = {"cond_nconsts": cond_nconsts, "body_nconsts": body_nconsts, "pred_dtype": dtypes.bool_,
              "carry_nbytes": [_nbytes(a) for a in carry_avals]}
    return _call("while", [pred, body], params, args, _types(carry_avals))


# ---------------------------------------------------------------- scan
def _lower_scan(*args, jaxpr, num_consts, num_carry, length, reverse, unroll, linear):
    consts, init, xs = C.split_list(list(args), [num_consts, num_carry])
    x_avals = jaxpr.in_avals[num_consts + num_carry:]
    y_avals = jaxpr.out_avals[num_carry:]
    if unroll is True or (not isinstance(unroll, bool) and unroll >= max(length, 1)):
        return _unrolled(jaxpr, consts, init, xs, length, reverse, num_carry, y_avals)
    params = {"num_consts": num_consts, "num_carry": num_carry, "length": length, "reverse": reverse,
              "x_nbytes": [_nbytes(a) for a in x_avals], "y_nbytes": [_nbytes(a) for a in y_avals],
              "carry_nbytes": [_nbytes(a) for a in jaxpr.out_avals[:num_carry]]}
    out_types = _types(jaxpr.out_avals[:num_carry]) + [((length, *a.shape), a.dtype) for a in y_avals]
    return _call("scan", [_subgraph(jaxpr, jaxpr.in_avals)], params, args, out_types)


def _unrolled(jaxpr, consts, carry, xs, length, reverse, num_carry, y_avals) -> list:
    """The body inlined once per step: one graph, fused across iterations."""
    c_nodes = [const_node(c) for c in jaxpr.consts]
    ys: list[list] = [[] for _ in y_avals]
    for t in range(length):
        i = length - 1 - t if reverse else t
        x_t = [x.shrink([(i, i + 1)] + [(0, n) for n in x.shape[1:]]).reshape(x.shape[1:]) for x in xs]
        out = lower_jaxpr(jaxpr.jaxpr, c_nodes, [*consts, *carry, *x_t])
        carry = out[:num_carry]
        for acc, y in zip(ys, out[num_carry:]):
            acc.append(y)
    stacked = []
    for acc, a in zip(ys, y_avals):
        if reverse:
            acc.reverse()
        parts = [y.reshape((1, *a.shape)) for y in acc]
        stacked.append(_stack_nodes(parts, (length, *a.shape), a.dtype))
    return [*carry, *stacked]


def _stack_nodes(parts: list, shape: tuple, dtype: Any) -> Any:
    if not parts:
        return graph.const(0, dtype, shape)
    if len(parts) == 1:
        return parts[0]
    return lowering_rules[concatenate_p](*parts, dimension=0)


lowering_rules[cond_p] = _lower_cond
lowering_rules[while_p] = _lower_while
lowering_rules[scan_p] = _lower_scan


# ---------------------------------------------------------------- eager: one-equation jaxprs, compiled
_ANCHOR = {cond_p: lambda p: p["branches"][0], while_p: lambda p: p["body_jaxpr"], scan_p: lambda p: p["jaxpr"]}


for _p in (cond_p, while_p, scan_p):  # eager: the one-equation jaxpr, cached while its body lives
    core.impl_rules[_p] = one_equation_impl(_p, _ANCHOR[_p])
