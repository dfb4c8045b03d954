"""Cumulative reductions: cumsum, cumprod, cummax, cummin, cumlogsumexp.

Each lowers to a single kernel as a masked reduction over the scanned axis,
`out[i] = reduce_{j <= i} x[j]` (`j >= i` when `reverse`): O(n^2) work but one
fused kernel and exact. The "triangle" primitives `tri_expand`/`tri_reduce`
(mutually transposed, linear) express those masked matrices in traceable form, so
the JVPs of cumprod/cummax/cummin reuse the reductions' own JVP rules (and grads
of the JVPs transpose cleanly).
"""
from __future__ import annotations

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp", "cumsum_p", "cumprod_p", "cummax_p",
           "cummin_p", "cumlogsumexp_p"]

from typing import Any

from .. import core, dtypes
from ..compiler import expr as E
from ..compiler import graph
from ..compiler.kernel import REDUCE_IDENTITY
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base
from .reductions import (reduce_max_p, reduce_min_p, reduce_prod_p, reduce_sum_p)
from . import elementwise as lax_ew
from . import structural as lax_st

#: mask name -> IR comparison of (j, i): which j contribute to output i
_MASK_OPS = {"le": "le", "ge": "ge", "ne": "ne"}


def _tri_shape(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return shape[:axis] + (shape[axis],) + shape[axis:]


def _tri_mask(shape: tuple[int, ...], axis: int, mask: str) -> Node:
    """Boolean Node over the expanded shape: whether element (.., i, j, ..) is kept."""
    op = _MASK_OPS[mask]
    return graph.fn(shape, dtypes.bool_, lambda ctx, idxs: E.binary(op, idxs[axis + 1], idxs[axis]))


def _tri_lower(x: Node, axis: int, mask: str, fill: Any) -> Node:
    shape = _tri_shape(x.shape, axis)
    xe = x.reshape(x.shape[:axis] + (1,) + x.shape[axis:]).expand(shape)
    return graph.where(_tri_mask(shape, axis, mask), xe, graph.const(fill, x.dtype, shape))


# ---------------------------------------------------------------- triangle primitives
tri_expand_p = core.Primitive("tri_expand")
tri_reduce_p = core.Primitive("tri_reduce")


@core.def_abstract_eval(tri_expand_p)
def _tri_expand_abstract(x, *, axis, mask, fill):
    return x.update(shape=_tri_shape(x.shape, axis))


@def_lowering(tri_expand_p)
def _tri_expand_lower(x, *, axis, mask, fill):
    return _tri_lower(x, axis, mask, fill)


@core.def_abstract_eval(tri_reduce_p)
def _tri_reduce_abstract(y, *, axis, mask):
    return y.update(shape=y.shape[:axis] + y.shape[axis + 1:])


@base.in_f32
def _tri_reduce_lower(y, *, axis, mask):
    kept = graph.where(_tri_mask(y.shape, axis, mask), y, graph.const_like(y, 0))
    return kept.reduce("add", (axis,))


def_lowering(tri_reduce_p)(_tri_reduce_lower)


def tri_expand(x: Any, axis: int, mask: str, fill: Any = 0) -> Any:
    """out[.., i, j, ..] = x[.., j, ..] where `j <mask> i`, else `fill` (new axis at `axis`)."""
    return tri_expand_p.bind(x, axis=axis, mask=mask, fill=fill)


def tri_reduce(y: Any, axis: int, mask: str) -> Any:
    """out[.., j, ..] = sum_i y[.., i, j, ..] over i with `j <mask> i` (tri_expand's transpose)."""
    return tri_reduce_p.bind(y, axis=axis, mask=mask)


def _tri_expand_jvp(primals, tangents, *, axis, mask, fill):
    (x,), (t,) = primals, tangents
    out = tri_expand(x, axis, mask, fill)
    if isinstance(t, R.Zero):
        return out, R.Zero(core.get_aval(out))
    return out, tri_expand(t, axis, mask, 0)


R.primitive_jvps[tri_expand_p] = _tri_expand_jvp
R.primitive_transposes[tri_expand_p] = \
    lambda ct, x, *, axis, mask, fill: [tri_reduce(R.instantiate_zeros(ct), axis, mask)]
R.deflinear(tri_reduce_p, lambda ct, y, *, axis, mask: [tri_expand(R.instantiate_zeros(ct), axis, mask, 0)])


def _axis_batcher(prim: core.Primitive):
    """Batching for primitives with one operand and an `axis` param: shift the axis."""
    def rule(args, dims, *, axis, **params):
        (x,), (d,) = args, dims
        new_axis = axis + (axis >= d)
        out_d = d + (prim is tri_expand_p and d > axis) - (prim is tri_reduce_p and d > axis)
        return prim.bind(x, axis=new_axis, **params), out_d
    return rule


R.primitive_batchers[tri_expand_p] = _axis_batcher(tri_expand_p)
R.primitive_batchers[tri_reduce_p] = _axis_batcher(tri_reduce_p)


def others_product(x: Any, axis: int) -> Any:
    """prod_{j != i} x[j] along `axis`, for every i (exact with zeros)."""
    return reduce_prod_p.bind(tri_expand(x, axis, "ne", 1), axes=(axis + 1,))


# ---------------------------------------------------------------- cumulative primitives
_CUM_KINDS = {"cumsum": base.NUM, "cumprod": base.NUM, "cummax": base.ORDERED, "cummin": base.ORDERED,
              "cumlogsumexp": base.FLOAT}


def _cum_abstract(name: str):
    def rule(x, *, axis, reverse):
        base.check_dtype(name, x, _CUM_KINDS[name])
        if not 0 <= axis < max(x.ndim, 1) or x.ndim == 0:
            raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension {x.ndim}")
        return x
    return rule


def _monoid_cum_lower(ir_op: str):
    @base.in_f32
    def lower(x: Node, *, axis, reverse) -> Node:
        fill = REDUCE_IDENTITY[ir_op](x.dtype)
        return _tri_lower(x, axis, "ge" if reverse else "le", fill).reduce(ir_op, (axis + 1,))
    return lower


@base.in_f32
def _cumlogsumexp_lower(x: Node, *, axis, reverse) -> Node:
    mask = "ge" if reverse else "le"
    shape = _tri_shape(x.shape, axis)
    m = _tri_lower(x, axis, mask, float("-inf")).reduce("max", (axis + 1,))
    m = graph.where(graph.alu("is_finite", m), m, graph.const_like(m, 0.0))
    mb = m.reshape(x.shape[:axis + 1] + (1,) + x.shape[axis + 1:]).expand(shape)
    xe = x.reshape(x.shape[:axis] + (1,) + x.shape[axis:]).expand(shape)
    terms = graph.where(_tri_mask(shape, axis, mask), graph.alu("exp", graph.alu("sub", xe, mb)),
                       graph.const(0.0, x.dtype, shape))
    return graph.alu("add", graph.alu("log", terms.reduce("add", (axis + 1,))), m)


def _cum_primitive(name: str, lowering) -> core.Primitive:
    prim = core.Primitive(name)
    core.def_abstract_eval(prim)(_cum_abstract(name))
    def_lowering(prim)(lowering)
    R.primitive_batchers[prim] = _axis_batcher(prim)
    return prim


cumsum_p = _cum_primitive("cumsum", _monoid_cum_lower("add"))
cumprod_p = _cum_primitive("cumprod", _monoid_cum_lower("mul"))
cummax_p = _cum_primitive("cummax", _monoid_cum_lower("max"))
cummin_p = _cum_primitive("cummin", _monoid_cum_lower("min"))
cumlogsumexp_p = _cum_primitive("cumlogsumexp", _cumlogsumexp_lower)

R.deflinear(cumsum_p, lambda ct, x, *, axis, reverse:
            [cumsum_p.bind(R.instantiate_zeros(ct), axis=axis, reverse=not reverse)])


def _tri_jvp(reduce_p: core.Primitive, ir_op: str):
    """JVP of a cumulative op as the JVP of its reduction over the masked matrix."""
    def jvp(t, x, *, axis, reverse):
        mask = "ge" if reverse else "le"
        fill = REDUCE_IDENTITY[ir_op](core.get_aval(x).dtype)
        m, tm = tri_expand(x, axis, mask, fill), tri_expand(t, axis, mask, 0)
        return R.primitive_jvps[reduce_p]((m,), (tm,), axes=(axis + 1,))[1]
    return jvp


R.defjvp(cumprod_p, _tri_jvp(reduce_prod_p, "mul"))
R.defjvp(cummax_p, _tri_jvp(reduce_max_p, "max"))
R.defjvp(cummin_p, _tri_jvp(reduce_min_p, "min"))


def _cumlogsumexp_jvp(t, ans, x, *, axis, reverse):
    """d out_i = sum_{j in prefix(i)} t_j exp(x_j - out_i)."""
    mask = "ge" if reverse else "le"
    shape = _tri_shape(core.get_aval(x).shape, axis)
    dims = tuple(d for d in range(len(shape)) if d != axis + 1)
    weights = lax_ew.exp(lax_ew.sub(tri_expand(x, axis, mask, float("-inf")),
                                    lax_st.broadcast_in_dim(ans, shape, dims)))
    return reduce_sum_p.bind(lax_ew.mul(tri_expand(t, axis, mask, 0), weights), axes=(axis + 1,))


R.defjvp2(cumlogsumexp_p, _cumlogsumexp_jvp)


def _cum_wrapper(prim: core.Primitive):
    def fn(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
        shape = core.get_aval(operand).shape
        if not -len(shape) <= axis < len(shape):
            raise ValueError(f"axis {axis} is out of bounds for array of shape {shape}")
        axis %= len(shape)
        return prim.bind(operand, axis=axis, reverse=bool(reverse))
    fn.__name__ = prim.name
    fn.__doc__ = f"`lax.{prim.name}` along `axis` (from the end if `reverse`)."
    return fn


cumsum = _cum_wrapper(cumsum_p)
cumprod = _cum_wrapper(cumprod_p)
cummax = _cum_wrapper(cummax_p)
cummin = _cum_wrapper(cummin_p)
cumlogsumexp = _cum_wrapper(cumlogsumexp_p)
