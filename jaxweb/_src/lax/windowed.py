"""reduce_window (sum, max, min) with strides, padding and base/window dilation.

A windowed reduction is one kernel: for output position y and window offset k the
operand position in the base-dilated, padded operand is `p = y*stride + k*wdil - lo`;
padding and dilation holes read as the reduction's identity (XLA's init value).

JVPs: the sum is linear, and its transpose is another windowed sum of the
cotangent (stride and base dilation exchanged, padding mirrored: the same
derivation as a convolution's lhs transpose with an all-ones kernel). max/min pass
the tangent of the first position attaining the extremum in each window
(`window_gather`), whose transpose scatters cotangents back (`window_scatter`) --
as JAX's select_and_gather_add / select_and_scatter_add.
"""
from __future__ import annotations

__all__ = ["reduce_window", "reduce_window_sum", "reduce_window_max", "reduce_window_min",
           "reduce_window_sum_p", "reduce_window_max_p", "reduce_window_min_p"]

from typing import Any, Callable, Sequence

from .. import core, dtypes
from ..compiler import expr as E
from ..compiler import graph
from ..compiler.kernel import REDUCE_IDENTITY
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base
from .convolution import conv_out_dim, dilate_dim, padtype_to_pads, transpose_padding
from .reductions import batch_size, fold_init, linear_in_first_jvp, monoid_of, to_front

_I32 = dtypes.int32


def _out_shape(shape, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    return tuple(conv_out_dim(n, k, s, p, bd, wd) for n, k, s, p, bd, wd in zip(
        shape, window_dimensions, window_strides, padding, base_dilation, window_dilation))


def _window_abstract(name: str, kinds: str):
    def rule(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        base.check_dtype(name, x, kinds)
        for pname, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                         ("padding", padding), ("base_dilation", base_dilation),
                         ("window_dilation", window_dilation)):
            if len(v) != x.ndim:
                raise TypeError(f"{name}: {pname} must have one entry per operand dimension "
                                f"({x.ndim}), got {len(v)}")
        if any(s <= 0 for s in window_strides) or any(k < 0 for k in window_dimensions):
            raise TypeError(f"{name}: window strides must be positive and dimensions non-negative, got "
                            f"{tuple(window_strides)} and {tuple(window_dimensions)}")
        return x.update(shape=_out_shape(x.shape, window_dimensions, window_strides, padding,
                                         base_dilation, window_dilation))
    return rule


def _positions(xshape, idxs_out, idxs_win, p):
    """(operand index exprs (clamped), validity) of window offset k at output y."""
    valid = E.const(True, dtypes.bool_)
    out = []
    for n, y, k, s, (lo, _), bd, wd in zip(xshape, idxs_out, idxs_win, p["window_strides"], p["padding"],
                                            p["base_dilation"], p["window_dilation"]):
        size = dilate_dim(n, bd)
        pos = y * s + k * wd - lo
        pc = E.binary("max", E.binary("min", pos, E.const(max(size - 1, 0), _I32)), E.const(0, _I32))
        valid = valid & (pos >= 0) & (pos < size)
        if bd != 1:
            valid = valid & E.binary("eq", pc % bd, E.const(0, _I32))
            pc = pc // bd
        out.append(pc)
    return out, valid


def _windows(x: Node, fill: Any, p: dict) -> Node:
    """Node of shape out_shape + window_dimensions: the window elements (fill outside)."""
    out_shape = _out_shape(x.shape, **p)
    nd = x.ndim

    def at(ctx, idxs):
        pos, valid = _positions(x.shape, idxs[:nd], idxs[nd:], p)
        return E.where(valid, x.at(ctx, pos), E.const(fill, x.dtype))
    return graph.fn(out_shape + tuple(p["window_dimensions"]), x.dtype, at, (x,))


def _window_lowering(ir_op: str):
    @base.in_f32
    def lower(x: Node, **p) -> Node:
        nd = x.ndim
        w = _windows(x, REDUCE_IDENTITY[ir_op](x.dtype), p)
        return w.reduce(ir_op, tuple(range(nd, 2 * nd)))
    return lower


def _window_primitive(name: str, ir_op: str, kinds: str) -> core.Primitive:
    prim = core.Primitive(name)
    core.def_abstract_eval(prim)(_window_abstract(name, kinds))
    def_lowering(prim)(_window_lowering(ir_op))
    R.primitive_batchers[prim] = _window_batch(prim)
    return prim


def _window_batch(prim: core.Primitive):
    """A batch dim is one more window dim of size 1, stride 1, no padding."""
    def rule(args, dims, **p):
        d = dims[0]
        ins = lambda v, e: tuple(v[:d]) + (e,) + tuple(v[d:])  # noqa: E731
        q = dict(window_dimensions=ins(p["window_dimensions"], 1), window_strides=ins(p["window_strides"], 1),
                 padding=ins(p["padding"], (0, 0)), base_dilation=ins(p["base_dilation"], 1),
                 window_dilation=ins(p["window_dilation"], 1))
        extra = {k: v for k, v in p.items() if k not in q}
        return prim.bind(*args, **q, **extra), d
    return rule


reduce_window_sum_p = _window_primitive("reduce_window_sum", "add", base.NUM)
reduce_window_max_p = _window_primitive("reduce_window_max", "max", base.ORDERED)
reduce_window_min_p = _window_primitive("reduce_window_min", "min", base.ORDERED)


def _sum_transpose(ct, x, **p):
    """x_bar[q] = sum of ct[y] over windows covering q: a windowed sum of ct with strides and
    base dilation exchanged and padding lo' = kd-1-lo, sized to give exactly n outputs."""
    n_shape = x.aval.shape
    ct = R.instantiate_zeros(ct)
    m_shape = core.get_aval(ct).shape
    pads = [transpose_padding(n, m, k, s, lo, bd, wd) for n, m, k, s, (lo, _), bd, wd in zip(
        n_shape, m_shape, p["window_dimensions"], p["window_strides"], p["padding"], p["base_dilation"],
        p["window_dilation"])]
    return [reduce_window_sum_p.bind(ct, window_dimensions=p["window_dimensions"],
                                     window_strides=p["base_dilation"], padding=tuple(pads),
                                     base_dilation=p["window_strides"], window_dilation=p["window_dilation"])]


R.deflinear(reduce_window_sum_p, _sum_transpose)


# ---------------------------------------------------------------- max/min tangents
def _chosen_offset(x: Node, select: str, p: dict) -> Node:
    """Flat window offset of the first element attaining the window's max/min (NaN wins)."""
    nd = x.ndim
    if x.dtype in base.LOW_FLOATS:
        x = x.cast(dtypes.float32)
    w = _windows(x, REDUCE_IDENTITY[select](x.dtype), p)
    ext = w.reduce(select, tuple(range(nd, 2 * nd)))
    ext_b = ext.reshape(ext.shape + (1,) * nd).expand(w.shape)
    hit = graph.alu("eq", w, ext_b)
    if x.dtype.kind == "f":
        hit = graph.alu("or", hit, graph.alu("ne", w, w))
    wdims = tuple(p["window_dimensions"])

    def flat(ctx, idxs):
        f = E.const(0, _I32)
        for i, k in zip(idxs[nd:], wdims):
            f = f * k + i
        return f
    offset = graph.fn(w.shape, _I32, flat)
    total = 1
    for k in wdims:
        total *= k
    return graph.where(hit, offset, graph.const_like(offset, total)).reduce("min", tuple(range(nd, 2 * nd)))


def _unflat(f: E.Expr, wdims: Sequence[int]) -> list[E.Expr]:
    out = []
    for k in reversed(wdims):
        out.append(f % k if k != 1 else E.const(0, _I32))
        f = f // k if k != 1 else f
    return out[::-1]


window_gather_p = core.Primitive("window_gather")
window_scatter_p = core.Primitive("window_scatter")


@core.def_abstract_eval(window_gather_p)
def _gather_abstract(t, x, *, select, **p):
    return t.update(shape=_out_shape(x.shape, **p))


@core.def_abstract_eval(window_scatter_p)
def _scatter_abstract(ct, x, *, select, **p):
    return ct.update(shape=x.shape)


@def_lowering(window_gather_p)
def _gather_lower(t: Node, x: Node, *, select, **p) -> Node:
    """t_out[y] = t[position of the chosen window element] (0 if it is padding)."""
    chosen = _chosen_offset(x, select, p)
    wdims = tuple(p["window_dimensions"])
    total = 1
    for k in wdims:
        total *= k

    def at(ctx, idxs):
        f = chosen.at(ctx, idxs)
        fc = E.binary("min", f, E.const(max(total - 1, 0), _I32))
        pos, valid = _positions(x.shape, idxs, _unflat(fc, wdims), p)
        return E.where(valid & (f < total), t.at(ctx, pos), E.const(0, t.dtype))
    return graph.fn(chosen.shape, t.dtype, at, (chosen, t))


@def_lowering(window_scatter_p)
@base.in_f32
def _scatter_lower(ct: Node, x: Node, *, select, **p) -> Node:
    """x_bar[q] = sum over windows y whose chosen element is q of ct[y]: for each window
    offset k, y = (q*bd + lo - k*wd) / stride when that is an integer in range."""
    chosen = _chosen_offset(x, select, p)
    nd = x.ndim
    wdims = tuple(p["window_dimensions"])
    m_shape = ct.shape

    def at(ctx, idxs):
        q, ks = idxs[:nd], idxs[nd:]
        valid = E.const(True, dtypes.bool_)
        ys = []
        for qi, k, m, s, (lo, _), bd, wd in zip(q, ks, m_shape, p["window_strides"], p["padding"],
                                                p["base_dilation"], p["window_dilation"]):
            num = qi * bd + lo - k * wd
            yc = E.binary("max", E.binary("min", num, E.const(max(m * s - 1, 0), _I32)), E.const(0, _I32))
            valid = valid & (num >= 0) & (num < m * s) & E.binary("eq", yc % s, E.const(0, _I32))
            ys.append(yc // s)
        f = E.const(0, _I32)
        for k, n in zip(ks, wdims):
            f = f * n + k
        valid = valid & E.binary("eq", chosen.at(ctx, ys), f)
        return E.where(valid, ct.at(ctx, ys), E.const(0, ct.dtype))
    space = graph.fn(x.shape + wdims, ct.dtype, at, (chosen, ct))
    return space.reduce("add", tuple(range(nd, 2 * nd)))


R.primitive_jvps[window_gather_p] = linear_in_first_jvp(window_gather_p)
R.primitive_jvps[window_scatter_p] = linear_in_first_jvp(window_scatter_p)
R.primitive_transposes[window_gather_p] = lambda ct, t, x, **p: [
    window_scatter_p.bind(R.instantiate_zeros(ct), x, **p), None]
R.primitive_transposes[window_scatter_p] = lambda ct, c, x, **p: [
    window_gather_p.bind(R.instantiate_zeros(ct), x, **p), None]


def _pair_batch(prim: core.Primitive):
    def rule(args, dims, **p):
        size = batch_size(args, dims)
        a, x = (to_front(v, d, size) for v, d in zip(args, dims))
        batched = _window_batch(prim)
        return batched([a, x], [0, 0], **p)
    return rule


R.primitive_batchers[window_gather_p] = _pair_batch(window_gather_p)
R.primitive_batchers[window_scatter_p] = _pair_batch(window_scatter_p)


def _chooser_jvp(select: str):
    def jvp(t, x, **p):
        return window_gather_p.bind(t, x, select=select, **p)
    return jvp


R.defjvp(reduce_window_max_p, _chooser_jvp("max"))
R.defjvp(reduce_window_min_p, _chooser_jvp("min"))


# ---------------------------------------------------------------- wrappers
def _params(x: Any, window_dimensions, window_strides, padding, base_dilation, window_dilation) -> dict:
    nd = core.get_aval(x).ndim
    ones = (1,) * nd
    wd = tuple(int(d) for d in window_dimensions)
    strides = ones if window_strides is None else tuple(int(s) for s in window_strides)
    bdil = ones if base_dilation is None else tuple(int(s) for s in base_dilation)
    wdil = ones if window_dilation is None else tuple(int(s) for s in window_dilation)
    if isinstance(padding, str):
        padding = padtype_to_pads(core.get_aval(x).shape, tuple(dilate_dim(k, d) for k, d in zip(wd, wdil)),
                                  strides, padding)
    pads = tuple((int(a), int(b)) for a, b in padding)
    return dict(window_dimensions=wd, window_strides=strides, padding=pads, base_dilation=bdil,
                window_dilation=wdil)


def _wrapper(prim: core.Primitive):
    def fn(operand: Any, window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
           padding: Any = "VALID", base_dilation: Sequence[int] | None = None,
           window_dilation: Sequence[int] | None = None) -> Any:
        return prim.bind(operand, **_params(operand, window_dimensions, window_strides, padding,
                                            base_dilation, window_dilation))
    fn.__name__ = prim.name
    fn.__doc__ = f"`{prim.name}`: windowed reduction (padding reads as the identity)."
    return fn


reduce_window_sum = _wrapper(reduce_window_sum_p)
reduce_window_max = _wrapper(reduce_window_max_p)
reduce_window_min = _wrapper(reduce_window_min_p)
_BY_MONOID = {"add": reduce_window_sum, "max": reduce_window_max, "min": reduce_window_min}


def reduce_window(operand: Any, init_value: Any, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding: Any = "VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """`lax.reduce_window` for computations recognized as add, max or min.

    A non-identity `init_value` is combined into every window (XLA semantics)."""
    name = monoid_of(computation)
    if name not in _BY_MONOID or isinstance(operand, (tuple, list)):
        raise NotImplementedError("lax.reduce_window supports the computations add, max and min "
                                  "on a single operand")
    out = _BY_MONOID[name](operand, window_dimensions, window_strides, padding, base_dilation, window_dilation)
    return fold_init(name, out, init_value)
