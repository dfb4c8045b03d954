"""The rest of jax.lax on one device, each written with other lax operations as JAX writes it:
all_to_all and pswapaxes over a named vmap axis, convolution patches and locally-connected
convolutions, approximate top-k (exact here, as XLA computes it on CPU), ragged dots
(grouped matmuls), `stage` and `dce_sink`."""
from __future__ import annotations

__all__ = ["all_to_all", "all_to_all_p", "approx_max_k", "approx_min_k", "approx_top_k_p", "conv_general_dilated_local",
           "conv_general_dilated_patches", "dce_sink", "pswapaxes", "ragged_dot", "ragged_dot_general",
           "stage", "stage_p"]

import math
from typing import Any, Sequence

from .. import core, dtypes
from ..interpreters import rules as R
from ..tree_util import tree_map
from . import structural as S
from .base import ANY, unop
from .collectives import _collective, _size
from .composite import decomposed_primitive
from .convolution import conv_dimension_numbers, conv_general_dilated
from .dot import dot_general
from .cumulative import cumsum
from .elementwise import asarray, broadcasted_iota, convert_element_type, eq, mul, neg
from .helpers import RaggedDotDimensionNumbers
from .parallel import _names
from .sorting import top_k


# ---------------------------------------------------------------- all_to_all
def _a2a_abstract(x, *, axis_name, split_axis, concat_axis, tiled):
    n = _size(axis_name)
    shape = list(x.shape)
    if shape[split_axis] % n if tiled else shape[split_axis] != n:
        raise ValueError(f"all_to_all: the split axis {split_axis} of {x.str_short()} must "
                         f"{'be divisible by' if tiled else 'equal'} the axis size {n}")
    if tiled:
        shape[split_axis] //= n
        shape[concat_axis] *= n
    else:
        del shape[split_axis]
        shape.insert(concat_axis, n)
    return x.update(shape=tuple(shape))


def _moveaxis(x: Any, src: int, dst: int) -> Any:
    nd = core.get_aval(x).ndim
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return S.transpose(x, tuple(perm))


def _a2a_members(xs, size, *, split_axis, concat_axis, tiled):
    """Member i receives chunk i of every member j's split axis, in order j along concat."""
    shape = core.get_aval(xs).shape
    if not tiled:  # xs[j][..., i, ...] -> out[i][..., j (at concat), ...]
        return _moveaxis(_moveaxis(xs, 1 + split_axis, 0), 1, 1 + concat_axis)
    c = shape[1 + split_axis] // size
    xs = S.reshape(xs, shape[:1 + split_axis] + (size, c) + shape[2 + split_axis:])
    ys = _moveaxis(xs, 1 + split_axis, 0)  # (i, j, per-member axes with the chunk of size c)
    ys = _moveaxis(ys, 1, 1 + concat_axis)  # j just before the concat axis, then merged with it
    ys_shape = core.get_aval(ys).shape
    merged = ys_shape[1 + concat_axis] * ys_shape[2 + concat_axis]
    return S.reshape(ys, ys_shape[:1 + concat_axis] + (merged,) + ys_shape[3 + concat_axis:])


all_to_all_p = _collective("all_to_all", _a2a_abstract, _a2a_members)
R.deflinear(all_to_all_p, lambda ct, x, *, axis_name, split_axis, concat_axis, tiled: [
    all_to_all_p.bind(R.instantiate_zeros(ct), axis_name=axis_name, split_axis=concat_axis,
                      concat_axis=split_axis, tiled=tiled)])


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *, axis_index_groups: Any = None,
               tiled: bool = False) -> Any:
    """`lax.all_to_all` over a named vmap axis: each member splits x along `split_axis` into
    one chunk per member and receives every member's chunk for it, stacked (or, tiled,
    concatenated) along `concat_axis`."""
    if axis_index_groups is not None:
        raise NotImplementedError("all_to_all: axis_index_groups is not supported")
    names = _names(axis_name)

    def one(v: Any) -> Any:
        nd = core.get_aval(v).ndim
        split = split_axis % nd
        concat = concat_axis % (nd if tiled else nd)
        return all_to_all_p.bind(v, axis_name=names, split_axis=split, concat_axis=concat, tiled=bool(tiled))
    return tree_map(one, x)


def pswapaxes(x: Any, axis_name: Any, axis: int, *, axis_index_groups: Any = None) -> Any:
    """`lax.pswapaxes`: swap the named (vmapped) axis with positional `axis` of x
    (all_to_all with split and concat both `axis`)."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# ---------------------------------------------------------------- convolution patches
def conv_general_dilated_patches(lhs: Any, filter_shape: Sequence[int], window_strides: Sequence[int],
                                 padding: Any, lhs_dilation: Any = None, rhs_dilation: Any = None,
                                 dimension_numbers: Any = None, precision: Any = None,
                                 preferred_element_type: Any = None) -> Any:
    """`lax.conv_general_dilated_patches`: the patches a convolution with `filter_shape`
    would see, flattened into the feature axis (channel-major: C * prod(filter_shape))
    — a grouped convolution with a one-hot kernel, as JAX computes it."""
    lhs = asarray(lhs)
    filter_shape = tuple(int(f) for f in filter_shape)
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(lhs.shape, (1, 1) + filter_shape, dimension_numbers)
    k = math.prod(filter_shape)
    c = lhs.shape[lhs_spec[1]]
    eye = convert_element_type(eq(broadcasted_iota(dtypes.int32, (k, k), 0),
                                  broadcasted_iota(dtypes.int32, (k, k), 1)), lhs.dtype)
    rhs = S.reshape(S.broadcast_in_dim(eye, (c, k, k), (1, 2)), (c * k, 1) + filter_shape)
    nd = len(filter_shape) + 2
    perm = [0] * nd  # place O and I where rhs_spec says (the spatial axes stay in order)
    rest = iter(range(2, nd))
    for pos in range(nd):
        perm[pos] = 0 if pos == rhs_spec[0] else 1 if pos == rhs_spec[1] else next(rest)
    rhs = S.transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                (lhs_spec, rhs_spec, out_spec), feature_group_count=c,
                                precision=precision, preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                               filter_shape: Sequence[int], lhs_dilation: Any = None, rhs_dilation: Any = None,
                               dimension_numbers: Any = None, precision: Any = None) -> Any:
    """`lax.conv_general_dilated_local`: a locally connected (unshared) convolution: `rhs`
    holds one kernel per output position; its input-feature axis is C * prod(filter_shape)."""
    lhs = asarray(lhs)
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation,
                                           rhs_dilation, dimension_numbers)
    _, rhs_spec, out_spec = conv_dimension_numbers(lhs.shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    lhs_b = out_spec[2:]
    rhs_b = [rhs_spec[2:][i] for i in sorted(range(len(lhs_b)), key=lambda k: lhs_b[k])]
    dn = (([out_spec[1]], [rhs_spec[1]]), (sorted(lhs_b), rhs_b))
    out = dot_general(patches, rhs, dn, precision=precision)
    nd = core.get_aval(out).ndim  # (spatial..., N, O) -> out_spec's positions
    order = [nd - 2, nd - 1] + list(range(nd - 2))
    src = {out_spec[0]: order[0], out_spec[1]: order[1]}
    rest = iter(order[2:])
    return S.transpose(out, tuple(src[p] if p in src else next(rest) for p in range(nd)))


# ---------------------------------------------------------------- approximate top-k
def _approx_top_k(operand: Any, *, k: int, reduction_dimension: int, recall_target: float, is_max_k: bool,
                  reduction_input_size_override: int, aggregate_to_topk: bool) -> list:
    nd = core.get_aval(operand).ndim
    dim = reduction_dimension
    moved = _moveaxis(operand, dim, nd - 1) if dim != nd - 1 else operand
    vals, idx = top_k(moved if is_max_k else neg(moved), k)
    if not is_max_k:
        vals = neg(vals)
    if dim != nd - 1:
        vals, idx = _moveaxis(vals, nd - 1, dim), _moveaxis(idx, nd - 1, dim)
    return [vals, idx]


approx_top_k_p = decomposed_primitive("approx_top_k", _approx_top_k, multiple_results=True)


def _approx_k(operand: Any, k: int, reduction_dimension: int, recall_target: float,
              reduction_input_size_override: int, aggregate_to_topk: bool, is_max_k: bool) -> list:
    x = asarray(operand)
    dim = reduction_dimension % x.ndim
    if not 0 <= k <= x.shape[dim]:
        raise ValueError(f"k must be in [0, {x.shape[dim]}], got {k}")
    return approx_top_k_p.bind(x, k=int(k), reduction_dimension=dim, recall_target=float(recall_target),
                               is_max_k=is_max_k, reduction_input_size_override=int(reduction_input_size_override),
                               aggregate_to_topk=bool(aggregate_to_topk))


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True) -> list:
    """`lax.approx_max_k`: the k largest values and their indices along a dimension — exact
    here, as XLA computes it off TPU (recall 1 >= any recall_target)."""
    return _approx_k(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
                     aggregate_to_topk, True)


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True) -> list:
    """`lax.approx_min_k`: the k smallest values and their indices (exact, as approx_max_k)."""
    return _approx_k(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
                     aggregate_to_topk, False)


# ---------------------------------------------------------------- ragged dots
_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def _group_mask(group_sizes: Any, n: int, dtype: Any) -> Any:
    """(groups, n): 1 where position i of the ragged axis belongs to group g (consecutive
    runs of group_sizes[g] positions; positions past the total belong to no group)."""
    sizes = convert_element_type(asarray(group_sizes), dtypes.int32)
    g = core.get_aval(sizes).shape[0]
    ends = cumsum(sizes, axis=0)
    starts = ends - sizes
    pos = broadcasted_iota(dtypes.int32, (g, n), 1)
    lo = S.broadcast_in_dim(starts, (g, n), (0,))
    hi = S.broadcast_in_dim(ends, (g, n), (0,))
    return convert_element_type((pos >= lo) & (pos < hi), dtype)


def ragged_dot_general(lhs: Any, rhs: Any, group_sizes: Any, ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
                       precision: Any = None, preferred_element_type: Any = None, group_offset: Any = None,
                       out_sharding: Any = None) -> Any:
    """`lax.ragged_dot_general` for a ragged non-contracting lhs axis (rhs has a group axis:
    each run of rows uses its group's rhs) or a ragged contracting axis (no rhs group axis:
    the output gains a leading group axis, each group contracting its run)."""
    if group_offset is not None:
        raise NotImplementedError("ragged_dot_general: group_offset is not supported (single device)")
    lhs, rhs = asarray(lhs), asarray(rhs)
    dn = ragged_dot_dimension_numbers
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    (ragged,), groups = dn.lhs_ragged_dimensions, dn.rhs_group_dimensions
    n = lhs.shape[ragged]
    g = core.get_aval(asarray(group_sizes)).shape[-1]
    if ragged in lc:  # ragged contracting axis: out[g] = dot(lhs masked to group g's run, rhs)
        mask = _group_mask(group_sizes, n, lhs.dtype)
        outs = []
        for i in range(g):
            m = S.broadcast_in_dim(S.index_in_dim(mask, i, 0, keepdims=False), lhs.shape, (ragged,))
            outs.append(dot_general(mul(lhs, m), rhs, ((lc, rc), (lb, rb)), precision, preferred_element_type))
        return S.concatenate([S.expand_dims(o, (0,)) for o in outs], 0)
    if ragged in lb or len(groups) != 1:
        raise NotImplementedError("ragged_dot_general: a ragged batch axis is not supported")
    (gd,) = groups
    rc2 = [d - (d > gd) for d in rc]
    rb2 = [d - (d > gd) for d in rb]
    out = None
    for i in range(g):
        part = dot_general(lhs, S.index_in_dim(rhs, i, gd, keepdims=False), ((lc, rc2), (lb, rb2)),
                           precision, preferred_element_type)
        # the ragged axis's position among the output's (batch, lhs free, rhs free) axes
        free = [d for d in range(lhs.ndim) if d not in lc and d not in lb]
        at = len(lb) + free.index(ragged)
        mask = _group_mask(group_sizes, n, core.get_aval(part).dtype)
        m = S.broadcast_in_dim(S.index_in_dim(mask, i, 0, keepdims=False), core.get_aval(part).shape, (at,))
        out = mul(part, m) if out is None else out + mul(part, m)
    return out


def ragged_dot(lhs: Any, rhs: Any, group_sizes: Any, precision: Any = None, preferred_element_type: Any = None,
               group_offset: Any = None, out_sharding: Any = None) -> Any:
    """`lax.ragged_dot`: lhs (m, k) rows in consecutive groups of group_sizes, each times its
    group's rhs[g] (k, n); rows past sum(group_sizes) give zeros."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type, group_offset)


# ---------------------------------------------------------------- stage, dce_sink
stage_p = unop("stage", ANY + "c", lambda x, **_: x)
R.defvectorized(stage_p)
R.deflinear(stage_p, lambda ct, x: [ct])


def stage(x: Any) -> Any:
    """`lax.stage`: the identity, lifting a Python scalar or host array to a jax Array (a
    traced value passes through unchanged)."""
    return x if isinstance(x, core.Tracer) else stage_p.bind(asarray(x))


def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
    """`lax.dce_sink`: marks values as used so dead-code elimination keeps their computation
    (jaxweb computes what a program's outputs and effects read; nothing is returned)."""
    tree_map(asarray, val)
    return None
