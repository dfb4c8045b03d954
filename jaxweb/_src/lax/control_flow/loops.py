"""`lax.while_loop` and `lax.fori_loop`: the `while` primitive and its rules.

`while_p` binds `(*cond_consts, *body_consts, *init)` with `cond_jaxpr`,
`body_jaxpr`, `cond_nconsts` and `body_nconsts`. The predicate is normally a
bool scalar; after vmap with a batched predicate it has a shape that prefixes
every carry's, and the loop then runs while any element is true, each example
keeping its carry once its own predicate is false (as JAX's lowering does).

Rules: JVP carries tangents through the loop (fixpoint over carries). Partial
evaluation computes the known carries with a loop of the known part when the
predicate is known, and stages the whole loop for the unknown ones, so
`linearize` works; reverse mode has no transpose and raises JAX's error (the trip
count is not static). `fori_loop` with concrete bounds is a `scan`, so it is
reverse-differentiable; with traced bounds it is a while loop.
"""
from __future__ import annotations

__all__ = ["while_loop", "fori_loop", "while_p"]

from typing import Any, Callable, Sequence

from ... import core, dtypes
from ...interpreters import partial_eval as pe, rules as R
from ...interpreters.batching import bdim_at_front, current_axis_name, moveaxis
from ...jaxpr import JaxprEqn, Var
from ...tree_util import tree_flatten, tree_structure, tree_unflatten, tree_map
from . import common as C
from ..elementwise import select_n, convert_element_type, lt
from ..structural import broadcast_in_dim
from .scan import scan

while_p = core.Primitive("while")
while_p.multiple_results = True


# ---------------------------------------------------------------- the primitive
@core.def_abstract_eval(while_p)
def _while_abstract(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    n = len(avals) - cond_nconsts - body_nconsts
    if len(cond_jaxpr.in_avals) != cond_nconsts + n or len(body_jaxpr.in_avals) != body_nconsts + n:
        raise TypeError(f"while_loop: cond takes {len(cond_jaxpr.in_avals)} and body "
                        f"{len(body_jaxpr.in_avals)} operands, got {cond_nconsts} + {body_nconsts} "
                        f"consts and {n} carries")
    return list(body_jaxpr.out_avals)


def _select_prefix(pred: Any, new: Any, old: Any) -> Any:
    """`new` where `pred` (whose shape prefixes theirs), else `old`."""
    shape, nd = core.get_aval(old).shape, core.get_aval(pred).ndim
    if len(shape) != nd:
        pred = broadcast_in_dim(pred, shape, tuple(range(nd)))
    return select_n(pred, C.as_operand(old), C.as_operand(new))


# ---------------------------------------------------------------- jvp
def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nz = [not C.is_zero(t) for t in tangents]
    _, bc_nz, init_nz = C.split_list(nz, [cond_nconsts, body_nconsts])
    carry_nz = init_nz
    for _ in range(1 + len(carry_nz)):
        body_jvp, out_nz = C.jvp_jaxpr(body_jaxpr, bc_nz + carry_nz, carry_nz)
        if out_nz == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, out_nz)]
    cconsts, bconsts, init = C.split_list(primals, [cond_nconsts, body_nconsts])
    _, bc_t, init_t = C.split_list(tangents, [cond_nconsts, body_nconsts])
    bc_dot = [t for t, z in zip(bc_t, bc_nz) if z]
    init_dot = [R.instantiate_zeros(t) for t, z in zip(init_t, carry_nz) if z]
    n = len(init)
    body_jvp = C.permute_jaxpr(body_jvp, C.groups_order([body_nconsts, n, len(bc_dot), len(init_dot)],
                                                        [0, 2, 1, 3]), list(range(n + len(init_dot))))
    cond_aug = C.add_invars(cond_jaxpr, [core.get_aval(t) for t in init_dot])
    outs = while_p.bind(*cconsts, *bconsts, *bc_dot, *init, *init_dot, cond_jaxpr=cond_aug,
                        body_jaxpr=body_jvp, cond_nconsts=cond_nconsts,
                        body_nconsts=body_nconsts + len(bc_dot))
    carry, dots = outs[:n], outs[n:]
    zeros = [R.Zero(C.tangent_aval(core.get_aval(c))) for c, z in zip(carry, carry_nz) if not z]
    return carry, C.merge_lists(carry_nz, zeros, dots)


# ---------------------------------------------------------------- partial evaluation
def _split_while(unknowns: Sequence[bool], cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """The known loop (known consts and carries -> known carries) when the predicate
    is known, as (carry unknowns, its params); None when everything must be staged."""
    cc_uk, bc_uk, carry_uk = C.split_list(list(unknowns), [cond_nconsts, body_nconsts])
    for _ in range(1 + len(carry_uk)):
        body_known, _, out_uk, _ = C.partial_eval_jaxpr_nounits(body_jaxpr, bc_uk + carry_uk, carry_uk)
        if out_uk == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uk)]
    cond_known, _, (pred_uk,), _ = C.partial_eval_jaxpr_nounits(cond_jaxpr, cc_uk + carry_uk, [False])
    if pred_uk or all(carry_uk):
        return None
    n_known = len(carry_uk) - sum(carry_uk)
    body_known = C.dce(body_known, [i < n_known for i in range(len(body_known.out_avals))])
    cond_known = C.dce(cond_known, [i == 0 for i in range(len(cond_known.out_avals))])
    params = dict(cond_jaxpr=cond_known, body_jaxpr=body_known,
                  cond_nconsts=cond_nconsts - sum(cc_uk), body_nconsts=body_nconsts - sum(bc_uk))
    return cc_uk + bc_uk + carry_uk, carry_uk, params


def _while_partial_eval(trace, tracers, **params):
    split = _split_while([not t.pval.is_known for t in tracers], **params)
    if split is None:
        return trace.stage(while_p, tracers, params)
    unknowns, carry_uk, known_params = split
    known = while_p.bind(*[t.pval.const for t, u in zip(tracers, unknowns) if not u], **known_params)
    staged = trace.stage(while_p, tracers, params)  # the unknown carries recompute the known part
    return C.merge_lists(carry_uk, [trace.lift(k) for k in known], [s for s, u in zip(staged, carry_uk) if u])


def _while_partial_eval_jaxpr(eqn: JaxprEqn, unks: Sequence[bool]) -> tuple:
    split = _split_while(unks, **eqn.params)
    if split is None:
        return None, eqn, [True] * len(eqn.outvars)
    unknowns, carry_uk, known_params = split
    known_eqn = JaxprEqn(while_p, [v for v, u in zip(eqn.invars, unknowns) if not u], known_params,
                         [v for v, u in zip(eqn.outvars, carry_uk) if not u])
    unknown_eqn = JaxprEqn(while_p, eqn.invars, eqn.params,
                           [v if u else Var(v.aval) for v, u in zip(eqn.outvars, carry_uk)])
    return known_eqn, unknown_eqn, carry_uk


def _while_transpose(*_, **__):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
                     "with dynamic start/stop values. Try using lax.scan, or using fori_loop with "
                     "static start/stop.")


# ---------------------------------------------------------------- batching
def _while_batch(args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    axis_name = current_axis_name()
    cconsts, bconsts, init = C.split_list(args, [cond_nconsts, body_nconsts])
    cc_d, bc_d, init_d = C.split_list(dims, [cond_nconsts, body_nconsts])
    cc_in = [None if d is None else 0 for d in cc_d]
    bc_in = [None if d is None else 0 for d in bc_d]
    cconsts = [x if d is None else moveaxis(x, d, 0) for x, d in zip(cconsts, cc_d)]
    bconsts = [x if d is None else moveaxis(x, d, 0) for x, d in zip(bconsts, bc_d)]
    carry_bat = [d is not None for d in init_d]
    for _ in range(1 + len(carry_bat)):
        k_in = [0 if b else None for b in carry_bat]
        _, out_bat = C.batch_jaxpr(body_jaxpr, size, axis_name, bc_in + k_in, k_in)
        if out_bat == carry_bat:
            break
        carry_bat = [a or b for a, b in zip(carry_bat, out_bat)]
    k_in = [0 if b else None for b in carry_bat]
    (pred_bat,) = C.batch_jaxpr(cond_jaxpr, size, axis_name, cc_in + k_in, [None])[1]
    if pred_bat:  # every example runs until its own predicate fails: batch every carry
        carry_dims = [0] * len(init)
        pred_out = [0]
    else:  # keep the predicate's shape a prefix of every carry's
        rank = cond_jaxpr.out_avals[0].ndim
        carry_dims = [rank if b else None for b in carry_bat]
        pred_out = [None]
    body_b = C.batch_jaxpr(body_jaxpr, size, axis_name, bc_in + carry_dims, carry_dims)[0]
    cond_b = C.batch_jaxpr(cond_jaxpr, size, axis_name, cc_in + carry_dims, pred_out)[0]
    init = [x if nd is None else moveaxis(bdim_at_front(x, d, size), 0, nd)
            for x, d, nd in zip(init, init_d, carry_dims)]
    outs = while_p.bind(*cconsts, *bconsts, *init, cond_jaxpr=cond_b, body_jaxpr=body_b,
                        cond_nconsts=cond_nconsts, body_nconsts=body_nconsts)
    return outs, carry_dims


R.primitive_jvps[while_p] = _while_jvp
R.primitive_transposes[while_p] = _while_transpose
R.primitive_batchers[while_p] = _while_batch
pe.custom_partial_eval_rules[while_p] = _while_partial_eval
pe.partial_eval_jaxpr_rules[while_p] = _while_partial_eval_jaxpr


# ---------------------------------------------------------------- user-facing functions
def _trace_while(cond_fun: Callable, body_fun: Callable, tree: Any, avals: list) -> tuple:
    cond_j, cond_consts, cond_tree = C.trace_jaxpr(cond_fun, tree, avals)
    body_j, body_consts, body_tree = C.trace_jaxpr(body_fun, tree, avals)
    if cond_tree.num_leaves != 1 or cond_tree.children():
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
    pred = cond_j.out_avals[0]
    if pred.shape != () or pred.dtype is not dtypes.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) [{pred!r}].")
    return cond_j, cond_consts, body_j, body_consts, body_tree


def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any) -> Any:
    """`lax.while_loop`: `val = body_fun(val)` while `cond_fun(val)`; both traced once."""
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if C.jit_disabled():
        try:
            return _python_while(cond_fun, body_fun, init_val)
        except core.ConcretizationTypeError:
            pass  # e.g. under vmap: the predicate is not concrete, so stage the loop
    init_flat, init_tree = tree_flatten(init_val)
    tree = tree_structure((init_val,))
    avals = C.flat_avals(init_flat)
    cond_j, cond_consts, body_j, body_consts, body_tree = _trace_while(cond_fun, body_fun, tree, avals)
    if body_tree == init_tree:
        init_flat, changed = C.promote_weak_carry(init_flat, avals, body_j.out_avals)
        if changed:
            avals = C.flat_avals(init_flat)
            cond_j, cond_consts, body_j, body_consts, body_tree = _trace_while(cond_fun, body_fun, tree, avals)
    C.check_carry_type("while_loop body", body_fun, init_tree, avals, body_tree, body_j.out_avals)
    # a carry the body returns unchanged and cond_fun ignores is a body const (as JAX does:
    # then a batched predicate need not batch it)
    ncc, nbc, n = len(cond_consts), len(body_consts), len(init_flat)
    fwd, cond_uses = C.forwarding(body_j.jaxpr), C.used_inputs(cond_j.jaxpr)[ncc:]
    move = [fwd[k] == nbc + k and not cond_uses[k] for k in range(n)]
    moved = [C.as_operand(x) for x, m in zip(init_flat, move) if m]
    if any(move):
        cond_j = C.select_binders(cond_j, [*range(ncc), *[ncc + k for k in range(n) if not move[k]]], [True])
        body_j = C.select_binders(body_j, [*[nbc + k for k in range(n) if move[k]], *range(nbc),
                                           *[nbc + k for k in range(n) if not move[k]]], [not m for m in move])
        body_consts = moved + body_consts
        init_flat = [x for x, m in zip(init_flat, move) if not m]
    outs = while_p.bind(*cond_consts, *body_consts, *init_flat, cond_jaxpr=cond_j, body_jaxpr=body_j,
                        cond_nconsts=ncc, body_nconsts=len(body_consts))
    return tree_unflatten(init_tree, C.merge_lists(move, outs, moved))


def _python_while(cond_fun: Callable, body_fun: Callable, val: Any) -> Any:
    val = tree_map(C.as_operand, val)
    while cond_fun(val):
        val = tree_map(C.as_operand, body_fun(val))
    return val


def _bound_dtype(lower: Any, upper: Any) -> Any:
    """The loop index dtype, with JAX's special case for one weakly typed bound."""
    lo, hi = core.get_aval(lower), core.get_aval(upper)
    if lo.dtype == hi.dtype:
        return lo.dtype
    if lo.dtype.kind == "i" and hi.dtype.kind == "i" and lo.weak_type != hi.weak_type:
        return hi.dtype if lo.weak_type else lo.dtype
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{lo.dtype.name} and {hi.dtype.name}")


def _concrete_int(x: Any) -> int | None:
    if isinstance(x, core.Tracer) and x.to_concrete_value() is None:
        return None
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any, *,
              unroll: int | bool | None = None) -> Any:
    """`lax.fori_loop`: `val = body_fun(i, val)` for i in [lower, upper). Concrete bounds
    make it a `scan` (reverse-differentiable); traced bounds a `while_loop`."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    dtype = _bound_dtype(lower, upper)
    lo, hi = _concrete_int(lower), _concrete_int(upper)
    if lo is not None and hi is not None:

        if C.jit_disabled() and hi <= lo:
            return init_val

        def scan_body(loop_carry, _):
            i, x = loop_carry
            return (i + 1, body_fun(i, x)), None
        (_, result), _ = scan(scan_body, (lo, init_val), None, length=max(hi - lo, 0),
                              unroll=1 if unroll is None else unroll)
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically known.")
    lower, upper = (b if core.get_aval(b).dtype == dtype else convert_element_type(b, dtype)
                    for b in (lower, upper))

    def while_body(carry):
        i, hi_, x = carry
        return i + 1, hi_, body_fun(i, x)
    _, _, result = while_loop(lambda c: lt(c[0], c[1]), while_body, (lower, upper, init_val))
    return result
