"""`lax.scan` and `lax.map`: the `scan` primitive and its rules.

`scan_p` binds `(*consts, *init, *xs)` with `jaxpr` (a ClosedJaxpr from
`(consts, carry, x) -> (carry, y)`), `num_consts`, `num_carry`, `length`,
`reverse`, `unroll` and `linear` (which operands are linear, kept for JAX's
layout). Outputs are the final carries and the ys stacked along a new axis 0.

Rules: JVP scans the JVP of the body, with a fixpoint over which carries get
tangents. Partial evaluation splits the body into a known scan, which also emits
the residuals the unknown part needs (one per iteration, stacked, unless the
residual is a loop-invariant operand or one of the scanned xs, which are passed
through), and an unknown scan over them. Transposition is a scan in the opposite
direction whose carry holds the cotangents of the carries and of the linear
consts, and whose xs are the stacked residuals and the ys' cotangents.
Batching batches the body with a fixpoint over batched carries; scanned operands
keep their batch axis at 1 (axis 0 is the scan's).
"""
from __future__ import annotations

__all__ = ["scan", "map", "scan_p"]

import builtins
from typing import Any, Callable, NamedTuple, Sequence

from ... import core
from ...interpreters import ad, partial_eval as pe, rules as R
from ...api_util import OutStore, flatten_fun_nokwargs
from ...interpreters.batching import bdim_at_front, current_axis_name, moveaxis, vmap_flat
from ...jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from ...tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten
from . import common as C
from ..structural import full, broadcast_in_dim, concatenate, index_in_dim, reshape, slice_in_dim

scan_p = core.Primitive("scan")
scan_p.multiple_results = True


def _stacked(a: core.ShapedArray, length: int) -> core.ShapedArray:
    return a.update(shape=(length, *a.shape))


def _unstacked(a: core.ShapedArray) -> core.ShapedArray:
    return a.update(shape=a.shape[1:])


# ---------------------------------------------------------------- the primitive
@core.def_abstract_eval(scan_p)
def _scan_abstract(*avals, jaxpr, num_consts, num_carry, length, reverse, unroll, linear):
    if len(avals) != len(jaxpr.in_avals):
        raise TypeError(f"scan takes {len(jaxpr.in_avals)} operands, got {len(avals)}")
    outs = jaxpr.out_avals
    return [*outs[:num_carry], *[_stacked(a, length) for a in outs[num_carry:]]]


def _stack(vals: Sequence[Any], aval: core.ShapedArray, length: int) -> Any:
    if not vals:
        return full((length, *aval.shape), 0, aval.dtype)
    nd = aval.ndim
    return concatenate([broadcast_in_dim(C.as_operand(v), (1, *aval.shape), tuple(range(1, nd + 1)))
                        for v in vals], 0)


def _params(jaxpr: ClosedJaxpr, num_consts: int, num_carry: int, like: dict, linear: Sequence[bool]) -> dict:
    return dict(jaxpr=jaxpr, num_consts=num_consts, num_carry=num_carry, length=like["length"],
                reverse=like["reverse"], unroll=like["unroll"], linear=tuple(linear))


# ---------------------------------------------------------------- jvp
def _scan_jvp(primals, tangents, **params):
    jaxpr, nc, nk = params["jaxpr"], params["num_consts"], params["num_carry"]
    nx, ny = len(primals) - nc - nk, len(jaxpr.out_avals) - nk
    const_nz, init_nz, xs_nz = C.split_list([not C.is_zero(t) for t in tangents], [nc, nk])
    carry_nz = init_nz
    for _ in range(1 + nk):
        jvp, out_nz = C.jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * ny)
        if out_nz[:nk] == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, out_nz[:nk])]
    nz = const_nz + carry_nz + xs_nz
    dots = [R.instantiate_zeros(t) for t, z in zip(tangents, nz) if z]
    cd, kd, xd = C.split_list(dots, [sum(const_nz), sum(carry_nz)])
    n_yd = sum(out_nz[nk:])
    jvp = C.permute_jaxpr(jvp, C.groups_order([nc, nk, nx, len(cd), len(kd), len(xd)], [0, 3, 1, 4, 2, 5]),
                          C.groups_order([nk, ny, len(kd), n_yd], [0, 2, 1, 3]))
    lc, lk, lx = C.split_list(params["linear"], [nc, nk])
    consts, init, xs = C.split_list(primals, [nc, nk])
    outs = scan_p.bind(*consts, *cd, *init, *kd, *xs, *xd, **_params(
        jvp, nc + len(cd), nk + len(kd), params,
        [*lc, *[True] * len(cd), *lk, *[True] * len(kd), *lx, *[True] * len(xd)]))
    carry, carry_dot, ys, ys_dot = C.split_list(outs, [nk, len(kd), ny])
    primals_out = carry + ys
    zeros = [R.Zero(C.tangent_aval(core.get_aval(p))) for p, z in zip(primals_out, out_nz) if not z]
    return primals_out, C.merge_lists(out_nz, zeros, carry_dot + ys_dot)


# ---------------------------------------------------------------- partial evaluation
class ScanSplit(NamedTuple):
    """How a scan splits into a known scan and an unknown one.

    `unknowns` are the operands' unknowns after the carry fixpoint; the unknown scan
    takes (intensive residuals, unknown operands, extensive residuals): intensive ones
    are known consts (`int_src`: their positions among the known consts), extensive
    ones either known xs passed through (`("xs", k)`) or the known scan's extra
    stacked outputs (`("out", j)`)."""

    unknowns: list
    out_uk: list
    known: ClosedJaxpr
    unknown: ClosedJaxpr
    n_known_consts: int
    n_known_carry: int
    int_src: list
    ext_src: list
    computed_avals: list


def split_scan(jaxpr: ClosedJaxpr, nc: int, nk: int, unknowns: Sequence[bool]) -> ScanSplit:
    ny = len(jaxpr.out_avals) - nk
    const_uk, carry_uk, xs_uk = C.split_list(list(unknowns), [nc, nk])
    for _ in range(1 + nk):
        known, unknown, out_uk, res_avals = C.partial_eval_jaxpr_nounits(
            jaxpr, const_uk + carry_uk + xs_uk, carry_uk + [False] * ny,
            invariant=[not u for u in const_uk] + [False] * (nk + len(xs_uk)))
        if out_uk[:nk] == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uk[:nk])]
    unknowns = const_uk + carry_uk + xs_uk
    nkc, nkk = nc - sum(const_uk), nk - sum(carry_uk)
    kj, uj = known.jaxpr, unknown.jaxpr
    n_res = len(res_avals)
    n_kout = len(kj.outvars) - n_res
    const_pos = {id(v): k for k, v in enumerate(kj.invars[:nkc])}
    xs_pos = {id(v): k for k, v in enumerate(kj.invars[nkc + nkk:])}
    int_src, int_vars, ext_src, ext_vars, computed = [], [], [], [], []
    for r_known, r_unknown in zip(kj.outvars[n_kout:], uj.invars[:n_res]):
        if id(r_known) in const_pos:
            int_src.append(const_pos[id(r_known)])
            int_vars.append(r_unknown)
        elif id(r_known) in xs_pos:
            ext_src.append(("xs", xs_pos[id(r_known)]))
            ext_vars.append(r_unknown)
        else:
            ext_src.append(("out", len(computed)))
            ext_vars.append(r_unknown)
            computed.append(r_known)
    outs = kj.outvars[:n_kout] + computed
    known = ClosedJaxpr(Jaxpr(kj.constvars, kj.invars, outs, C.live_eqns(kj.eqns, outs)), known.consts)
    unknown = ClosedJaxpr(Jaxpr(uj.constvars, int_vars + uj.invars[n_res:] + ext_vars, uj.outvars, uj.eqns),
                          unknown.consts)
    return ScanSplit(unknowns, out_uk, known, unknown, nkc, nkk, int_src, ext_src,
                     [v.aval for v in computed])


def _split_params(sp: ScanSplit, params: dict) -> tuple[dict, dict]:
    nc, nk = params["num_consts"], params["num_carry"]
    lin = params["linear"]
    known_lin = [l for l, u in zip(lin, sp.unknowns) if not u]
    unk_lin = [l for l, u in zip(lin, sp.unknowns) if u]
    n_unk_consts = sum(sp.unknowns[:nc])
    known = _params(sp.known, sp.n_known_consts, sp.n_known_carry, params, known_lin)
    unknown = _params(sp.unknown, len(sp.int_src) + n_unk_consts, nk - sp.n_known_carry, params,
                      [False] * len(sp.int_src) + unk_lin + [False] * len(sp.ext_src))
    return known, unknown


def _ext_res(sp: ScanSplit, known_xs: Sequence[Any], computed: Sequence[Any]) -> list:
    return [known_xs[k] if kind == "xs" else computed[k] for kind, k in sp.ext_src]


def _scan_partial_eval(trace, tracers, **params):
    nc, nk = params["num_consts"], params["num_carry"]
    sp = split_scan(params["jaxpr"], nc, nk, [not t.pval.is_known for t in tracers])
    p_known, p_unknown = _split_params(sp, params)
    known_tracers = [t for t, u in zip(tracers, sp.unknowns) if not u]
    n_kout = len(sp.known.out_avals) - len(sp.computed_avals)
    outs = scan_p.bind(*[t.pval.const for t in known_tracers], **p_known) if sp.known.out_avals else []
    k_consts, _, k_xs = C.split_list(known_tracers, [sp.n_known_consts, sp.n_known_carry])
    computed = [trace.lift(o) for o in outs[n_kout:]]
    unknown_in = [t for t, u in zip(tracers, sp.unknowns) if u]
    staged = trace.stage(scan_p, [*[k_consts[k] for k in sp.int_src], *unknown_in,
                                  *_ext_res(sp, k_xs, computed)], p_unknown)
    return C.merge_lists(sp.out_uk, [trace.lift(o) for o in outs[:n_kout]], staged)


def _scan_partial_eval_jaxpr(eqn: JaxprEqn, unks: Sequence[bool]) -> tuple:
    params = eqn.params
    sp = split_scan(params["jaxpr"], params["num_consts"], params["num_carry"], unks)
    p_known, p_unknown = _split_params(sp, params)
    length = params["length"]
    computed = [Var(_stacked(a, length)) for a in sp.computed_avals]
    known_in = [v for v, u in zip(eqn.invars, sp.unknowns) if not u]
    known_eqn = None
    if sp.known.out_avals:
        known_eqn = JaxprEqn(scan_p, known_in, p_known,
                             [v for v, u in zip(eqn.outvars, sp.out_uk) if not u] + computed)
    k_consts, _, k_xs = C.split_list(known_in, [sp.n_known_consts, sp.n_known_carry])
    unknown_eqn = JaxprEqn(scan_p, [*[k_consts[k] for k in sp.int_src],
                                    *[v for v, u in zip(eqn.invars, sp.unknowns) if u],
                                    *_ext_res(sp, k_xs, computed)],
                           p_unknown, [v for v, u in zip(eqn.outvars, sp.out_uk) if u])
    return known_eqn, unknown_eqn, sp.out_uk


# ---------------------------------------------------------------- transpose
def _transpose_body(jaxpr: ClosedJaxpr, nc: int, nk: int, c_lin: list, x_lin: list, res_avals: tuple):
    """The reverse scan's body: (residual consts ; cotangent accumulators of the linear
    consts, carry cotangents ; ys cotangents, residual xs) -> (new accumulators, carry
    cotangents one step back ; the linear xs' cotangents)."""
    in_avals = jaxpr.in_avals
    c_avals, k_avals, x_avals = C.split_list(in_avals, [nc, nk])
    n_rc, n_acc = sum(not l for l in c_lin), sum(c_lin)
    ny = len(jaxpr.out_avals) - nk

    def inst(c: Any, a: core.ShapedArray) -> Any:
        return R.instantiate_zeros(R.Zero(C.tangent_aval(a)) if isinstance(c, R.Zero) else c)

    def fun(*args):
        res_c, acc, ct_k, ct_y, res_x = C.split_list(args, [n_rc, n_acc, nk, ny])
        it_c, it_x = iter(res_c), iter(res_x)
        full = [R.UndefinedPrimal(a) if l else next(it_c) for a, l in zip(c_avals, c_lin)] + \
               [R.UndefinedPrimal(a) for a in k_avals] + \
               [R.UndefinedPrimal(a) if l else next(it_x) for a, l in zip(x_avals, x_lin)]
        cts = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, full, [*ct_k, *ct_y])
        ct_c, ct_kin, ct_x = C.split_list(cts, [nc, nk])
        lin_c = [(c, a) for c, a, l in zip(ct_c, c_avals, c_lin) if l]
        new_acc = [ad.add_cotangents(s, inst(c, a)) for s, (c, a) in zip(acc, lin_c)]
        return [*new_acc, *[inst(c, a) for c, a in zip(ct_kin, k_avals)],
                *[inst(c, a) for c, a, l in zip(ct_x, x_avals, x_lin) if l]]
    return C.trace_flat(fun, list(res_avals))


def _scan_transpose(cts, *args, **params):
    jaxpr, nc, nk, length = params["jaxpr"], params["num_consts"], params["num_carry"], params["length"]
    consts, init, xs = C.split_list(args, [nc, nk])
    c_lin = [R.is_undefined_primal(x) for x in consts]
    x_lin = [R.is_undefined_primal(x) for x in xs]
    res_c = [x for x, l in zip(consts, c_lin) if not l]
    res_x = [x for x, l in zip(xs, x_lin) if not l]
    c_avals, k_avals, x_avals = C.split_list(jaxpr.in_avals, [nc, nk])
    acc0 = [full(a.shape, 0, R.tangent_dtype(a.dtype)) for a, l in zip(c_avals, c_lin) if l]
    out_avals = jaxpr.out_avals
    ct_k = [R.instantiate_zeros(R.Zero(C.tangent_aval(a)) if isinstance(c, R.Zero) else c)
            for c, a in zip(cts[:nk], out_avals[:nk])]
    ct_y = [R.instantiate_zeros(R.Zero(C.tangent_aval(_stacked(a, length))) if isinstance(c, R.Zero) else c)
            for c, a in zip(cts[nk:], out_avals[nk:])]
    res_avals = (*[core.get_aval(r) for r in res_c], *[core.get_aval(a) for a in acc0], *k_avals,
                 *[_unstacked(core.get_aval(c)) for c in ct_y], *[_unstacked(core.get_aval(r)) for r in res_x])
    body = _transpose_body(jaxpr, nc, nk, c_lin, x_lin, res_avals)
    n_carry = len(acc0) + nk
    outs = scan_p.bind(*res_c, *acc0, *ct_k, *ct_y, *res_x, **{
        **_params(body, len(res_c), n_carry, params,
                  [False] * len(res_c) + [True] * (n_carry + len(ct_y)) + [False] * len(res_x)),
        "reverse": not params["reverse"]})
    ct_c, ct_init, ct_x = C.split_list(outs, [len(acc0), nk])
    return [*C.merge_lists(c_lin, [None] * len(res_c), ct_c),
            *[c if R.is_undefined_primal(x) else None for x, c in zip(init, ct_init)],
            *C.merge_lists(x_lin, [None] * len(res_x), ct_x)]


# ---------------------------------------------------------------- batching
def _scan_batch(args, dims, **params):
    jaxpr, nc, nk = params["jaxpr"], params["num_consts"], params["num_carry"]
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    axis_name = current_axis_name()
    ny = len(jaxpr.out_avals) - nk
    c_dims, k_dims, x_dims = C.split_list(dims, [nc, nk])
    c_in = [None if d is None else 0 for d in c_dims]
    x_in = [None if d is None else 0 for d in x_dims]  # inside the body a slice has it at 0
    carry_bat = [d is not None for d in k_dims]
    for _ in range(1 + nk):
        k_in = [0 if b else None for b in carry_bat]
        body, out_bat = C.batch_jaxpr(jaxpr, size, axis_name, c_in + k_in + x_in, k_in + [None] * ny)
        if out_bat[:nk] == carry_bat:
            break
        carry_bat = [a or b for a, b in zip(carry_bat, out_bat[:nk])]
    consts, init, xs = C.split_list(args, [nc, nk])
    consts = [x if d is None else moveaxis(x, d, 0) for x, d in zip(consts, c_dims)]
    init = [bdim_at_front(x, d, size) if b else x for x, d, b in zip(init, k_dims, carry_bat)]
    xs = [x if d is None else moveaxis(x, d, 1) for x, d in zip(xs, x_dims)]
    outs = scan_p.bind(*consts, *init, *xs, **{**params, "jaxpr": body})
    return outs, [0 if b else None for b in carry_bat] + [1 if b else None for b in out_bat[nk:]]


R.primitive_jvps[scan_p] = _scan_jvp
R.primitive_transposes[scan_p] = _scan_transpose
R.primitive_batchers[scan_p] = _scan_batch
pe.custom_partial_eval_rules[scan_p] = _scan_partial_eval
pe.partial_eval_jaxpr_rules[scan_p] = _scan_partial_eval_jaxpr


# ---------------------------------------------------------------- user-facing functions
def _infer_length(xs_flat: Sequence[Any], length: Any) -> int:
    """The trip count from the xs' leading axes and `length`, with JAX's errors."""
    no_axis = [x for x in xs_flat if not getattr(x, "shape", ())]
    if no_axis:
        raise ValueError("scan got value with no leading axis to scan over: "
                         f"{', '.join(str(x) for x in no_axis)}.")
    lengths = [int(x.shape[0]) for x in xs_flat]
    if length is not None:
        try:
            length = int(length)
        except core.ConcretizationTypeError:
            raise core.ConcretizationTypeError(
                "Abstract tracer value encountered where concrete value is expected: traced array "
                f"with shape {C.type_str(core.get_aval(length))}\nThe `length` argument to `scan` "
                "expects a concrete `int` value. For scan-like iteration with a dynamic length, use "
                "`while_loop` or `fori_loop`.") from None
        if not all(length == n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with leading "
                             f"axis sizes {lengths}.")
        return length
    if len(set(lengths)) > 1:
        raise ValueError(f"scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in lengths)}.")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _check_unroll(unroll: Any, length: int) -> int:
    unroll = core.concrete_or_error(unroll, "The `unroll` argument to `scan` expects a concrete "
                                    "`int` or `bool` value.")
    if isinstance(unroll, bool):
        return builtins.max(length, 1) if unroll else 1
    unroll = int(unroll)
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return unroll


def _aval_text(a: core.ShapedArray) -> str:
    return ("~" if a.weak_type else "") + C.type_str(a)


def _trace_body(f: Callable, in_tree: Any, carry_avals: list, x_avals: list) -> tuple:
    closed, consts, out_tree = C.trace_jaxpr(f, in_tree, [*carry_avals, *x_avals])
    node = out_tree.node_data()
    children = out_tree.children()
    if node is None or node[0] not in (tuple, list) or len(children) != 2:
        shown = tree_unflatten(out_tree, [_aval_text(a) for a in closed.out_avals])
        raise TypeError(f"scan body output must be a pair, got {shown}.".replace("'", ""))
    return closed, consts, children[0], children[1]


def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False) -> tuple[Any, Any]:
    """`lax.scan`: loop `f(carry, x) -> (carry, y)` over the leading axis of `xs`,
    returning the final carry and the ys stacked (reverse=True walks from the end)."""
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_flatten(init)
    xs_flat, _ = tree_flatten(xs)
    length = _infer_length(xs_flat, length)
    unroll = _check_unroll(unroll, length)
    if C.jit_disabled():
        return _python_scan(f, init, xs_flat, xs, length, reverse)
    in_tree = tree_structure((init, xs))
    init_avals = C.flat_avals(init_flat)
    x_avals = [_unstacked(a) for a in C.flat_avals(xs_flat)]
    closed, consts, carry_tree, ys_tree = _trace_body(f, in_tree, init_avals, x_avals)
    carry_out = closed.out_avals[:carry_tree.num_leaves]
    if carry_tree == init_tree:
        init_flat, changed = C.promote_weak_carry(init_flat, init_avals, carry_out)
        if changed:
            init_avals = C.flat_avals(init_flat)
            closed, consts, carry_tree, ys_tree = _trace_body(f, in_tree, init_avals, x_avals)
            carry_out = closed.out_avals[:carry_tree.num_leaves]
    C.check_carry_type("scan body", f, init_tree, init_avals, carry_tree, carry_out)
    carry, ys = _bind_forwarding(closed, consts, init_flat, xs_flat, length=length, reverse=bool(reverse),
                                 unroll=unroll)
    return tree_unflatten(init_tree, carry), tree_unflatten(ys_tree, ys)


def _bind_forwarding(closed: ClosedJaxpr, consts: list, init: list, xs: list, **params: Any) -> tuple:
    """Bind scan_p, first taking out what the body merely passes through, as JAX does: a
    carry returned unchanged becomes a const (so vmap or AD need not carry it), and a y
    that is one of the xs is that x, not a stacked copy."""
    nc, nk, nx = len(consts), len(init), len(xs)
    fwd = C.forwarding(closed.jaxpr)
    move = [fwd[k] == nc + k for k in range(nk)]
    moved = [C.as_operand(x) for x, m in zip(init, move) if m]
    y_from_x = [f - nc - nk if f is not None and f >= nc + nk else None for f in fwd[nk:]]
    if any(move) or any(f is not None for f in y_from_x):
        order = [nc + k for k in range(nk) if move[k]] + list(range(nc)) + \
            [nc + k for k in range(nk) if not move[k]] + list(range(nc + nk, nc + nk + nx))
        closed = C.select_binders(closed, order, [not m for m in move] + [f is None for f in y_from_x])
        consts = [x for x, m in zip(init, move) if m] + consts
        init = [x for x, m in zip(init, move) if not m]
    nc, nk = len(consts), len(init)
    outs = scan_p.bind(*consts, *init, *xs, jaxpr=closed, num_consts=nc, num_carry=nk,
                       linear=(False,) * (nc + nk + nx), **params)
    carry = C.merge_lists(move, outs[:nk], moved)
    it = iter(outs[nk:])
    ys = [next(it) if f is None else C.as_operand(xs[f]) for f in y_from_x]
    return carry, ys


def _python_scan(f: Callable, init: Any, xs_flat: list, xs: Any, length: int, reverse: bool) -> tuple:
    """`scan` as a Python loop (under disable_jit)."""
    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because the output "
                         "type is unknown.")
    xs_tree = tree_structure(xs)
    carry, ys = init, []
    for k in range(length):
        i = length - 1 - k if reverse else k
        carry, y = f(carry, tree_unflatten(xs_tree, [index_in_dim(x, i, 0, keepdims=False) for x in xs_flat]))
        ys.append(y)
    if reverse:
        ys.reverse()
    leaves = [tree_flatten(y)[0] for y in ys]
    stacked = [_stack(col, core.get_aval(C.as_operand(col[0])), length) for col in zip(*leaves)]
    return carry, tree_unflatten(tree_structure(ys[0]), stacked)


def _vmap_leading(f: Callable, xs: Any) -> Any:
    """`vmap(f)(xs)` over the leading axis of every leaf, with the batching interpreter."""
    leaves, tree = tree_flatten(xs)
    store = OutStore()
    outs = vmap_flat(flatten_fun_nokwargs(f, tree_flatten((xs,))[1], store), [0] * len(leaves),
                     lambda: [0] * store.tree.num_leaves, int(leaves[0].shape[0]), leaves)
    return tree_unflatten(store.tree, outs)


def map(f: Callable, xs: Any, *, batch_size: int | None = None) -> Any:
    """`lax.map`: `f` over the leading axis of `xs`, as a scan (with `batch_size`, a scan
    of vmaps over chunks of that size, plus one vmap over the remainder)."""
    if not callable(f):
        raise TypeError("lax.map: f argument should be a callable.")
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    leaves, tree = tree_flatten(xs)
    if not leaves:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    n = int(leaves[0].shape[0])
    batch_size = int(batch_size)
    num, rem = (0, n) if batch_size == 0 else divmod(n, batch_size)
    done = num * batch_size
    ys = None
    if num:
        chunks = tree_unflatten(tree, [reshape(slice_in_dim(x, 0, done), (num, batch_size, *x.shape[1:]))
                                       for x in leaves])
        ys = scan(lambda _, x: ((), _vmap_leading(f, x)), (), chunks)[1]
        ys = tree_map(lambda y: reshape(y, (done, *y.shape[2:])), ys)
    if rem:
        tail = _vmap_leading(f, tree_unflatten(tree, [slice_in_dim(x, done, n) for x in leaves]))
        ys = tail if ys is None else tree_map(lambda a, b: concatenate([a, b], 0), ys, tail)
    return ys
