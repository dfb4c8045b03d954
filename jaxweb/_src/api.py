"""The public transformations: jvp, linearize, vjp, grad, jacobians, vmap, jit, jaxprs.

Each one flattens its pytree arguments, runs a flat interpreter from
`interpreters/` (ad, batching) or `jaxpr.py`, and unflattens the result,
checking arguments the way JAX does (same error types and messages).
`jit` itself (the jitted-function class and its call path) lives in jitted.py.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any, Callable, Sequence

from . import core, dtypes, execution
from .config import override
from .api_util import (OutStore, abstractify, argnums_spec, as_array, flatten_fun,
                       flatten_fun_nokwargs, normalize_argnums, split_argnums)
from .checkpoint import checkpoint, checkpoint_policies, remat
from .custom_derivatives import custom_jvp, custom_vjp
from .interpreters import ad
from .interpreters.batching import vmap_flat
from .interpreters.rules import Zero, instantiate_zeros, tangent_dtype, UndefinedPrimal
from .jaxpr import ClosedJaxpr, eval_jaxpr, trace_to_closed_jaxpr
from .lax.ad_util import stop_gradient
from .lax.reductions import reduce_sum
from .jitted import static_split, jit
from .shape_dtype_struct import ShapeDtypeStruct
from .tree_util import Partial, broadcast_prefix, tree_flatten, tree_map, tree_unflatten
from .lax.elementwise import broadcasted_iota, convert_element_type, eq
from .lax.structural import reshape, slice as lax_slice

__all__ = ["jvp", "linearize", "vjp", "grad", "value_and_grad", "jacfwd", "jacrev", "jacobian",
           "hessian", "vmap", "stop_gradient", "make_jaxpr", "eval_shape", "ShapeDtypeStruct", "jit",
           "checkpoint", "remat", "checkpoint_policies", "closure_convert", "linear_transpose",
           "custom_jvp", "custom_vjp", "disable_jit", "block_until_ready", "named_call", "named_scope",
           "ensure_compile_time_eval"]


# ---------------------------------------------------------------- forward mode
def _check_tangent(p: Any, t: Any) -> Any:
    pa, ta = abstractify(p), abstractify(t)
    want = tangent_dtype(pa.dtype)
    if ta.dtype != want:
        raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must be equal, "
                        "or in case of int/bool primal dtype the tangent dtype must be float0."
                        f"Got primal dtype {pa.dtype.name} and so expected tangent dtype {want.name}, "
                        f"but got tangent dtype {ta.dtype.name} instead.")
    if pa.shape != ta.shape:
        raise ValueError("jvp called with different primal and tangent shapes;"
                         f"Got primal shape {pa.shape} and tangent shape as {ta.shape}")
    return as_array(t)


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False) -> tuple:
    """`(fun(*primals), J(primals) @ tangents)`, plus aux if `has_aux`."""
    for name, v in (("primal", primals), ("tangent", tangents)):
        if not isinstance(v, (tuple, list)):
            raise TypeError(f"{name} arguments to jax.jvp must be tuples or lists; found {type(v).__name__}.")
    p_flat, p_tree = tree_flatten(tuple(primals))
    t_flat, t_tree = tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree structure; "
                        f"primals have tree structure {p_tree} whereas tangents have tree structure {t_tree}.")
    t_flat = [_check_tangent(p, t) for p, t in zip(p_flat, t_flat)]
    store, aux_store = OutStore(), OutStore()
    flat_fun = flatten_fun_nokwargs(_split_aux(fun, has_aux, aux_store), p_tree, store)
    outs, t_outs = ad.jvp_flat(flat_fun, [as_array(p) for p in p_flat], t_flat)
    res = (tree_unflatten(store.tree, outs), tree_unflatten(store.tree, t_outs))
    return (*res, _lower_aux(aux_store)) if has_aux else res


def _split_aux(fun: Callable, has_aux: bool, aux_store: OutStore) -> Callable:
    """`fun` returning only its main output; the aux part goes to `aux_store.tree`."""
    if not has_aux:
        return fun

    def f(*args, **kwargs):
        out = fun(*args, **kwargs)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise ValueError("has_aux=True requires the function to return a pair (output, aux)")
        aux_store.tree = out[1]
        return out[0]
    return f


def _lower_aux(aux_store: OutStore) -> Any:
    return tree_map(ad.lower_finished, aux_store.tree)


def _linearize_tree(fun: Callable, primals: tuple, has_aux: bool) -> tuple:
    """linearize_flat over pytrees: the flat primals and their treedef, the flat outputs
    and theirs, the linear jaxpr with its consts, and the store holding `aux`."""
    p_flat, p_tree = tree_flatten(primals)
    store, aux_store = OutStore(), OutStore()
    flat_fun = flatten_fun_nokwargs(_split_aux(fun, has_aux, aux_store), p_tree, store)
    outs, jaxpr, consts = ad.linearize_flat(flat_fun, [as_array(p) for p in p_flat])
    return p_flat, p_tree, outs, store.tree, jaxpr, consts, aux_store


def linearize(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """`(fun(*primals), f_jvp)` where `f_jvp(*tangents)` evaluates the linearization."""
    p_flat, p_tree, outs, out_tree, jaxpr, consts, aux_store = _linearize_tree(fun, primals, has_aux)

    def f_jvp(*tangents: Any) -> Any:
        t_flat, t_tree = tree_flatten(tangents)
        if t_tree != p_tree:
            raise TypeError(f"linearized function called on tangent values inconsistent with the "
                            f"original primal values: got tree {t_tree}, expected {p_tree}")
        t_flat = [_check_tangent(p, t) for p, t in zip(p_flat, t_flat)]
        return tree_unflatten(out_tree, eval_jaxpr(jaxpr, consts, *t_flat))

    res = (tree_unflatten(out_tree, outs), f_jvp)
    return (*res, _lower_aux(aux_store)) if has_aux else res


# ---------------------------------------------------------------- reverse mode
def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """`(fun(*primals), f_vjp)` where `f_vjp(ct)` returns one cotangent per primal."""
    _, p_tree, outs, out_tree, jaxpr, consts, aux_store = _linearize_tree(fun, primals, has_aux)
    out_avals = [core.get_aval(o) for o in outs]
    # a pytree (tree_util.Partial) whose leaves are the residuals, as in JAX, so the
    # pullback can be returned from or passed into jit
    f_vjp = Partial(functools.partial(_apply_vjp, jaxpr, p_tree, out_tree, tuple(out_avals)), list(consts))
    res = (tree_unflatten(out_tree, outs), f_vjp)
    return (*res, _lower_aux(aux_store)) if has_aux else res


def _apply_vjp(jaxpr: Any, p_tree: Any, out_tree: Any, out_avals: tuple, consts: list, ct: Any) -> tuple:
    ct_flat, ct_tree = tree_flatten(ct)
    if ct_tree != out_tree:
        raise TypeError(f"Tree structure of cotangent input {ct_tree}, does not match structure "
                        f"of primal output {out_tree}.")
    for c, a in zip(ct_flat, out_avals):
        ca = abstractify(c)
        if ca.shape != a.shape or ca.dtype != tangent_dtype(a.dtype) and not ca.weak_type:
            raise ValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                f"{ca.str_short(False)}, but expected {a.update(dtype=tangent_dtype(a.dtype)).str_short(False)} "
                "because the corresponding output of the differentiated function had JAX type "
                f"{a.str_short(False)}")
    cts = [_ct_as(c, a) for c, a in zip(ct_flat, out_avals)]
    return tuple(tree_unflatten(p_tree, ad.pullback(jaxpr, consts, *cts)))


def _ct_as(ct: Any, aval: core.ShapedArray) -> Any:
    """A cotangent as an array of the output's tangent dtype (weakly typed scalars convert)."""
    want = tangent_dtype(aval.dtype)
    ct = as_array(ct)
    if core.get_aval(ct).dtype != want and want.name != "float0":
        ct = convert_element_type(ct, want)
    return ct


def _check_input_dtype(x: Any, allow_int: bool, name: str = "grad", holomorphic: bool = False) -> None:
    dt = abstractify(x).dtype
    if holomorphic and dt.kind != "c":
        raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, but got {dt.name}.")
    if dt.kind not in "fc" and not allow_int:
        raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {dt.name}. If you want to use Boolean- or "
                        f"integer-valued inputs, use vjp or set allow_int to True.")


def _check_output_dtype(dt: Any, name: str, holomorphic: bool) -> None:
    """JAX's rules for reverse-mode outputs: complex only when holomorphic, real otherwise."""
    if holomorphic:
        if dt.kind != "c":
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, but got "
                            f"{dt.name}.")
        return
    if dt.kind == "c":
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
                        f"np.floating), but got {dt.name}. For holomorphic differentiation, pass "
                        "holomorphic=True. For differentiation of non-holomorphic functions involving "
                        "complex outputs, use jax.vjp directly.")
    if dt.kind != "f":
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
                        f"np.floating), but got {dt.name}. For differentiation of functions "
                        "with integer outputs, use jax.vjp directly.")


def _check_scalar_output(out: Any, holomorphic: bool = False) -> None:
    if not core.valid_jaxtype(out):  # a tuple, None, ...: JAX's message shows the output
        raise TypeError(f"Gradient only defined for scalar-output functions. Output was {out!r}.")
    aval = abstractify(out)
    if aval.shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: {aval.shape}.")
    _check_output_dtype(aval.dtype, "grad", holomorphic)


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes: Sequence = ()
                   ) -> Callable:
    """A function returning `(fun(*args), gradient)` (`((value, aux), gradient)` with has_aux)."""
    argnums = argnums_spec(argnums)
    @functools.wraps(fun)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = normalize_argnums(argnums, len(args))
        f_partial, dyn = split_argnums(fun, args, nums, kwargs)
        for leaf in tree_flatten(dyn)[0]:
            _check_input_dtype(leaf, allow_int, "grad", holomorphic)
        if has_aux:
            ans, f_vjp, aux = vjp(f_partial, *dyn, has_aux=True)
        else:
            ans, f_vjp = vjp(f_partial, *dyn)
        _check_scalar_output(ans, holomorphic)
        g = f_vjp(convert_element_type(1, abstractify(ans).dtype, abstractify(ans).weak_type))
        g = g[0] if isinstance(argnums, int) else g
        execution.step_boundary(tree_flatten(g)[0])  # eager: one step's graph per flush
        return ((ans, aux) if has_aux else ans), g

    return value_and_grad_f


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes: Sequence = ()) -> Callable:
    """The gradient of scalar-valued `fun` with respect to the `argnums` arguments."""
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        (val, g) = vg(*args, **kwargs)
        return (g, val[1]) if has_aux else g

    return grad_f


# ---------------------------------------------------------------- jacobians
def _basis(aval: core.ShapedArray) -> Any:
    """The standard basis of a leaf's space, stacked: shape (size, *shape)."""
    n = aval.size
    eye = eq(broadcasted_iota(dtypes.int32, (n, n), 0), broadcasted_iota(dtypes.int32, (n, n), 1))
    return reshape(convert_element_type(eye, aval.dtype), (n, *aval.shape))


def _zeros_like(aval: core.ShapedArray) -> Any:
    return instantiate_zeros(Zero(aval))


def _check_real_inputs(leaves: Sequence[Any], name: str, holomorphic: bool = False) -> None:
    """jacfwd's inputs: complex ones with holomorphic=True, real ones otherwise."""
    for x in leaves:
        dt = abstractify(x).dtype
        if holomorphic:
            if dt.kind != "c":
                raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, "
                                f"but got {dt.name}.")
        elif dt.kind != "f":
            raise TypeError(f"{name} requires real-valued inputs (input dtype that is a sub-dtype of "
                            f"np.floating), but got {dt.name}. For holomorphic differentiation, pass "
                            f"holomorphic=True. For differentiation of non-holomorphic functions "
                            f"involving complex inputs or integer inputs, use jax.jvp directly.")


def _reshape_jac(j: Any, lead: tuple, trail: tuple) -> Any:
    return reshape(j, (*lead, *trail))


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """Jacobian by forward mode: one JVP per input basis vector, vmapped."""
    argnums = argnums_spec(argnums)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        nums = normalize_argnums(argnums, len(args))
        f_partial, dyn = split_argnums(fun, args, nums, kwargs)
        d_flat, d_tree = tree_flatten(dyn)
        _check_real_inputs(d_flat, "jacfwd", holomorphic)
        d_flat = [as_array(x) for x in d_flat]
        store, aux_store = OutStore(), OutStore()
        flat_f = flatten_fun_nokwargs(_split_aux(f_partial, has_aux, aux_store), d_tree, store)
        y = flat_f(*d_flat)
        aux = aux_store.tree  # before the JVPs below trace flat_f again
        y_avals = [core.get_aval(o) for o in y]
        if holomorphic:
            for ya in y_avals:
                if ya.dtype.kind != "c":
                    raise TypeError(f"jacfwd with holomorphic=True requires outputs with complex dtype, "
                                    f"but got {ya.dtype.name}.")
        # one vmapped JVP over the basis of all input leaves at once (not one per leaf)
        avals = [core.get_aval(x) for x in d_flat]
        offsets = [0]
        for a in avals:
            offsets.append(offsets[-1] + a.size)
        basis = _basis(core.ShapedArray((offsets[-1],), dtypes.float32))

        def push(t):
            # tangents as weakly typed as their primals, so Python-float inputs give weak
            # Jacobians where the function keeps them weak, as in JAX
            tangents = [reshape(convert_element_type(lax_slice(t, (o,), (o + a.size,)), a.dtype,
                                                     a.weak_type), a.shape)
                        for o, a in zip(offsets, avals)]
            return ad.jvp_flat(flat_f, d_flat, tangents)[1]

        cols = vmap_flat(push, [0], [-1] * len(y), offsets[-1], [basis]) if offsets[-1] else None
        per_input = []  # [input leaf][output leaf] jacobian blocks
        for i, a in enumerate(avals):
            blocks = []
            for j, ya in enumerate(y_avals):
                if cols is None:
                    block = _zeros_like(ya.update(shape=(*ya.shape, 0)))
                else:
                    c = cols[j]
                    nd = core.get_aval(c).ndim
                    block = lax_slice(c, (0,) * (nd - 1) + (offsets[i],), (*ya.shape, offsets[i + 1]))
                blocks.append(_reshape_jac(block, ya.shape, a.shape))
            per_input.append(blocks)
        jac = _assemble(per_input, store.tree, d_tree, isinstance(argnums, int))
        return (jac, aux) if has_aux else jac

    return jacfun


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """Jacobian by reverse mode: one VJP per output basis vector, vmapped."""
    argnums = argnums_spec(argnums)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        nums = normalize_argnums(argnums, len(args))
        f_partial, dyn = split_argnums(fun, args, nums, kwargs)
        d_flat, d_tree = tree_flatten(dyn)
        for x in d_flat:
            _check_input_dtype(x, allow_int, "jacrev", holomorphic)
        store, aux_store = OutStore(), OutStore()
        flat_f = flatten_fun_nokwargs(_split_aux(f_partial, has_aux, aux_store), d_tree, store)
        y, f_vjp = ad.vjp_flat(flat_f, [as_array(x) for x in d_flat])
        y_avals = [core.get_aval(o) for o in y]
        for ya in y_avals:
            _check_output_dtype(ya.dtype, "jacrev", holomorphic)
        per_output = []  # [output leaf][input leaf]
        for j, ya in enumerate(y_avals):
            def pull(ct, j=j):
                cts = [ct if k == j else _zeros_like(a.update(dtype=tangent_dtype(a.dtype)))
                       for k, a in enumerate(y_avals)]
                return f_vjp(*cts)

            rows = vmap_flat(pull, [0], [0] * len(d_flat), ya.size, [_basis(ya)])
            per_output.append([_weak_like(_reshape_jac(r, ya.shape, core.get_aval(x).shape), x)
                               for r, x in zip(rows, d_flat)])
        per_input = [list(col) for col in zip(*per_output)] if per_output else [[] for _ in d_flat]
        jac = _assemble(per_input, store.tree, d_tree, isinstance(argnums, int))
        return (jac, _lower_aux(aux_store)) if has_aux else jac

    return jacfun


def _weak_like(ct: Any, x: Any) -> Any:
    """A cotangent block with its input's weak type (jacrev of a Python float is weak)."""
    a, ca = abstractify(x), core.get_aval(ct)
    if a.weak_type and not ca.weak_type and ca.dtype == a.dtype:
        return convert_element_type(ct, ca.dtype, True)
    return ct


def _assemble(per_input: list, out_tree: Any, in_tree: Any, single: bool) -> Any:
    """Jacobian pytree: output structure outside, (argnums) input structure inside."""
    n_out = out_tree.num_leaves
    rows = [tree_unflatten(in_tree, [per_input[i][j] for i in range(len(per_input))])
            for j in range(n_out)]
    rows = [r[0] if single else r for r in rows]
    return tree_unflatten(out_tree, rows)


jacobian = jacrev


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """The Hessian of scalar `fun`: `jacfwd(jacrev(fun))`."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


# ---------------------------------------------------------------- vmap
def _arg_names(fun: Callable, n: int) -> list[str]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [f"argument {names[i]}" if i < len(names) else f"args[{i}]" for i in range(n)]


def _mapped_size(fun: Callable, args: tuple, flat: list, dims: list, axis_size: int | None) -> int:
    """The size of the mapped axis; JAX's errors when the arguments disagree."""
    sizes = {abstractify(x).shape[d] for x, d in zip(flat, dims) if d is not None}
    if not sizes and axis_size is None:
        raise ValueError("vmap must have at least one non-None value in in_axes or axis_size "
                         "must be specified")
    if len(sizes | ({axis_size} if axis_size is not None else set())) == 1:
        return sizes.pop() if sizes else axis_size
    names = _arg_names(fun, len(args))
    lines = [f"  * the axis_size argument was {axis_size}"] if axis_size is not None else []
    k = 0
    for i, a in enumerate(args):
        for leaf in tree_flatten(a)[0]:
            if dims[k] is not None:
                av = abstractify(leaf)
                lines.append(f"  * one axis had size {av.shape[dims[k]]}: axis {dims[k]} of {names[i]} "
                             f"of type {av.str_short(False)}")
            k += 1
    raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines))


def _check_axes_spec(axes: Any, name: str) -> None:
    for leaf in tree_flatten(axes, is_leaf=lambda x: x is None)[0]:
        if leaf is not None and not isinstance(leaf, int):
            raise ValueError(f"vmap {name} must be an int, None, or (nested) container with those "
                             f"types as leaves, but got {axes}.")


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name: Any = None,
         axis_size: int | None = None, spmd_axis_name: Any = None, sum_match: bool = False) -> Callable:
    """Vectorize `fun` over the `in_axes` axes of its arguments (pytree prefixes allowed).

    `sum_match=True`: an output whose out_axes entry is None but which varies along the
    mapped axis is summed over it (JAX 0.10), instead of raising."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                        f"positional arguments passed to the function, but got {in_axes}.")
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    @functools.wraps(fun)
    def vmap_f(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding "
                             f"to the positional arguments passed to the function, but got "
                             f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
        flat, in_tree = tree_flatten((args, kwargs))
        dims = broadcast_prefix((axes, {k: 0 for k in kwargs}), (args, kwargs), is_leaf=lambda x: x is None)
        dims = [_canonical_dim(x, d, "in_axes") for x, d in zip(flat, dims)]
        size = _mapped_size(fun, args, flat, dims, axis_size)
        store = OutStore()
        flat_fun = flatten_fun(fun, in_tree, store)
        out_dims_box: list = []

        def run(*xs):
            outs = flat_fun(*xs)
            out_dims_box.append(broadcast_prefix(out_axes, tree_unflatten(store.tree, outs),
                                                 is_leaf=lambda x: x is None))
            return outs

        flat = [as_array(x) if d is not None else x for x, d in zip(flat, dims)]
        outs = vmap_flat(run, dims, lambda: out_dims_box[0], size, flat, axis_name,
                         _sum_over if sum_match else None)
        return tree_unflatten(store.tree, outs)

    return vmap_f


def _sum_over(x: Any, axis: int) -> Any:
    return reduce_sum(x, (axis,))


def _canonical_dim(x: Any, d: int | None, name: str) -> int | None:
    if d is None:
        return None
    nd = abstractify(x).ndim
    if not -nd <= d < nd:
        raise ValueError(f"vmap was requested to map its argument along axis {d}, which implies that "
                         f"its rank should be at least {(d + 1) if d >= 0 else -d}, but is only {nd} "
                         f"(its shape is {abstractify(x).shape})")
    return d % nd


# ---------------------------------------------------------------- staging
def _trace(fun: Callable, args: tuple, kwargs: dict) -> tuple[ClosedJaxpr, Any]:
    flat, in_tree = tree_flatten((args, kwargs))
    store = OutStore()
    closed = trace_to_closed_jaxpr(flatten_fun(fun, in_tree, store), [abstractify(x) for x in flat])
    return closed, store.tree


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (), axis_env: Any = None,
               return_shape: bool = False, abstracted_axes: Any = None) -> Callable:
    """A function returning the ClosedJaxpr of `fun` at the given (example or abstract) arguments."""
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args: Any, **kwargs: Any) -> Any:
        f_dyn, dyn_args, dyn_kwargs, _ = static_split(fun, args, kwargs, nums, ())
        closed, out_tree = _trace(f_dyn, dyn_args, dyn_kwargs)
        if return_shape:
            shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
            return closed, tree_unflatten(out_tree, shapes)
        return closed

    return make_jaxpr_f


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """The output shapes/dtypes of `fun` as ShapeDtypeStructs, without computing anything."""
    closed, out_tree = _trace(fun, args, kwargs)
    return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                                     for a in closed.out_avals])


def disable_jit(disable: bool = True) -> contextlib.AbstractContextManager:
    """Context manager: inside it, jitted functions run their Python code op by op."""
    return override("jax_disable_jit", disable)


def ensure_compile_time_eval() -> contextlib.AbstractContextManager:
    """Context manager: operations on non-traced values run now, even while tracing for jit."""
    return core.new_dynamic(None)  # type: ignore[arg-type]


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """`fun` under a name for profiles (accepted; jaxprs do not record it yet)."""
    return fun


@contextlib.contextmanager
def named_scope(name: str):
    """A name scope for profiles (accepted; jaxprs do not record it yet)."""
    yield


def block_until_ready(x: Any) -> Any:
    """Wait for every array in the pytree `x`; returns `x`."""
    for leaf in tree_flatten(x)[0]:
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x


# ---------------------------------------------------------------- closure_convert, linear_transpose
def closure_convert(fun: Callable, *example_args: Any) -> tuple[Callable, list]:
    """`(converted, consts)`: `converted(*args, *consts)` equals `fun(*args)`, with the
    values `fun` closes over (floating-point constants) made explicit arguments."""
    closed, out_tree = _trace(fun, example_args, {})
    _, in_tree = tree_flatten(example_args)
    hoisted = [c for c in closed.consts if dtypes.dtype(core.get_aval(c).dtype).kind in "fc"]
    kept = [c for c in closed.consts if dtypes.dtype(core.get_aval(c).dtype).kind not in "fc"]
    hoist_mask = [core.get_aval(c).dtype.kind in "fc" for c in closed.consts]
    n = len(hoisted)

    def converted(*args: Any) -> Any:
        user, consts = args[:len(args) - n], args[len(args) - n:]
        it_h, it_k = iter(consts), iter(kept)
        all_consts = [next(it_h) if h else next(it_k) for h in hoist_mask]
        flat, tree = tree_flatten(user)
        if tree != in_tree:
            raise TypeError(f"closure_convert: arguments have structure {tree}, expected {in_tree}")
        return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, all_consts, *flat))

    return converted, hoisted


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: Sequence = ()) -> Callable:
    """The transpose of linear `fun` (at the shapes/dtypes of `primals`): ct -> input cotangents."""
    flat, in_tree = tree_flatten(primals)
    in_avals = [abstractify(x).strip_weak_type() for x in flat]
    store = OutStore()
    closed = trace_to_closed_jaxpr(flatten_fun_nokwargs(fun, in_tree, store), in_avals)
    out_tree, out_avals = store.tree, closed.out_avals

    def transposed(*cts: Any) -> tuple:
        ct = cts[0] if len(cts) == 1 else cts
        ct_flat, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError("cotangent tree does not match function output, "
                            f"expected {out_tree} but got {ct_tree}")
        for c, a in zip(ct_flat, out_avals):
            if abstractify(c).shape != a.shape or abstractify(c).dtype != a.dtype:
                raise TypeError("cotangent type does not match function output, expected "
                                f"{a.str_short()} but got {abstractify(c).str_short()}")
        res = ad.backward_pass(closed.jaxpr, closed.consts, [UndefinedPrimal(a) for a in in_avals],
                               [as_array(c) for c in ct_flat])
        res = [_zeros_like(a) if isinstance(r, Zero) else r for r, a in zip(res, in_avals)]
        return tuple(tree_unflatten(in_tree, res))

    return transposed

