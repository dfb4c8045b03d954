"""Collectives over a named vmap axis: psum, pmean, pmax, pmin, axis_index.

`vmap(f, axis_name="i")` names its batch axis; inside `f`, `lax.psum(x, "i")`
reduces over it and broadcasts the result back to every example. The BatchTrace
of that axis applies `batching.collective_rules`; a vmap of another name passes
the collective through, and with no such vmap the name is unbound (NameError).
"""
from __future__ import annotations

__all__ = ["psum", "pmean", "pmax", "pmin", "axis_index"]

from typing import Any

from .. import core
from ..interpreters import batching, rules as R
from . import reductions
from .structural import broadcast_in_dim
from .elementwise import convert_element_type, eq_p, iota
from ..tree_util import tree_map


def _names(axis_name: Any) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


class CollectivePrimitive(core.Primitive):
    """Binds at the innermost trace at or above the vmap of each named axis, even when
    no argument is traced by it (`psum(1, "i")`, `axis_index("i")`)."""

    def bind(self, *args: Any, axis_name: tuple) -> Any:
        mains = [batching.find_named_axis(n) for n in axis_name]
        if any(m is None for m in mains):
            unbound = next(n for n, m in zip(axis_name, mains) if m is None)
            bound = [m.global_data[1] for m in core.trace_stack if m.trace_type is batching.BatchTrace]
            raise NameError(f"unbound axis name: {unbound}. The following axis names (e.g. defined "
                            f"by vmap) are available to collective operations: {bound}")
        top = core.find_top_trace(args)
        main = max([top.main, *mains], key=lambda m: m.level)
        trace = main.trace_type(main)
        out = trace.process_primitive(self, [trace.full_raise(a) for a in args], dict(axis_name=axis_name))
        return core.full_lower(out)


def _reducer(name: str, reduce_name: str) -> core.Primitive:
    prim = CollectivePrimitive(name)
    core.def_abstract_eval(prim)(lambda x, *, axis_name: x)

    def collective(trace, vals, dims, *, axis_name):
        (x,), (d,) = vals, dims
        size = trace.axis_size
        x = batching.bdim_at_front(x, d, size)
        reduced = getattr(reductions, reduce_name)(x, (0,))
        shape = core.get_aval(x).shape
        out = broadcast_in_dim(reduced, shape, tuple(range(1, len(shape))))
        rest = tuple(n for n in axis_name if n != trace.main.global_data[1])
        return (prim.bind(out, axis_name=rest) if rest else out), 0

    batching.collective_rules[prim] = collective
    return prim


psum_p = _reducer("psum", "reduce_sum")
pmax_p = _reducer("pmax", "reduce_max")
pmin_p = _reducer("pmin", "reduce_min")
R.deflinear(psum_p, lambda ct, x, *, axis_name: [psum_p.bind(R.instantiate_zeros(ct), axis_name=axis_name)])


def _chooser_jvp(prim: core.Primitive):
    def jvp(primals, tangents, *, axis_name):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axis_name=axis_name)
        if isinstance(t, R.Zero):
            return out, t
        picked = convert_element_type(eq_p.bind(x, out), core.get_aval(t).dtype)
        # the tangent of the chosen examples, averaged over ties as JAX does
        num = psum_p.bind(t * picked, axis_name=axis_name)
        return out, num / psum_p.bind(picked, axis_name=axis_name)
    return jvp


R.primitive_jvps[pmax_p] = _chooser_jvp(pmax_p)
R.primitive_jvps[pmin_p] = _chooser_jvp(pmin_p)

axis_index_p = CollectivePrimitive("axis_index")
core.def_abstract_eval(axis_index_p)(lambda *, axis_name: core.ShapedArray((), "int32"))


def _axis_index_collective(trace, vals, dims, *, axis_name):
    return iota("int32", trace.axis_size), 0


batching.collective_rules[axis_index_p] = _axis_index_collective
R.defnondifferentiable(axis_index_p)


def psum(x: Any, axis_name: Any) -> Any:
    """Sum of `x` (a pytree) over the named vmap axis (or axes)."""
    return tree_map(lambda v: psum_p.bind(v, axis_name=_names(axis_name)), x)


def pmean(x: Any, axis_name: Any) -> Any:
    """Mean of `x` (a pytree) over the named vmap axis (or axes)."""
    n = psum(1, axis_name)
    return tree_map(lambda v: psum_p.bind(v, axis_name=_names(axis_name)) / n, x)


def pmax(x: Any, axis_name: Any) -> Any:
    """Maximum of `x` (a pytree) over the named vmap axis (or axes)."""
    return tree_map(lambda v: pmax_p.bind(v, axis_name=_names(axis_name)), x)


def pmin(x: Any, axis_name: Any) -> Any:
    """Minimum of `x` (a pytree) over the named vmap axis (or axes)."""
    return tree_map(lambda v: pmin_p.bind(v, axis_name=_names(axis_name)), x)


def axis_index(axis_name: Any) -> Any:
    """The index of the current example along the named vmap axis."""
    return axis_index_p.bind(axis_name=_names(axis_name))
