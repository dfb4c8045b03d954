"""`lax.cond` and `lax.switch`: the `cond` primitive and its rules.

`cond_p` binds `(index, *operands)` with `branches`, a tuple of ClosedJaxprs of
one signature; it runs `branches[index]` (the index clamped). Every branch is
traced, so both must agree in output types. The rules transform all branches
alike: JVP adds the union of the branches' nonzero tangents; partial evaluation
runs the known part of the chosen branch now and stages the rest, joining the
branches' residuals into one list; transposition transposes each branch; and
batching either batches each branch (shared index) or, for a batched index, runs
every branch and selects per element (`select_n`), as JAX does.
"""
from __future__ import annotations

__all__ = ["cond", "switch", "cond_p"]

from typing import Any, Callable, Sequence

from ... import core, dtypes
from ...interpreters import ad, partial_eval as pe, rules as R
from ...interpreters.batching import bdim_at_front, current_axis_name, moveaxis
from ...jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, jaxpr_as_fun
from ...tree_util import tree_flatten, tree_unflatten, keystr, tree_flatten_with_path
from . import common as C
from ..structural import broadcast_in_dim, full
from ..ad_util import stop_gradient
from ..elementwise import eq, select_n, clamp, convert_element_type, ne

cond_p = core.Primitive("cond")
cond_p.multiple_results = True


# ---------------------------------------------------------------- the primitive
@core.def_abstract_eval(cond_p)
def _cond_abstract(index, *ops, branches):
    if index.shape != () or index.dtype.kind not in "iu":
        raise TypeError(f"cond index must be an integer scalar, got {C.type_str(index)}")
    for b in branches:
        if len(b.in_avals) != len(ops):
            raise TypeError(f"cond branch takes {len(b.in_avals)} operands, got {len(ops)}")
    return list(branches[0].out_avals)


# ---------------------------------------------------------------- jvp
def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    nz = [not C.is_zero(t) for t in tangents[1:]]
    n_out = len(branches[0].out_avals)
    out_nz = [False] * n_out
    for b in branches:
        out_nz = [a or b_ for a, b_ in zip(out_nz, C.jvp_jaxpr(b, nz, [False] * n_out)[1])]
    jvps = tuple(C.jvp_jaxpr(b, nz, out_nz)[0] for b in branches)
    dots = [t for t, z in zip(tangents[1:], nz) if z]
    outs = cond_p.bind(index, *ops, *dots, branches=jvps)
    primals_out, t_nz = outs[:n_out], iter(outs[n_out:])
    return primals_out, [next(t_nz) if z else R.Zero(C.tangent_aval(core.get_aval(p)))
                         for p, z in zip(primals_out, out_nz)]


# ---------------------------------------------------------------- partial evaluation
def _merge_residuals(per_branch: Sequence[Sequence[core.ShapedArray]]) -> tuple[list, list[list[int]]]:
    """One residual list for all branches: slots are shared between branches by type,
    so a residual costs one slot, not one per branch. Returns the slot avals and, per
    branch, the slot of each of its residuals."""
    slots: list[core.ShapedArray] = []
    where: list[list[int]] = []
    for avals in per_branch:
        taken: set[int] = set()
        mine = []
        for a in avals:
            k = next((i for i, s in enumerate(slots) if i not in taken and C.typematch(s, a)), None)
            if k is None:
                slots.append(a)
                k = len(slots) - 1
            taken.add(k)
            mine.append(k)
        where.append(mine)
    return slots, where


def _join_known(known: ClosedJaxpr, n_outs: int, slots: list, mine: list[int]) -> ClosedJaxpr:
    """A known branch returning its outputs and every residual slot (zeros where unused)."""

    def fun(*args):
        outs = jaxpr_as_fun(known)(*args)
        res = [full(a.shape, 0, a.dtype) for a in slots]
        for k, r in zip(mine, outs[n_outs:]):
            res[k] = r
        return [*outs[:n_outs], *res]
    return C.trace_flat(fun, known.in_avals)


def _join_unknown(unknown: ClosedJaxpr, n_res: int, slots: list, mine: list[int]) -> ClosedJaxpr:
    """An unknown branch taking every residual slot, reading only its own."""
    j = unknown.jaxpr
    ins = [Var(a) for a in slots]
    for k, v in zip(mine, j.invars[:n_res]):
        ins[k] = v
    return ClosedJaxpr(Jaxpr(j.constvars, ins + j.invars[n_res:], j.outvars, j.eqns), unknown.consts)


def split_cond(branches: Sequence[ClosedJaxpr], ops_uk: Sequence[bool]) -> tuple:
    """Known branches (known operands -> known outputs + residual slots), unknown
    branches (slots + unknown operands -> unknown outputs), output unknowns, slot avals."""
    n_out = len(branches[0].out_avals)
    out_uk = [False] * n_out
    for b in branches:
        out_uk = [a or u for a, u in zip(out_uk, C.partial_eval_jaxpr_nounits(b, ops_uk, [False] * n_out)[2])]
    parts = [C.partial_eval_jaxpr_nounits(b, ops_uk, out_uk) for b in branches]
    slots, where = _merge_residuals([p[3] for p in parts])
    n_known = n_out - sum(out_uk)
    known = tuple(_join_known(p[0], n_known, slots, w) for p, w in zip(parts, where))
    unknown = tuple(_join_unknown(p[1], len(p[3]), slots, w) for p, w in zip(parts, where))
    return known, unknown, out_uk, slots


def _cond_partial_eval(trace, tracers, *, branches):
    if not tracers[0].pval.is_known:  # an unknown index stages the whole cond
        return trace.stage(cond_p, tracers, dict(branches=branches))
    ops_uk = [not t.pval.is_known for t in tracers[1:]]
    known, unknown, out_uk, slots = split_cond(branches, ops_uk)
    outs = cond_p.bind(*C.known_vals(tracers), branches=known)
    n_known = len(outs) - len(slots)
    res = [trace.lift(r) for r in outs[n_known:]]
    staged = trace.stage(cond_p, [tracers[0], *res, *[t for t, u in zip(tracers[1:], ops_uk) if u]],
                         dict(branches=unknown))
    return C.merge_lists(out_uk, [trace.lift(o) for o in outs[:n_known]], staged)


def _cond_partial_eval_jaxpr(eqn: JaxprEqn, unks: Sequence[bool]) -> tuple:
    if unks[0]:
        return None, eqn, [True] * len(eqn.outvars)
    ops_uk = list(unks[1:])
    known, unknown, out_uk, slots = split_cond(eqn.params["branches"], ops_uk)
    res = [Var(a) for a in slots]
    ops = eqn.invars[1:]
    known_eqn = JaxprEqn(cond_p, [eqn.invars[0], *[v for v, u in zip(ops, ops_uk) if not u]],
                         dict(branches=known), [v for v, u in zip(eqn.outvars, out_uk) if not u] + res)
    unknown_eqn = JaxprEqn(cond_p, [eqn.invars[0], *res, *[v for v, u in zip(ops, ops_uk) if u]],
                           dict(branches=unknown), [v for v, u in zip(eqn.outvars, out_uk) if u])
    return known_eqn, unknown_eqn, out_uk


# ---------------------------------------------------------------- transpose
def _transpose_branch(b: ClosedJaxpr, lin: Sequence[bool], res_avals: list, ct_avals: list) -> ClosedJaxpr:
    """A branch mapping (residual operands, output cotangents) to the linear operands'
    cotangents."""
    n_res = len(res_avals)

    def fun(*args):
        res, cts = iter(args[:n_res]), args[n_res:]
        full = [R.UndefinedPrimal(a) if l else next(res) for a, l in zip(b.in_avals, lin)]
        out = ad.backward_pass(b.jaxpr, b.consts, full, list(cts))
        return [R.instantiate_zeros(R.Zero(C.tangent_aval(a)) if isinstance(c, R.Zero) else c)
                for c, a, l in zip(out, b.in_avals, lin) if l]
    return C.trace_flat(fun, [*res_avals, *ct_avals])


def _cond_transpose(cts, index, *ops, branches):
    lin = [R.is_undefined_primal(x) for x in ops]
    res = [x for x, l in zip(ops, lin) if not l]
    cts = [R.instantiate_zeros(c) for c in cts]
    res_avals, ct_avals = [core.get_aval(r) for r in res], [core.get_aval(c) for c in cts]
    trans = tuple(_transpose_branch(b, lin, res_avals, ct_avals) for b in branches)
    outs = cond_p.bind(index, *res, *cts, branches=trans)
    return [None, *C.merge_lists(lin, [None] * len(res), outs)]


# ---------------------------------------------------------------- batching
def _bcast_to(pred: Any, shape: tuple) -> Any:
    nd = core.get_aval(pred).ndim
    return pred if len(shape) == nd else broadcast_in_dim(pred, shape, tuple(range(nd)))


def _cond_batch(args, dims, *, branches):
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    axis_name = current_axis_name()
    index, *ops = args
    if dims[0] is not None:
        return _select_batch(index, dims[0], ops, dims[1:], branches, size, axis_name)
    op_dims = [None if d is None else 0 for d in dims[1:]]
    ops = [x if d is None else moveaxis(x, d, 0) for x, d in zip(ops, dims[1:])]
    n_out = len(branches[0].out_avals)
    out_bat = [False] * n_out
    for b in branches:
        got = C.batch_jaxpr(b, size, axis_name, op_dims, [None] * n_out)[1]
        out_bat = [x or y for x, y in zip(out_bat, got)]
    want = [0 if bat else None for bat in out_bat]
    batched = tuple(C.batch_jaxpr(b, size, axis_name, op_dims, want)[0] for b in branches)
    return cond_p.bind(index, *ops, branches=batched), want


def _select_batch(index, idim, ops, op_dims, branches, size, axis_name):
    """A batched index: every branch runs on the whole batch and `select_n` picks each
    example's result (so the cond becomes a select, as in JAX)."""
    index = bdim_at_front(index, idim, size)
    ops = [bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
    n_out = len(branches[0].out_avals)
    outs_per_branch = []
    for i, b in enumerate(branches):
        jb = C.batch_jaxpr(b, size, axis_name, [0] * len(ops), [0] * n_out)[0]
        pred = eq(index, full((), i, core.get_aval(index).dtype))
        # the unchosen examples see a constant operand, so reverse mode sends them no
        # cotangent through this branch (JAX's guard for #1052)
        ops_i = [select_n(_bcast_to(pred, core.get_aval(x).shape), stop_gradient(x), x) for x in ops]
        outs_per_branch.append(jaxpr_as_fun(jb)(*ops_i))
    outs = [select_n(_bcast_to(index, core.get_aval(outs[0]).shape), *outs)
            for outs in zip(*outs_per_branch)] if n_out else []
    return outs, [0] * n_out


R.primitive_jvps[cond_p] = _cond_jvp
R.primitive_transposes[cond_p] = _cond_transpose
R.primitive_batchers[cond_p] = _cond_batch
pe.custom_partial_eval_rules[cond_p] = _cond_partial_eval
pe.partial_eval_jaxpr_rules[cond_p] = _cond_partial_eval_jaxpr


# ---------------------------------------------------------------- user-facing functions
def _check_branch_outputs(api: str, name1: str, name2: str, f1: Callable, f2: Callable,
                          tree1: Any, avals1: Sequence, tree2: Any, avals2: Sequence) -> None:
    """JAX's TypeErrors for branches whose outputs differ in structure or type."""
    info = f"{name1} is {C.fun_sourceinfo(f1)}\n{name2} is {C.fun_sourceinfo(f2)}\n\n"
    outs1 = tree_unflatten(tree1, list(avals1))
    if tree1 != tree2:
        outs2 = tree_unflatten(tree2, list(avals2))
        comp = (lambda p: f" at path {keystr(p)}" if p else "")
        diffs = [f"{name1} output{comp(p)} is {t1} but {name2} output{comp(p)} is {t2}, so {why}"
                 for p, t1, t2, why in C.tree_differences(outs1, outs2)] or \
                [f"{name1} output has structure {tree1} but {name2} output has structure {tree2}"]
        text = f"{diffs[0]}.\n" if len(diffs) == 1 else \
            "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"
        raise TypeError(f"{api} branch outputs must have the same pytree structure, but they differ:\n\n"
                        f"{info}{text}\nRevise {name1} and/or {name2} so that they have the same "
                        "pytree structure.")
    if all(C.typematch(a, b) for a, b in zip(avals1, avals2)):
        return
    paths = [p for p, _ in tree_flatten_with_path(outs1, is_leaf=lambda x: isinstance(x, core.ShapedArray))[0]]
    comp = (lambda p: f" at path {keystr(p)}" if p else "")
    diffs = [f"the output of {name1}{comp(p)} has type {C.type_str(a)} but the corresponding output "
             f"of {name2} has type {C.type_str(b)}{C.mismatch_extra(a, b)}"
             for p, a, b in zip(paths, avals1, avals2) if not C.typematch(a, b)]
    text = f"{C.capitalize(diffs[0])}.\n" if len(diffs) == 1 else \
        "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"
    raise TypeError(f"{api} branches must have equal output types but they differ.\n\n{info}{text}\n"
                    f"Revise {name1} and/or {name2} so that all output types match.")


def _trace_branches(api: str, names: Sequence[str], funs: Sequence[Callable], operands: tuple
                    ) -> tuple[tuple[ClosedJaxpr, ...], list, Any, list]:
    """Every branch traced at the operands' types; their captured values joined into one
    list of leading operands (each branch ignores the others')."""
    flat, in_tree = tree_flatten(operands)
    avals = C.flat_avals(flat)
    traced = [C.trace_jaxpr(f, in_tree, avals) for f in funs]
    for i in range(1, len(traced)):
        _check_branch_outputs(api, names[0], names[i], funs[0], funs[i], traced[0][2],
                              traced[0][0].out_avals, traced[i][2], traced[i][0].out_avals)
    consts = [c for _, cs, _ in traced for c in cs]
    const_avals = [core.get_aval(c) for c in consts]
    jaxprs, start = [], 0
    for closed, cs, _ in traced:
        # consts of the other branches become unused leading inputs
        before, after = const_avals[:start], const_avals[start + len(cs):]
        j = C.add_invars(closed, before, at=0)
        j = C.add_invars(j, after, at=len(before) + len(cs))
        jaxprs.append(j)
        start += len(cs)
    return tuple(jaxprs), consts, traced[0][2], flat


_NO_OPERAND = object()  # `operand=` given by keyword (an old calling convention), or not


def _scalar_shape(x: Any) -> tuple:
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else ()


def switch(index: Any, branches: Sequence[Callable], *operands: Any, operand: Any = _NO_OPERAND) -> Any:
    """`lax.switch`: apply `branches[index](*operands)`, the index clamped into range."""
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                            f"passed, got operand={operand} and positional operands {operands}")
        operands = (operand,)
    if _scalar_shape(index) != ():
        raise TypeError(f"Branch index must be scalar, got {index} of shape {_scalar_shape(index)}.")
    try:
        idx_dtype = dtypes.result_type(index)
    except (TypeError, ValueError) as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if idx_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {idx_dtype.name}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = convert_element_type(index, dtypes.int32)
    index = clamp(full((), 0, dtypes.int32), index, full((), len(branches) - 1, dtypes.int32))
    if C.jit_disabled() and C.is_concrete(index):
        return branches[int(index)](*operands)
    names = [f"branch {i}" if i == 0 else f"branch{i}" for i in range(len(branches))]
    return _bind_cond("switch", names, branches, index, operands)


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any, operand: Any = _NO_OPERAND) -> Any:
    """`lax.cond`: `true_fun(*operands)` if `pred` else `false_fun(*operands)`; both traced."""
    if not (callable(true_fun) and callable(false_fun)):
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):  # old calling convention
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                            f"passed, got operand={operand} and positional operands {operands}")
        operands = (operand,)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, (list, tuple, str)):
        raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}")
    if _scalar_shape(pred) != ():
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {_scalar_shape(pred)}.")
    try:
        pred_dtype = dtypes.result_type(pred)
    except (TypeError, ValueError) as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind != "b":
        if pred_dtype.kind not in "iuf":
            raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype.name}.")
        pred = ne(C.as_operand(pred), full((), 0, pred_dtype))
    if C.jit_disabled() and C.is_concrete(pred):
        return true_fun(*operands) if bool(pred) else false_fun(*operands)
    index = convert_element_type(pred, dtypes.int32)
    return _bind_cond("cond", ["true_fun", "false_fun"], (true_fun, false_fun), index, operands, reverse=True)


def _bind_cond(api: str, names: Sequence[str], funs: Sequence[Callable], index: Any, operands: tuple,
               reverse: bool = False) -> Any:
    """Trace and check the branches in the order given (how JAX words its errors), and bind
    cond_p with them (reversed for `cond`, whose branch 0 is false_fun)."""
    jaxprs, consts, out_tree, flat = _trace_branches(api, names, funs, operands)
    jaxprs = jaxprs[::-1] if reverse else jaxprs
    # an output every branch passes through from the same operand is that operand (as JAX)
    fwds = [C.forwarding(j.jaxpr) for j in jaxprs]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)] if fwds[0] else []
    if any(f is not None for f in in_fwd):
        keep = [f is None for f in in_fwd]
        jaxprs = tuple(C.select_binders(j, range(len(j.in_avals)), keep) for j in jaxprs)
    outs = iter(cond_p.bind(index, *consts, *flat, branches=jaxprs))
    inputs = [*consts, *flat]
    return tree_unflatten(out_tree, [next(outs) if f is None else C.as_operand(inputs[f]) for f in in_fwd])
