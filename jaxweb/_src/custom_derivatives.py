"""`custom_jvp` and `custom_vjp`: functions with user-defined derivative rules.

A call binds `custom_jvp_call` / `custom_vjp_call` with flat Python callables (the
function, and its rule). Each interpreter decides what to do with them through
its `process_custom_*_call` method: evaluation runs the function, JVPTrace runs
the rule, BatchTrace vectorizes function and rule together, and jaxpr tracing
stages an equation holding the traced function (`call_jaxpr`) and the rule.
Reverse mode of custom_vjp goes through `custom_lin`, a linear primitive whose
transpose is the user's `bwd`.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

from . import core
from .interpreters import rules as R
from .interpreters.ad import custom_lin_p, tangent_aval
from .jaxpr import ClosedJaxpr, jaxpr_as_fun
from .lowering import inline_rules, lowering_rules
from .tree_util import tree_flatten, tree_unflatten, tree_map
from .lax.structural import full

__all__ = ["custom_jvp", "custom_vjp", "SymbolicZero"]


# ---------------------------------------------------------------- the call primitives
def _as_fun(f: Any) -> Callable[..., list]:
    return jaxpr_as_fun(f) if isinstance(f, ClosedJaxpr) else f


class CustomJVPCallPrimitive(core.Primitive):
    """bind(*args, call_jaxpr, jvp, symbolic_zeros): call_jaxpr is a flat callable or ClosedJaxpr."""

    multiple_results = True

    def bind(self, *args, call_jaxpr, jvp, symbolic_zeros=False):
        trace = core.find_top_trace(args)
        fun = _as_fun(call_jaxpr)
        if type(trace) is core.EvalTrace:
            return list(fun(*args))
        tracers = [trace.full_raise(a) for a in args]
        outs = trace.process_custom_jvp_call(self, fun, jvp, tracers, symbolic_zeros=symbolic_zeros)
        return [core.full_lower(o) for o in outs]


class CustomVJPCallPrimitive(core.Primitive):
    """bind(*args, call_jaxpr, fwd, bwd, symbolic_zeros); fwd(*xs) -> (outs, residuals),
    bwd(residuals, cts) -> cotangents of xs, all flat lists."""

    multiple_results = True

    def bind(self, *args, call_jaxpr, fwd, bwd, symbolic_zeros=False):
        trace = core.find_top_trace(args)
        fun = _as_fun(call_jaxpr)
        if type(trace) is core.EvalTrace:
            return list(fun(*args))
        tracers = [trace.full_raise(a) for a in args]
        outs = trace.process_custom_vjp_call(self, fun, fwd, bwd, tracers, symbolic_zeros=symbolic_zeros)
        return [core.full_lower(o) for o in outs]


custom_jvp_call_p = CustomJVPCallPrimitive("custom_jvp_call")
custom_vjp_call_p = CustomVJPCallPrimitive("custom_vjp_call")
for _p in (custom_jvp_call_p, custom_vjp_call_p):  # compiled: the function itself
    inline_rules[_p] = lambda params: params["call_jaxpr"]


lowering_rules[custom_lin_p] = core.impl_rules[custom_lin_p]  # compiled (inside a loop's JVP): the same error


# ---------------------------------------------------------------- the user-facing decorators
class SymbolicZero(R.Zero):
    """A zero tangent given to a `defjvp(..., symbolic_zeros=True)` rule: shape and dtype only."""

    __slots__ = ()
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)



def _resolve_args(fun: Callable, args: tuple, kwargs: dict) -> tuple:
    """Positional arguments only, as JAX's custom derivatives require (keywords bound by name)."""
    try:
        ba = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError):  # builtins without signatures, or a real arity error later
        return args + tuple(kwargs.values())
    ba.apply_defaults()
    return ba.args + tuple(ba.kwargs.values())


def _split(args: tuple, nondiff_argnums: tuple[int, ...]) -> tuple[list, list]:
    nondiff = [args[i] for i in nondiff_argnums]
    dyn = [a for i, a in enumerate(args) if i not in nondiff_argnums]
    return nondiff, dyn


def _merge(nondiff: list, dyn: Sequence[Any], nondiff_argnums: tuple[int, ...]) -> list:
    out, it_n, it_d = [], iter(nondiff), iter(dyn)
    for i in range(len(nondiff) + len(dyn)):
        out.append(next(it_n) if i in nondiff_argnums else next(it_d))
    return out


class _CustomBase:
    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def _flat_fun(self, nondiff: list, in_tree, store: dict) -> Callable[..., list]:
        def flat_fun(*flat):
            dyn = tree_unflatten(in_tree, flat)
            out = self.fun(*_merge(nondiff, dyn, self.nondiff_argnums))
            leaves, store["out_tree"] = tree_flatten(out)
            return leaves
        return flat_fun


class custom_jvp(_CustomBase):
    """A function with a custom JVP rule: `@custom_jvp def f(x): ...; @f.defjvp def f_jvp(primals, tangents)`."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.jvp: Callable | None = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        self.jvp, self.symbolic_zeros = jvp, symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per argument: `jvp_i(tangent_i, primal_out, *primals)`; None means zero."""
        def jvp(primals, tangents):
            out = self(*primals)
            total = None
            for fn, t in zip(jvps, tangents):
                if fn is None or isinstance(t, R.Zero):
                    continue
                contrib = fn(t, out, *primals)
                total = contrib if total is None else _tree_add(total, contrib)
            if total is None:
                total = tree_map(lambda o: R.instantiate_zeros(R.Zero(tangent_aval(o))), out)
            return out, total
        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using defjvp.")
        args = _resolve_args(self.fun, args, kwargs)
        nondiff, dyn = _split(args, self.nondiff_argnums)
        # Tracers in nondiff positions (e.g. under vmap over that argument) become extra
        # inputs with zero tangents, as in JAX; other nondiff values are closed over.
        nd_leaves, nd_tree = tree_flatten(nondiff)
        traced = [i for i, leaf in enumerate(nd_leaves) if isinstance(leaf, core.Tracer)]
        k = len(traced)

        def with_nondiff(vals):
            leaves = list(nd_leaves)
            for i, v in zip(traced, vals):
                leaves[i] = v
            return tree_unflatten(nd_tree, leaves)

        flat, in_tree = tree_flatten(tuple(dyn))
        store: dict = {}
        user_jvp = self.jvp

        def flat_fun(*flat_args):
            out = self.fun(*_merge(with_nondiff(flat_args[:k]), tree_unflatten(in_tree, flat_args[k:]),
                                   self.nondiff_argnums))
            leaves, store["out_tree"] = tree_flatten(out)
            return leaves

        def flat_jvp(primals, tangents):
            p = tree_unflatten(in_tree, list(primals[k:]))
            t = tree_unflatten(in_tree, [SymbolicZero(z.aval) if isinstance(z, R.Zero) else z
                                         for z in tangents[k:]])
            out, t_out = user_jvp(*with_nondiff(primals[:k]), tuple(p), tuple(t))
            leaves, store["out_tree"] = tree_flatten(out)
            t_leaves, t_tree = tree_flatten(t_out)
            if t_tree != store["out_tree"]:
                raise TypeError(
                    "Custom JVP rule must produce primal and tangent outputs with equal container "
                    f"(pytree) structures, but got {store['out_tree']} and {t_tree} respectively.")
            for p_out, t in zip(leaves, t_leaves):
                _check_tangent_type(p_out, t)
            return leaves, t_leaves

        flat_jvp.__name__ = getattr(user_jvp, "__name__", "jvp")
        outs = custom_jvp_call_p.bind(*[nd_leaves[i] for i in traced], *flat, call_jaxpr=flat_fun,
                                      jvp=flat_jvp, symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(store["out_tree"], outs)


class custom_vjp(_CustomBase):
    """A function with a custom VJP: `f.defvjp(fwd, bwd)`, fwd -> (out, res), bwd(res, ct) -> tuple."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} using defvjp.")
        args = _resolve_args(self.fun, args, kwargs)
        nondiff, dyn = _split(args, self.nondiff_argnums)
        flat, in_tree = tree_flatten(tuple(dyn))
        in_avals = [core.get_aval(x) for x in flat]
        store: dict = {}
        user_fwd, user_bwd = self.fwd, self.bwd

        def flat_fwd(*xs):
            out, res = user_fwd(*_merge(nondiff, tree_unflatten(in_tree, list(xs)), self.nondiff_argnums))
            leaves, store["out_tree"] = tree_flatten(out)
            res_leaves, store["res_tree"] = tree_flatten(res)
            return leaves, res_leaves

        def flat_bwd(res, cts):
            ct_tree = tree_unflatten(store["out_tree"], list(cts))
            got = user_bwd(*nondiff, tree_unflatten(store["res_tree"], list(res)), ct_tree)
            return _flatten_cts(got, in_tree, in_avals, self.__name__)

        outs = custom_vjp_call_p.bind(*flat, call_jaxpr=self._flat_fun(nondiff, in_tree, store),
                                      fwd=flat_fwd, bwd=flat_bwd, symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(store["out_tree"], outs)


def _flatten_cts(cts: Any, in_tree, in_avals: list, name: str) -> list:
    """bwd's output as flat cotangents; None means zero (for an argument or any leaf)."""
    if not isinstance(cts, (tuple, list)):
        raise TypeError(f"Custom VJP bwd rule {name} must produce a tuple of cotangents, got "
                        f"{type(cts).__name__}.")
    dyn_example = tree_unflatten(in_tree, list(range(len(in_avals))))
    if len(cts) != len(dyn_example):
        raise TypeError(f"Custom VJP bwd rule must produce a tuple of length equal to the number of "
                        f"primal (non-static) arguments ({len(dyn_example)}), but got length {len(cts)}.")
    out = [None] * len(in_avals)
    for ct, idxs in zip(cts, dyn_example):
        idx_leaves, idx_tree = tree_flatten(idxs)
        if ct is None:
            continue
        leaves, tree = tree_flatten(ct, is_leaf=lambda x: x is None)
        if len(leaves) != len(idx_leaves):
            raise ValueError("Custom VJP bwd rule must produce an output with the same container "
                             f"(pytree) structure as the args tuple of the primal function; expected "
                             f"{idx_tree} but got {tree}.")
        for i, leaf in zip(idx_leaves, leaves):
            if leaf is not None and core.get_aval(leaf).shape != in_avals[i].shape:
                raise ValueError(
                    "Custom VJP bwd rule must produce an output with the same type as the args "
                    f"tuple of the primal function, but at output[{i}] the bwd rule produced an "
                    f"output of type {core.get_aval(leaf).str_short(False)} corresponding to an input "
                    f"of type {in_avals[i].str_short(False)}, so the shapes do not match")
            out[i] = _as_cotangent(leaf, in_avals[i])
    return [R.instantiate_zeros(R.Zero(a.update(dtype=R.tangent_dtype(a.dtype)))) if c is None else c
            for c, a in zip(out, in_avals)]


def _as_cotangent(ct: Any, aval: core.ShapedArray) -> Any:
    """A bwd output as an array (Python scalars take the input's tangent dtype)."""
    if core.is_python_scalar(ct):
        return full(aval.shape, ct, R.tangent_dtype(aval.dtype))
    return ct


def _check_tangent_type(primal: Any, tangent: Any) -> None:
    if isinstance(tangent, R.Zero):
        return
    want, got = tangent_aval(primal), core.get_aval(tangent)
    if want.shape != got.shape or want.dtype != got.dtype and not (got.weak_type and got.dtype.kind == want.dtype.kind):
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with corresponding "
                        f"shapes and dtypes. Expected {want.str_short(False)} (tangent type of "
                        f"{core.get_aval(primal).str_short(False)}) but got {got.str_short(False)}.")


def _tree_add(a: Any, b: Any) -> Any:
    return tree_map(lambda x, y: x + y, a, b)
