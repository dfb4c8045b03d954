"""What every control-flow primitive shares: tracing user functions into jaxprs
whose captured constants are explicit operands, JAX's type checks (with its
messages), and the jaxpr-to-jaxpr transformations that the rules apply to branch
and loop bodies.

A body is a ClosedJaxpr. The user-facing functions hoist a body's captured
values into leading operands (`num_consts`, `cond_nconsts`, ...) so that a body
closing over a traced value works under every transformation; jaxprs that the
rules build by re-tracing may keep concrete constants in their ClosedJaxpr.

The transformations (`jvp_jaxpr`, `batch_jaxpr`, `partial_eval_jaxpr_nounits`)
mirror JAX's of the same names: each turns a body into a body, with a flag per
input/output saying which values carry tangents, batch axes, or are unknown. The
rules run them to a fixpoint over loop carries.
"""
from __future__ import annotations

import inspect
import weakref
from typing import Any, Callable, Sequence

from ... import core, dtypes
from ...api_util import OutStore, flatten_fun_nokwargs
from ...interpreters import ad, partial_eval as pe, rules as R
from ...interpreters.batching import _vmap_trace, bdim_at_front, moveaxis
from ...jaxpr import (ClosedJaxpr, Jaxpr, Literal, Var, convert_constvars_jaxpr, jaxpr_as_fun,
                      trace_to_closed_jaxpr)
from ...tree_util import PyTreeDef, tree_unflatten, DictKey, SequenceKey, keystr, tree_flatten_with_path
from ...config import read
from ..elementwise import convert_element_type

Aval = core.ShapedArray


# ---------------------------------------------------------------- small helpers
def split_list(xs: Sequence[Any], sizes: Sequence[int]) -> list[list]:
    """`xs` cut into consecutive pieces of the given sizes, plus the rest."""
    out, start = [], 0
    for n in sizes:
        out.append(list(xs[start:start + n]))
        start += n
    out.append(list(xs[start:]))
    return out


def merge_lists(which: Sequence[bool], falses: Sequence[Any], trues: Sequence[Any]) -> list:
    """Interleave two lists back: position i takes the next of `trues` where which[i]."""
    it_f, it_t = iter(falses), iter(trues)
    return [next(it_t) if w else next(it_f) for w in which]


def typematch(a: Aval, b: Aval) -> bool:
    """Same shape and dtype (weak types are ignored, as in JAX)."""
    return a.shape == b.shape and a.dtype == b.dtype


def type_str(a: Aval) -> str:
    """An aval as JAX's messages print it: `float32[3]`."""
    return a.str_short(short_dtypes=False)


def mismatch_extra(a: Aval, b: Aval) -> str:
    """JAX's ', so the dtypes do not match' (or shapes, or both) suffix."""
    what = [w for w, bad in (("the dtypes do not match", a.dtype != b.dtype),
                             ("the shapes do not match", a.shape != b.shape)) if bad]
    return ", so " + ", and ".join(what) if what else ""


def capitalize(s: str) -> str:
    return s[:1].upper() + s[1:]


def fun_sourceinfo(fun: Callable) -> str:
    """`name at file:line`, how JAX names a user function in its messages."""
    while hasattr(fun, "func"):  # functools.partial
        fun = fun.func
    name = getattr(fun, "__name__", type(fun).__name__)
    code = getattr(fun, "__code__", None)
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code else str(name)


def tangent_aval(a: Aval) -> Aval:
    return a.update(dtype=R.tangent_dtype(a.dtype))


def is_zero(t: Any) -> bool:
    """A symbolic zero tangent, or a float0 one (integer inputs): no derivative flows."""
    return isinstance(t, R.Zero) or core.get_aval(t).dtype is dtypes.float0


def is_concrete(x: Any) -> bool:
    """Whether Python can read `x` now (not traced, or traced over a known value)."""
    return not isinstance(x, core.Tracer) or x.to_concrete_value() is not None


def jit_disabled() -> bool:
    """Under `jax.disable_jit()` control flow runs as plain Python where it can, as in JAX."""
    return bool(read("jax_disable_jit"))


def as_operand(x: Any) -> Any:
    """A Python or numpy scalar as an array (jaxpr literals reach impl rules bare)."""
    from ...api_util import as_array
    return as_array(x)


# ---------------------------------------------------------------- tracing user functions
def trace_jaxpr(fun: Callable, in_tree: PyTreeDef, in_avals: Sequence[Aval]
                ) -> tuple[ClosedJaxpr, list, PyTreeDef]:
    """`fun` (taking the pytree `in_tree`) traced at `in_avals`: a closed jaxpr whose
    captured values are leading inputs, those values, and the output tree."""
    store = OutStore()
    closed = trace_to_closed_jaxpr(flatten_fun_nokwargs(fun, in_tree, store), list(in_avals))
    jaxpr, consts = convert_constvars_jaxpr(closed)
    return ClosedJaxpr(jaxpr, []), consts, store.tree


def trace_flat(fun: Callable[..., Sequence[Any]], in_avals: Sequence[Aval]) -> ClosedJaxpr:
    """A flat function (rule-built, closing over nothing traced) as a ClosedJaxpr."""
    return trace_to_closed_jaxpr(fun, list(in_avals))


def flat_avals(leaves: Sequence[Any]) -> list[Aval]:
    from ...api_util import abstractify
    return [abstractify(x) for x in leaves]


# ---------------------------------------------------------------- messages about trees
def tree_differences(a: Any, b: Any, leaf_as_type: bool = False, path: tuple = ()
                     ) -> list[tuple[tuple, str, str, str]]:
    """Where two pytrees (of avals) differ in structure: (path, thing1, thing2, why).
    A leaf reads "a pytree leaf", or its class with `leaf_as_type` (JAX uses both)."""

    def kind(x: Any) -> str:
        return "a pytree leaf" if isinstance(x, Aval) and not leaf_as_type else f"a {type(x)}"

    if isinstance(a, Aval) and isinstance(b, Aval):
        return []
    if type(a) is not type(b):
        return [(path, kind(a), kind(b), "their Python types differ")]
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return [(path, f"a {type(a).__name__} of length {len(a)}",
                     f"a {type(b).__name__} of length {len(b)}", "the lengths do not match")]
        return [d for i, (x, y) in enumerate(zip(a, b))
                for d in tree_differences(x, y, leaf_as_type, path + (SequenceKey(i),))]
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            return [(path, f"a dict with keys {sorted(a)}", f"a dict with keys {sorted(b)}",
                     "the sets of keys do not match")]
        return [d for k in sorted(a) for d in tree_differences(a[k], b[k], leaf_as_type, path + (DictKey(k),))]
    return [(path, kind(a), kind(b), "their node data differ")]


def join_differences(diffs: list[str]) -> str:
    """One difference as a sentence; several as JAX's bullet list."""
    if len(diffs) == 1:
        return f"{capitalize(diffs[0])}.\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def check_carry_type(name: str, body_fun: Callable, in_tree: PyTreeDef, in_avals: Sequence[Aval],
                     out_tree: PyTreeDef, out_avals: Sequence[Aval]) -> None:
    """JAX's TypeError when a loop body's carry output differs from its carry input."""
    try:
        carry_name = list(inspect.signature(body_fun).parameters)[0]
    except (ValueError, TypeError, IndexError):
        carry_name = None

    def component(p: tuple) -> str:
        if carry_name:
            return f"the input carry component {carry_name}{keystr(p)}" if p else f"the input carry {carry_name}"
        return f"the input carry at path {keystr(p)}" if p else "the input carry"

    if in_tree != out_tree:
        ins, outs = tree_unflatten(in_tree, in_avals), tree_unflatten(out_tree, out_avals)
        diffs = [f"{component(p)} is {t1} but the corresponding component of the carry output is {t2}, "
                 f"so {why}" for p, t1, t2, why in tree_differences(ins, outs, leaf_as_type=True)]
        if not diffs:
            diffs = [f"{component(())} has tree structure {in_tree} but the carry output has tree "
                     f"structure {out_tree}, so their structures differ"]
        raise TypeError(f"{name} function carry input and carry output must have the same pytree "
                        f"structure, but they differ:\n\n{join_differences(diffs)}\nRevise the "
                        "function so that the carry output has the same pytree structure as the "
                        "carry input.")
    if all(typematch(a, b) for a, b in zip(in_avals, out_avals)):
        return
    paths = [p for p, _ in tree_flatten_with_path(tree_unflatten(in_tree, list(in_avals)),
                                                    is_leaf=lambda x: isinstance(x, Aval))[0]]
    diffs = [f"{component(p)} has type {type_str(a)} but the corresponding output carry component "
             f"has type {type_str(b)}{mismatch_extra(a, b)}"
             for p, a, b in zip(paths, in_avals, out_avals) if not typematch(a, b)]
    raise TypeError(f"{name} function carry input and carry output must have equal types, but they "
                    f"differ:\n\n{join_differences(diffs)}\nRevise the function so that all output "
                    "types match the corresponding input types.")


def promote_weak_carry(vals: Sequence[Any], in_avals: Sequence[Aval], out_avals: Sequence[Aval]
                       ) -> tuple[list, bool]:
    """Weakly typed initial carries (Python scalars) converted to what the body returns,
    as JAX does before checking carry types; and whether any changed."""
    out, changed = [], False
    for v, a, b in zip(vals, in_avals, out_avals):
        if a.weak_type and not typematch(a, b):
            v = convert_element_type(v, dtypes.result_type(a, b))
            changed = True
        out.append(v)
    return out, changed


# ---------------------------------------------------------------- jaxpr surgery
def permute_jaxpr(closed: ClosedJaxpr, in_order: Sequence[int], out_order: Sequence[int]) -> ClosedJaxpr:
    """`closed` with its inputs and outputs reordered (new position i takes old in_order[i])."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, [j.invars[i] for i in in_order],
                             [j.outvars[i] for i in out_order], j.eqns), closed.consts)


def groups_order(sizes: Sequence[int], order: Sequence[int]) -> list[int]:
    """Positions for reordering consecutive groups of the given sizes into `order`."""
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return [starts[g] + k for g in order for k in range(sizes[g])]


def add_invars(closed: ClosedJaxpr, avals: Sequence[Aval], at: int | None = None) -> ClosedJaxpr:
    """`closed` taking extra, unused inputs (at position `at`, default the end)."""
    j = closed.jaxpr
    new = [Var(a) for a in avals]
    at = len(j.invars) if at is None else at
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars[:at] + new + j.invars[at:], j.outvars, j.eqns),
                       closed.consts)


def live_eqns(eqns: Sequence[Any], outvars: Sequence[Any]) -> list:
    """The equations that `outvars` depend on, in order (dead code elimination)."""
    return pe.dce_jaxpr(Jaxpr([], [], list(outvars), list(eqns)), [True] * len(outvars)).eqns


def forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """For each output, the position of the input it returns unchanged (else None)."""
    pos = {id(v): i for i, v in enumerate(jaxpr.invars)}
    return [pos.get(id(v)) if isinstance(v, Var) else None for v in jaxpr.outvars]


def used_inputs(jaxpr: Jaxpr) -> list[bool]:
    """Which inputs the outputs depend on."""
    live = live_eqns(jaxpr.eqns, jaxpr.outvars)
    used = {id(v) for e in live for v in e.invars} | {id(v) for v in jaxpr.outvars}
    return [id(v) in used for v in jaxpr.invars]


def select_binders(closed: ClosedJaxpr, in_order: Sequence[int], keep_out: Sequence[bool]) -> ClosedJaxpr:
    """`closed` taking the inputs at `in_order` (the others must be unused) and returning
    only the outputs flagged in `keep_out`."""
    j = closed.jaxpr
    outs = [v for v, k in zip(j.outvars, keep_out) if k]
    return ClosedJaxpr(Jaxpr(j.constvars, [j.invars[i] for i in in_order], outs, live_eqns(j.eqns, outs)),
                       closed.consts)


def dce(closed: ClosedJaxpr, used_outputs: Sequence[bool]) -> ClosedJaxpr:
    return ClosedJaxpr(pe.dce_jaxpr(closed.jaxpr, used_outputs), closed.consts)


# ---------------------------------------------------------------- transformations of bodies
_jvp_cache: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()
_batch_cache: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()
_pe_cache: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def _cached(cache: weakref.WeakKeyDictionary, closed: ClosedJaxpr, key: Any, make: Callable[[], Any]) -> Any:
    per = cache.setdefault(closed, {})
    if key not in per:
        per[key] = make()
    return per[key]


def jvp_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate: Sequence[bool]
              ) -> tuple[ClosedJaxpr, list[bool]]:
    """The JVP of `closed`: inputs (primals, tangents where `nonzeros`), outputs (primals,
    tangents that are not symbolically zero or are in `instantiate`), and which outputs
    have tangents."""
    key = (tuple(nonzeros), tuple(instantiate))
    return _cached(_jvp_cache, closed, key, lambda: _make_jvp_jaxpr(closed, nonzeros, instantiate))


def _make_jvp_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate: Sequence[bool]):
    in_avals = closed.in_avals
    n = len(in_avals)
    t_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzeros) if nz]
    out_nz: list[bool] = []

    def fun(*args):
        it = iter(args[n:])
        tangents = [next(it) if nz else R.Zero(tangent_aval(a)) for a, nz in zip(in_avals, nonzeros)]
        outs, t_outs = ad.jvp_flat(jaxpr_as_fun(closed), args[:n], tangents, instantiate=False)
        out_nz[:] = [not is_zero(t) or inst for t, inst in zip(t_outs, instantiate)]
        return [*outs, *[R.instantiate_zeros(t) for t, nz in zip(t_outs, out_nz) if nz]]

    jaxpr = trace_flat(fun, [*in_avals, *t_avals])
    return jaxpr, list(out_nz)


def batched_aval(a: Aval, dim: int | None, size: int) -> Aval:
    if dim is None:
        return a
    return a.update(shape=a.shape[:dim] + (size,) + a.shape[dim:])


def batch_jaxpr(closed: ClosedJaxpr, size: int, axis_name: Any, in_dims: Sequence[int | None],
                out_axes: Sequence[int | None]) -> tuple[ClosedJaxpr, list[bool]]:
    """`closed` vectorized: inputs batched along `in_dims` (None: shared by all); an
    output with an int in `out_axes` comes out batched along it, one with None comes out
    unbatched when it can and along axis 0 otherwise. Also says which outputs are batched."""
    key = (size, axis_name, tuple(in_dims), tuple(out_axes))
    return _cached(_batch_cache, closed, key,
                   lambda: _make_batch_jaxpr(closed, size, axis_name, in_dims, out_axes))


def _make_batch_jaxpr(closed, size, axis_name, in_dims, out_axes):
    out_batched: list[bool] = []

    def fun(*args):
        outs = []
        out_batched.clear()
        for (v, d), want in zip(_vmap_trace(jaxpr_as_fun(closed), in_dims, size, args, axis_name), out_axes):
            if want is not None:
                v = moveaxis(bdim_at_front(v, d, size), 0, want)
            elif d is not None:
                v = moveaxis(v, d, 0)
            out_batched.append(want is not None or d is not None)
            outs.append(v)
        return outs

    avals = [batched_aval(a, d, size) for a, d in zip(closed.in_avals, in_dims)]
    jaxpr = trace_flat(fun, avals)
    return jaxpr, list(out_batched)


def partial_eval_jaxpr_nounits(closed: ClosedJaxpr, unknowns: Sequence[bool], instantiate: Sequence[bool],
                               invariant: Sequence[bool] | None = None
                               ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list[Aval]]:
    """Split `closed` into a known part (known inputs -> known outputs + residuals) and an
    unknown part (residuals + unknown inputs -> unknown outputs). Outputs in
    `instantiate` are unknown even when computable now (they pass as residuals). The
    body's own constants that the unknown part reads stay constants of it.

    Known values computed only from literals, or from inputs flagged `invariant` (a
    loop's consts), are recomputed by the unknown part instead of becoming residuals:
    in a loop a residual is stored once per iteration, an invariant one needlessly."""
    invariant = tuple(invariant) if invariant is not None else (False,) * len(unknowns)
    key = (tuple(unknowns), tuple(instantiate), invariant)
    return _cached(_pe_cache, closed, key, lambda: _make_pe(closed, unknowns, instantiate, invariant))


def _recompute_invariants(jaxpr: Jaxpr, invariant: Sequence[bool]) -> Callable[[Any], bool]:
    """A `recompute` predicate for pe.partial_eval_jaxpr: known equations whose inputs are
    all literals, invariant inputs or outputs of such equations (loops and branches
    excepted: they are not cheap to recompute)."""
    inv: set[int] = {id(v) for v, i in zip(jaxpr.invars, invariant) if i}

    def recompute(eqn: Any) -> bool:
        if any(isinstance(p, (ClosedJaxpr, Jaxpr)) or isinstance(p, tuple) and p
               and isinstance(p[0], ClosedJaxpr) for p in eqn.params.values()):
            return False
        if all(isinstance(v, Literal) or id(v) in inv for v in eqn.invars):
            inv.update(id(v) for v in eqn.outvars)
            return True
        return False
    return recompute


def _make_pe(closed: ClosedJaxpr, unknowns: Sequence[bool], instantiate: Sequence[bool],
             invariant: Sequence[bool]):
    known, unknown, out_uk, num_res = pe.partial_eval_jaxpr(
        closed.jaxpr, unknowns, recompute=_recompute_invariants(closed.jaxpr, invariant))
    n_known = len(known.outvars) - num_res
    known_outs, res = known.outvars[:n_known], list(known.outvars[n_known:])
    res_ids = {id(v) for v in res}
    kept_known, forced = [], []  # forced: known outputs the caller wants unknown
    it_known, it_unknown = iter(known_outs), iter(unknown.outvars)
    unknown_outs, final_uk = [], []
    for uk, inst in zip(out_uk, instantiate):
        if uk:
            unknown_outs.append(next(it_unknown))
        else:
            v = next(it_known)
            if not inst:
                kept_known.append(v)
                final_uk.append(False)
                continue
            unknown_outs.append(v)
            if isinstance(v, Var) and id(v) not in res_ids:
                res.append(v)
                res_ids.add(id(v))
                forced.append(v)
        final_uk.append(True)
    # residuals that are the body's constants: constants of the unknown part instead
    const_vals = {id(v): c for v, c in zip(closed.jaxpr.constvars, closed.consts)}
    const_res = [v for v in res if id(v) in const_vals]
    res = [v for v in res if id(v) not in const_vals]
    unknown_ins = unknown.invars[num_res:]
    jaxpr_known = Jaxpr(known.constvars, known.invars, kept_known + res,
                        live_eqns(known.eqns, kept_known + res))
    jaxpr_unknown = Jaxpr(const_res, res + unknown_ins, unknown_outs, unknown.eqns)
    return (ClosedJaxpr(jaxpr_known, closed.consts),
            ClosedJaxpr(jaxpr_unknown, [const_vals[id(v)] for v in const_res]),
            final_uk, [v.aval for v in res])


def known_vals(tracers: Sequence[Any]) -> list:
    return [t.pval.const for t in tracers if t.pval.is_known]
