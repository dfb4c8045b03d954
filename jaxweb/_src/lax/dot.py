"""`dot_general` and its wrappers (`lax.dot`, `lax.batch_matmul`).

The lowering is one kernel: both operands are permuted to (batch, free, contracting)
order, broadcast against each other over an index space (batch, lhs free, rhs free,
contracting) -- views, no copies -- multiplied, and summed over the contracting
dims. Output dims come in XLA's order: batch, lhs free, rhs free. Integer dots
wrap; bool dots are logical (and, or); float16/bfloat16 accumulate in float32.
"""
from __future__ import annotations

__all__ = ["dot_general", "dot", "batch_matmul", "DotDimensionNumbers", "dot_general_p"]

from typing import Any, Sequence

from .. import core, dtypes
from ..compiler import graph
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base
from .reductions import moveaxis
from . import elementwise as lax_ew
from . import structural as lax_st

DotDimensionNumbers = tuple  # ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))


def free_dims(ndim: int, *used: Sequence[int]) -> tuple[int, ...]:
    taken = set().union(*map(set, used))
    return tuple(i for i in range(ndim) if i not in taken)


def _out_dtype(lhs: core.ShapedArray, rhs: core.ShapedArray, preferred: Any) -> dtypes.DType:
    if preferred is not None:
        return dtypes.dtype(preferred)
    return lhs.dtype if lhs.dtype is rhs.dtype else dtypes.canonicalize_dtype(dtypes.promote_types(lhs.dtype, rhs.dtype))


dot_general_p = core.Primitive("dot_general")


def _check_dims(name: str, side: str, dims: Sequence[int], ndim: int) -> None:
    if any(not 0 <= d < ndim for d in dims):
        raise TypeError(f"dot_general requires {name} dimension numbers to be in range for the {side} "
                        f"operand of rank {ndim}, got {name}_dims={tuple(dims)}.")
    if len(set(dims)) != len(dims):
        raise TypeError(f"dot_general requires {side} {name} dimensions to be unique, got {tuple(dims)}.")


@core.def_abstract_eval(dot_general_p)
def _dot_general_abstract(lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    base.check_dtype("dot_general", lhs, base.ANY + "c")
    base.check_dtype("dot_general", rhs, base.ANY + "c")
    for side, aval, c, b in (("lhs", lhs, lc, lb), ("rhs", rhs, rc, rb)):
        _check_dims("contracting", side, c, aval.ndim)
        _check_dims("batch", side, b, aval.ndim)
        if set(c) & set(b):
            raise TypeError(f"dot_general requires {side} batch dimensions to be disjoint from contracting "
                            f"dimensions, got {side}_batch {tuple(b)} and {side}_contracting {tuple(c)}.")
    if len(lb) != len(rb):
        raise TypeError(f"dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, "
                        f"got lhs_batch {tuple(lb)} and rhs_batch {tuple(rb)}.")
    lbs, rbs = tuple(lhs.shape[d] for d in lb), tuple(rhs.shape[d] for d in rb)
    if lbs != rbs:
        raise TypeError(f"dot_general requires lhs batch dimensions and rhs batch dimensions to have "
                        f"the same shape, got {lbs} and {rbs}.")
    lcs, rcs = tuple(lhs.shape[d] for d in lc), tuple(rhs.shape[d] for d in rc)
    if lcs != rcs:
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                        f"got {lcs} and {rcs}.")
    shape = lbs + tuple(lhs.shape[d] for d in free_dims(lhs.ndim, lc, lb)) + \
        tuple(rhs.shape[d] for d in free_dims(rhs.ndim, rc, rb))
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return core.ShapedArray(shape, _out_dtype(lhs, rhs, preferred_element_type), weak)


@def_lowering(dot_general_p)
def _dot_general_lower(lhs: Node, rhs: Node, *, dimension_numbers, precision=None,
                       preferred_element_type=None) -> Node:
    (lc, rc), (lb, rb) = dimension_numbers
    out_dt = dtypes.dtype(preferred_element_type) if preferred_element_type is not None else (
        lhs.dtype if lhs.dtype is rhs.dtype else dtypes.canonicalize_dtype(dtypes.promote_types(lhs.dtype, rhs.dtype)))
    dt = dtypes.float32 if out_dt in base.LOW_FLOATS else out_dt
    if dt.kind == "c":
        return _complex_dot(lhs, rhs, dimension_numbers, dt).cast(out_dt)
    lf, rf = free_dims(lhs.ndim, lc, lb), free_dims(rhs.ndim, rc, rb)
    bs = tuple(lhs.shape[d] for d in lb)
    lfs, rfs = tuple(lhs.shape[d] for d in lf), tuple(rhs.shape[d] for d in rf)
    cs = tuple(lhs.shape[d] for d in lc)
    full = bs + lfs + rfs + cs
    a = lhs.cast(dt).permute(lb + lf + lc).reshape(bs + lfs + (1,) * len(rfs) + cs).expand(full)
    b = rhs.cast(dt).permute(rb + rf + rc).reshape(bs + (1,) * len(lfs) + rfs + cs).expand(full)
    caxes = tuple(range(len(full) - len(cs), len(full)))
    if dt.kind == "b":
        return graph.alu("and", a, b).reduce("max", caxes)
    return graph.alu("mul", a, b).reduce("add", caxes).cast(out_dt)


def _complex_dot(lhs: Node, rhs: Node, dimension_numbers, dt: dtypes.DType) -> Node:
    """A complex product as real ones (Ar Br - Ai Bi, Ar Bi + Ai Br), so that each is a
    real GEMM the backends' matmul routines handle; a real operand has no imaginary part."""
    part = dtypes.real_part_dtype(dt)

    def parts(x: Node) -> tuple:
        if x.dtype.kind != "c":
            return x.cast(part), None
        x = x.cast(dt)
        return graph.alu("real", x), graph.alu("imag", x)

    (ar, ai), (br, bi) = parts(lhs), parts(rhs)

    def dot(x: Node | None, y: Node | None) -> Node | None:
        if x is None or y is None:
            return None
        return _dot_general_lower(x, y, dimension_numbers=dimension_numbers)

    def combine(op: str, x: Node | None, y: Node | None) -> Node:
        if y is None:
            return x
        return y if x is None and op == "add" else graph.alu(op, x, y) if x is not None else graph.alu("neg", y)

    re = combine("sub", dot(ar, br), dot(ai, bi))
    im = combine("add", dot(ar, bi), dot(ai, br))
    return graph.make_complex(re, im)


# ---------------------------------------------------------------- transposes
def _ranks(dims: Sequence[int]) -> list[int]:
    """rank of each entry of `dims` among the sorted entries."""
    order = sorted(dims)
    return [order.index(d) for d in dims]


def _transpose_lhs(ct, x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    """x_bar = ct . y contracting the rhs free dims; then permuted into x's layout.

    dot_general(ct, y) has dims (batch, lhs free, rhs contracting in increasing order);
    x's dim lb[k] is result dim k, its free dims follow in order, and lc[k] pairs with
    rc[k], which sits at the rank of rc[k] among the sorted rhs contracting dims."""
    (lc, rc), (lb, rb) = dimension_numbers
    x_aval = x.aval
    y_aval = core.get_aval(y)
    nb = len(lb)
    lf = free_dims(x_aval.ndim, lc, lb)
    rf = free_dims(y_aval.ndim, rc, rb)
    ct_rf = tuple(range(nb + len(lf), nb + len(lf) + len(rf)))
    out = dot_general_p.bind(R.instantiate_zeros(ct), y, dimension_numbers=((ct_rf, rf), (tuple(range(nb)), rb)),
                             precision=precision, preferred_element_type=preferred_element_type)
    pos = {}
    for k, d in enumerate(lb):
        pos[d] = k
    for k, d in enumerate(lf):
        pos[d] = nb + k
    for d, r in zip(lc, _ranks(rc)):
        pos[d] = nb + len(lf) + r
    out = lax_st.transpose(out, tuple(pos[d] for d in range(x_aval.ndim)))
    return lax_ew.convert_element_type(out, x_aval.dtype)


def _swap_dn(dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    return (rc, lc), (rb, lb)


def _transpose_rhs(ct, x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    """The lhs rule for the swapped product y . x, whose output has the free dims swapped."""
    (lc, rc), (lb, rb) = dimension_numbers
    x_aval = core.get_aval(x)
    nb = len(lb)
    nlf = len(free_dims(x_aval.ndim, lc, lb))
    nrf = len(core.get_aval(ct).shape) - nb - nlf
    ct = R.instantiate_zeros(ct)
    ct_swapped = lax_st.transpose(ct, tuple(range(nb)) + tuple(range(nb + nlf, nb + nlf + nrf))
                                    + tuple(range(nb, nb + nlf)))
    return _transpose_lhs(ct_swapped, y, x, dimension_numbers=_swap_dn(dimension_numbers),
                          precision=precision, preferred_element_type=preferred_element_type)


R.defbilinear(dot_general_p, _transpose_lhs, _transpose_rhs)


# ---------------------------------------------------------------- batching
def _shift(dims: Sequence[int], bdim: int) -> tuple[int, ...]:
    return tuple(d + (d >= bdim) for d in dims)


def _dot_general_batch(args, dims, *, dimension_numbers, **params):
    """Both batched: a new leading batch dim. One batched: its batch dim is a free dim."""
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if ld is not None and rd is not None:
        lhs, rhs = moveaxis(lhs, ld, 0), moveaxis(rhs, rd, 0)
        dn = ((_shift(lc, 0), _shift(rc, 0)), ((0,) + _shift(lb, 0), (0,) + _shift(rb, 0)))
        return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), 0
    if ld is not None:
        dn = ((_shift(lc, ld), rc), (_shift(lb, ld), rb))
        lf = free_dims(core.get_aval(lhs).ndim, dn[0][0], dn[1][0])
        return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), len(lb) + lf.index(ld)
    dn = ((lc, _shift(rc, rd)), (lb, _shift(rb, rd)))
    nlf = core.get_aval(lhs).ndim - len(lc) - len(lb)
    rf = free_dims(core.get_aval(rhs).ndim, dn[0][1], dn[1][1])
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), len(lb) + nlf + rf.index(rd)


R.primitive_batchers[dot_general_p] = _dot_general_batch


# ---------------------------------------------------------------- wrappers
def _canon_dn(dimension_numbers) -> tuple:
    (lc, rc), (lb, rb) = dimension_numbers
    t = lambda ds: tuple(int(d) for d in ds)  # noqa: E731
    return (t(lc), t(rc)), (t(lb), t(rb))


def dot_general(lhs: Any, rhs: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None, *, out_sharding: Any = None) -> Any:
    """`lax.dot_general`: contract `lhs` and `rhs` per ((lc, rc), (lb, rb))."""
    pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=_canon_dn(dimension_numbers),
                              precision=None, preferred_element_type=pet)


def dot(lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None,
        *, out_sharding: Any = None) -> Any:
    """`lax.dot`: vector/matrix products of rank-1 and rank-2 operands."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    if la.ndim not in (1, 2) or ra.ndim not in (1, 2):
        raise TypeError(f"Incompatible shapes for dot: got {la.shape} and {ra.shape}.")
    return dot_general(lhs, rhs, (((la.ndim - 1,), (0,)), ((), ())), precision, preferred_element_type)


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
    """`lax.batch_matmul`: matmul over the last two dims, batched over the leading ones."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    if la.ndim < 2 or la.ndim != ra.ndim:
        raise ValueError(f"batch_matmul requires arguments of equal rank >= 2, got {la.ndim} and {ra.ndim}")
    nb = la.ndim - 2
    batch = tuple(range(nb))
    return dot_general(lhs, rhs, (((la.ndim - 1,), (nb,)), (batch, batch)), precision)
