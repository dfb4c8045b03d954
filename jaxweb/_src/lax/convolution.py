"""`conv_general_dilated` (any number of spatial dims) and its wrappers.

The lowering is one reduction kernel over (input features of a group, window):
for output position y and window offset k the input position in the dilated,
padded lhs is `p = y*stride + k*rhs_dilation - pad_lo`; it is a real element when
0 <= p < dilated size and p is a multiple of lhs_dilation (clamped so a masked
read never leaves the buffer). Layouts never move: dimension numbers only decide
which loop index addresses which operand dim.

Transposes (derived in the comments of the rules) are convolutions again: the
lhs cotangent is a conv of the output cotangent with the spatially flipped,
feature-swapped kernel (lhs_dilation = strides); the rhs cotangent is a conv of
lhs and the output cotangent with batch and feature roles exchanged.
"""
from __future__ import annotations

__all__ = ["conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose",
           "ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "conv_dimension_numbers",
           "padtype_to_pads", "conv_general_dilated_p"]

from typing import Any, NamedTuple, Sequence

from .. import core, dtypes
from ..compiler import expr as E
from ..compiler import graph
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base
from . import elementwise as lax_ew
from . import structural as lax_st


class ConvDimensionNumbers(NamedTuple):
    """Dim indices: lhs (batch, feature, spatial...), rhs (out feat, in feat, spatial...), out."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


ConvGeneralDilatedDimensionNumbers = Any  # None, ConvDimensionNumbers or a triple of specs


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int], dimension_numbers: Any
                           ) -> ConvDimensionNumbers:
    """Normalize None / ConvDimensionNumbers / string triples like ('NHWC', 'HWIO', 'NHWC')."""
    nd = len(lhs_shape)
    if len(rhs_shape) != nd:
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {nd} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(nd))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers))
    lhs, rhs, out = dimension_numbers
    if not isinstance(lhs, str):
        return ConvDimensionNumbers(tuple(lhs), tuple(rhs), tuple(out))
    for spec, n in ((lhs, "lhs"), (rhs, "rhs"), (out, "out")):
        if len(spec) != nd:
            raise TypeError(f"convolution dimension_numbers[{('lhs', 'rhs', 'out').index(n)}] must have "
                            f"len equal to the ndim of lhs and rhs, got {len(spec)} for lhs and rhs shapes "
                            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
    spatial = [c for c in rhs if c not in "OI"]
    return ConvDimensionNumbers(
        (lhs.index("N"), lhs.index("C")) + tuple(lhs.index(c) for c in spatial),
        (rhs.index("O"), rhs.index("I")) + tuple(rhs.index(c) for c in spatial),
        (out.index("N"), out.index("C")) + tuple(out.index(c) for c in spatial))


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int], window_strides: Sequence[int],
                    padding: Any) -> tuple[tuple[int, int], ...]:
    """'SAME' / 'SAME_LOWER' / 'VALID' (or explicit pairs) as (lo, hi) pairs per spatial dim."""
    if not isinstance(padding, str):
        pads = tuple((int(lo), int(hi)) for lo, hi in padding)
        if len(pads) != len(in_shape):
            raise ValueError(f"padding must have length {len(in_shape)}, got {len(pads)}")
        return pads
    kind = padding.upper()
    if kind == "VALID":
        return ((0, 0),) * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"Unknown padding type: {padding}.")
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        out = -(-n // s)
        total = max((out - 1) * s + k - n, 0)
        small = total // 2
        pads.append((small, total - small) if kind == "SAME" else (total - small, small))
    return tuple(pads)


def dilate_dim(n: int, d: int) -> int:
    return 0 if n == 0 else 1 + d * (n - 1)


def conv_out_dim(n: int, k: int, stride: int, pad: tuple[int, int], ld: int, rd: int) -> int:
    padded = dilate_dim(n, ld) + pad[0] + pad[1]
    kd = dilate_dim(k, rd)
    return 0 if padded < kd else (padded - kd) // stride + 1


conv_general_dilated_p = core.Primitive("conv_general_dilated")


def _spatial(shape: Sequence[int], spec: Sequence[int]) -> tuple[int, ...]:
    return tuple(shape[d] for d in spec[2:])


@core.def_abstract_eval(conv_general_dilated_p)
def _conv_abstract(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                   feature_group_count, batch_group_count, precision=None, preferred_element_type=None):
    ls, rs, os_ = dimension_numbers
    base.check_dtype("conv_general_dilated", lhs, base.NUM)
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"conv_general_dilated requires arguments to have the same dtypes, got "
                        f"{lhs.dtype.name}, {rhs.dtype.name}.")
    G, B = feature_group_count, batch_group_count
    n, c = lhs.shape[ls[0]], lhs.shape[ls[1]]
    o, i = rhs.shape[rs[0]], rhs.shape[rs[1]]
    if G > 1 and B > 1:
        raise ValueError(f"At most one of batch_group_count and feature_group_count may be > 1, got "
                         f"batch_group_count={B} and feature_group_count={G}")
    if c != i * G:
        raise ValueError(f"conv_general_dilated lhs feature dimension size divided by feature_group_count "
                         f"must equal the rhs input feature dimension size, but {c} // {G} != {i}.")
    if o % G or o % B:
        g = G if o % G else B
        name = "feature_group_count" if o % G else "batch_group_count"
        raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a multiple of "
                         f"{name}, but {o} is not a multiple of {g}.")
    if n % B:
        raise ValueError(f"conv_general_dilated lhs batch dimension size must be evenly divisible by "
                         f"batch_group_count, but got lhs batch dimension size {n} and batch_group_count {B}.")
    nsp = lhs.ndim - 2
    for name, v in (("window_strides", window_strides), ("padding", padding),
                    ("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
        if len(v) != nsp:
            raise ValueError(f"conv_general_dilated {name} must have length {nsp}, got {len(v)}.")
    out = _out_shape(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation, rhs_dilation,
                     dimension_numbers, B)
    dt = dtypes.dtype(preferred_element_type) if preferred_element_type is not None else lhs.dtype
    return core.ShapedArray(out, dt, lhs.weak_type and rhs.weak_type)


def _out_shape(lhs_shape, rhs_shape, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
               batch_group_count) -> tuple[int, ...]:
    """The output shape, in the out spec's layout."""
    ls, rs, os_ = dimension_numbers
    spatial = tuple(conv_out_dim(a, k, s, p, ld, rd) for a, k, s, p, ld, rd in zip(
        _spatial(lhs_shape, ls), _spatial(rhs_shape, rs), window_strides, padding, lhs_dilation, rhs_dilation))
    out = [0] * len(lhs_shape)
    out[os_[0]], out[os_[1]] = lhs_shape[ls[0]] // batch_group_count, rhs_shape[rs[0]]
    for d, v in zip(os_[2:], spatial):
        out[d] = v
    return tuple(out)


def _clamp(e: E.Expr, hi: int) -> E.Expr:
    zero = E.const(0, dtypes.int32)
    return E.binary("max", E.binary("min", e, E.const(max(hi, 0), dtypes.int32)), zero)


def _complex_conv(lhs: graph.Node, rhs: graph.Node, dt: dtypes.DType, params: dict) -> graph.Node:
    """A complex convolution as four real ones (each the backends' real conv/GEMM path)."""
    lr, li, rr, ri = (graph.alu(p, x.cast(dt)) for x in (lhs, rhs) for p in ("real", "imag"))
    conv = lambda a, b: _conv_lower(a, b, **params)  # noqa: E731
    re = graph.alu("sub", conv(lr, rr), conv(li, ri))
    im = graph.alu("add", conv(lr, ri), conv(li, rr))
    return graph.make_complex(re, im)


def _kernel_operand(rhs: "graph.Node", rs: Sequence[int]) -> tuple:
    """The kernel as the conv reads it, with its dimension numbers. A view of a buffer that
    is not contiguous in (O, I, K...) order — the flipped, regrouped kernel of a data
    gradient, HWIO weights — becomes a contiguous (O, I, K...) copy (one small kernel):
    a plain load is what lets the backend's conv and GEMM routines take the conv (a
    stride-2 conv's data gradient ran as a generic reduction 15x slower). Computed
    kernels stay fused (a copy would recompute them per element)."""
    canon = rhs.permute(tuple(rs))
    if rhs.op != "view" or rhs.src[0].op != "buffer" or canon.op != "view" or canon.arg.is_contiguous:
        return rhs, rs
    copy = graph.fn(canon.shape, canon.dtype, lambda ctx, idxs: canon.at(ctx, idxs), (canon,), "conv_kernel",
                    buffered=True)
    return copy, tuple(range(rhs.ndim))


@def_lowering(conv_general_dilated_p)
def _conv_lower(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                feature_group_count, batch_group_count, precision=None, preferred_element_type=None):
    ls, rs, os_ = dimension_numbers
    out_dt = dtypes.dtype(preferred_element_type) if preferred_element_type is not None else lhs.dtype
    dt = dtypes.float32 if out_dt in base.LOW_FLOATS else out_dt
    if dt.kind == "c":
        return _complex_conv(lhs, rhs, dt, dict(
            window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
            rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
            feature_group_count=feature_group_count, batch_group_count=batch_group_count)).cast(out_dt)
    nd = lhs.ndim
    rhs, rs = _kernel_operand(rhs, rs)
    n, o, i = lhs.shape[ls[0]], rhs.shape[rs[0]], rhs.shape[rs[1]]
    ks = _spatial(rhs.shape, rs)
    dil_in = tuple(dilate_dim(a, ld) for a, ld in zip(_spatial(lhs.shape, ls), lhs_dilation))
    out_shape = _out_shape(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation, rhs_dilation,
                           (ls, rs, os_), batch_group_count)
    o_per_fgroup, o_per_bgroup = o // feature_group_count, o // batch_group_count
    n_per_bgroup = n // batch_group_count

    def body(ctx, idxs):
        on, oo, ys = idxs[os_[0]], idxs[os_[1]], [idxs[d] for d in os_[2:]]
        c, kk = idxs[nd], idxs[nd + 1:]
        feat = c if feature_group_count == 1 else (oo // o_per_fgroup) * i + c
        batch = on if batch_group_count == 1 else (oo // o_per_bgroup) * n_per_bgroup + on
        valid = E.const(True, dtypes.bool_)
        lidx = [None] * nd
        lidx[ls[0]], lidx[ls[1]] = batch, feat
        for d, y, k, s, (lo, _), ld, rd, size in zip(ls[2:], ys, kk, window_strides, padding,
                                                     lhs_dilation, rhs_dilation, dil_in):
            p = y * s + k * rd - lo
            pc = _clamp(p, size - 1)
            valid = valid & (p >= 0) & (p < size)
            if ld != 1:
                valid = valid & E.binary("eq", pc % ld, E.const(0, dtypes.int32))
                pc = pc // ld
            lidx[d] = pc
        ridx = [None] * nd
        ridx[rs[0]], ridx[rs[1]] = oo, c
        for d, k in zip(rs[2:], kk):
            ridx[d] = k
        prod = E.binary("mul", E.cast(lhs.at(ctx, lidx), dt), E.cast(rhs.at(ctx, ridx), dt))
        return E.where(valid, prod, E.const(0, dt))

    space = graph.fn(out_shape + (i,) + ks, dt, body, (lhs, rhs))
    return space.reduce("add", tuple(range(nd, len(space.shape)))).cast(out_dt)


# ---------------------------------------------------------------- transposes
def _regroup_kernel(w: Any, groups: int) -> Any:
    """(O, I, K..) canonical kernel -> (groups*I, O/groups, K..), spatially flipped.

    Output-feature block g of the forward kernel becomes input block g of the
    transposed one: w'[g*I + c, j] = w[g*Og + j, c]."""
    o, i, *ks = core.get_aval(w).shape
    w = lax_st.reshape(w, (groups, o // groups, i, *ks))
    w = lax_st.transpose(w, (0, 2, 1) + tuple(range(3, 3 + len(ks))))
    w = lax_st.reshape(w, (groups * i, o // groups, *ks))
    return lax_st.rev(w, tuple(range(2, 2 + len(ks))))


def transpose_padding(n: int, m: int, k: int, stride: int, lo: int, in_dil: int, k_dil: int) -> tuple[int, int]:
    """Padding of the stride-dilated cotangent (m outputs) in the windowed op that transposes
    a forward one (n inputs dilated by in_dil, window k dilated by k_dil, padding lo):
    the mirrored low padding kd-1-lo, and a high padding that yields exactly n outputs
    when the transposed op strides by in_dil."""
    kd = dilate_dim(k, k_dil)
    new_lo = kd - 1 - lo
    return new_lo, (n - 1) * in_dil + kd - dilate_dim(m, stride) - new_lo


def _conv_transpose_lhs(ct, x, w, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision=None,
                        preferred_element_type=None):
    """Per spatial dim (dilated input D, kernel extent kd, forward output m):
    xd_bar[p] = sum_k' ctd[p + k'*rd - (kd-1-lo)] wflip[k'], with ct dilated by the
    stride; sampling p at multiples of lhs_dilation (the transposed conv's stride)
    gives x_bar, and pad_hi makes exactly n outputs."""
    ls, rs, os_ = dimension_numbers
    x_aval = x.aval
    ct = R.instantiate_zeros(ct)
    ins, ks = _spatial(x_aval.shape, ls), _spatial(core.get_aval(w).shape, rs)
    outs = _spatial(core.get_aval(ct).shape, os_)
    pads = [transpose_padding(n, m, k, s, lo, ld, rd) for n, k, m, s, (lo, _), ld, rd in zip(
        ins, ks, outs, window_strides, padding, lhs_dilation, rhs_dilation)]
    groups = max(feature_group_count, batch_group_count)
    w_t = _regroup_kernel(lax_st.transpose(w, rs), groups)
    iota = tuple(range(x_aval.ndim))
    common = dict(window_strides=tuple(lhs_dilation), padding=tuple(pads), lhs_dilation=tuple(window_strides),
                  rhs_dilation=tuple(rhs_dilation), batch_group_count=1, precision=precision,
                  preferred_element_type=preferred_element_type)
    if batch_group_count == 1:
        out = conv_general_dilated_p.bind(ct, w_t, dimension_numbers=ConvDimensionNumbers(os_, iota, ls),
                                          feature_group_count=feature_group_count, **common)
        return lax_ew.convert_element_type(out, x_aval.dtype)
    # batch groups: z[n, b*C + c] = x_bar[b*Nb + n, c]; regroup the batch back.
    z = conv_general_dilated_p.bind(ct, w_t, dimension_numbers=ConvDimensionNumbers(os_, iota, iota),
                                    feature_group_count=batch_group_count, **common)
    nb, bc, *sp = core.get_aval(z).shape
    B = batch_group_count
    z = lax_st.reshape(z, (nb, B, bc // B, *sp))
    z = lax_st.transpose(z, (1, 0) + tuple(range(2, 3 + len(sp))))
    z = lax_st.reshape(z, (B * nb, bc // B, *sp))
    inv = [0] * x_aval.ndim
    for k, d in enumerate(ls):
        inv[d] = k
    return lax_ew.convert_element_type(lax_st.transpose(z, tuple(inv)), x_aval.dtype)


def _conv_transpose_rhs(ct, x, w, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision=None,
                        preferred_element_type=None):
    """w_bar[o, c, k] = sum_{n,y} x[n, ., k*rd + y*s - lo] ct[n, o, y]: a conv of x (batch and
    feature roles swapped) with ct as kernel, strides rd, rhs_dilation s; feature groups of
    the forward conv become batch groups here and vice versa."""
    ls, rs, os_ = dimension_numbers
    w_aval = w.aval
    x_aval = core.get_aval(x)
    ct = R.instantiate_zeros(ct)
    ins, ks = _spatial(x_aval.shape, ls), _spatial(w_aval.shape, rs)
    outs = _spatial(core.get_aval(ct).shape, os_)
    pads = []
    for n, k, m, s, (lo, _), ld, rd in zip(ins, ks, outs, window_strides, padding, lhs_dilation, rhs_dilation):
        pads.append((lo, (k - 1) * rd + dilate_dim(m, s) - dilate_dim(n, ld) - lo))
    dn = ConvDimensionNumbers((ls[1], ls[0]) + tuple(ls[2:]), (os_[1], os_[0]) + tuple(os_[2:]),
                              (rs[1], rs[0]) + tuple(rs[2:]))
    out = conv_general_dilated_p.bind(
        x, ct, window_strides=tuple(rhs_dilation), padding=tuple(pads), lhs_dilation=tuple(lhs_dilation),
        rhs_dilation=tuple(window_strides), dimension_numbers=dn, feature_group_count=batch_group_count,
        batch_group_count=feature_group_count, precision=precision, preferred_element_type=preferred_element_type)
    return lax_ew.convert_element_type(out, w_aval.dtype)


R.defbilinear(conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)


# ---------------------------------------------------------------- batching
def _fold(x: Any, vdim: int, dim: int, groups: int) -> Any:
    """Merge vmapped axis `vdim` into axis `dim` (indexed without vdim), inside each of
    `groups` outer blocks: (groups, r) -> (groups, v, r) flattened."""
    x = lax_st.transpose(x, _move_order(core.get_aval(x).ndim, vdim, dim))  # (.., v, T, ..) with v at dim
    shape = list(core.get_aval(x).shape)
    v, t = shape[dim], shape[dim + 1]
    x = lax_st.reshape(x, tuple(shape[:dim]) + (v, groups, t // groups) + tuple(shape[dim + 2:]))
    nd = len(shape) + 1
    order = list(range(nd))
    order[dim], order[dim + 1] = dim + 1, dim
    x = lax_st.transpose(x, tuple(order))
    return lax_st.reshape(x, tuple(shape[:dim]) + (v * t,) + tuple(shape[dim + 2:]))


def _move_order(nd: int, src: int, dst: int) -> tuple[int, ...]:
    order = [i for i in range(nd) if i != src]
    order.insert(dst, src)
    return tuple(order)


def _unfold(y: Any, dim: int, groups: int, v: int) -> Any:
    """Inverse of `_fold`: split axis `dim` (groups, v, r) and put v in front, at `dim`."""
    shape = list(core.get_aval(y).shape)
    t = shape[dim] // v
    y = lax_st.reshape(y, tuple(shape[:dim]) + (groups, v, t // groups) + tuple(shape[dim + 1:]))
    order = list(range(len(shape) + 2))
    order[dim], order[dim + 1] = dim + 1, dim
    y = lax_st.transpose(y, tuple(order))
    return lax_st.reshape(y, tuple(shape[:dim]) + (v, t) + tuple(shape[dim + 1:]))


def _conv_batch(args, dims, **params):
    (lhs, rhs), (ld, rd) = args, dims
    ls, rs, os_ = params["dimension_numbers"]
    G, B = params["feature_group_count"], params["batch_group_count"]
    if ld is not None and rd is None:  # fold into the lhs batch, within batch groups
        v = core.get_aval(lhs).shape[ld]
        out = conv_general_dilated_p.bind(_fold(lhs, ld, ls[0], B), rhs, **params)
        return _unfold(out, os_[0], 1, v), os_[0]
    if rd is not None and ld is None:  # fold into the rhs output features, within groups
        v = core.get_aval(rhs).shape[rd]
        out = conv_general_dilated_p.bind(lhs, _fold(rhs, rd, rs[0], G * B), **params)
        return _unfold(out, os_[1], G * B, v), os_[1]
    v = core.get_aval(lhs).shape[ld]  # both: the vmapped axis becomes extra groups
    rhs = _fold(rhs, rd, rs[0], 1)
    if B == 1:
        lhs = _fold(lhs, ld, ls[1], 1)
        out = conv_general_dilated_p.bind(lhs, rhs, **dict(params, feature_group_count=G * v))
    else:
        lhs = _fold(lhs, ld, ls[0], 1)
        out = conv_general_dilated_p.bind(lhs, rhs, **dict(params, batch_group_count=B * v))
    return _unfold(out, os_[1], 1, v), os_[1]


R.primitive_batchers[conv_general_dilated_p] = _conv_batch


# ---------------------------------------------------------------- wrappers
def _tuple(v: Any, n: int, default: int = 1) -> tuple[int, ...]:
    return (default,) * n if v is None else tuple(int(a) for a in v)


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                         lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None, out_sharding: Any = None) -> Any:
    """`lax.conv_general_dilated`: a general n-d convolution (cross-correlation, as XLA)."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    nsp = la.ndim - 2
    rd = _tuple(rhs_dilation, nsp)
    ld = _tuple(lhs_dilation, nsp)
    strides = _tuple(window_strides, nsp)
    if isinstance(padding, str):
        if any(d != 1 for d in ld):
            raise ValueError("String padding is not implemented for transposed convolution using this op. "
                             "Please either exactly specify the required padding or use conv_transpose.")
        eff = tuple(dilate_dim(k, d) for k, d in zip(_spatial(ra.shape, dn.rhs_spec), rd))
        padding = padtype_to_pads(_spatial(la.shape, dn.lhs_spec), eff, strides, padding)
    pads = tuple((int(a), int(b)) for a, b in padding)
    pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=strides, padding=pads, lhs_dilation=ld, rhs_dilation=rd,
        dimension_numbers=dn, feature_group_count=int(feature_group_count),
        batch_group_count=int(batch_group_count), precision=None, preferred_element_type=pet)


def conv(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any, precision: Any = None,
         preferred_element_type: Any = None) -> Any:
    """`lax.conv`: NCHW/OIHW convolution without dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                              lhs_dilation: Sequence[int] | None, rhs_dilation: Sequence[int] | None,
                              precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`lax.conv_with_general_padding`: NCHW/OIHW convolution with dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                precision=precision, preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: str) -> tuple[int, int]:
    """(lo, hi) padding of the stride-dilated input for conv_transpose's 'SAME'/'VALID' (as JAX):
    SAME gives `in * s` outputs, VALID `in * s + max(k - s, 0)`."""
    if padding == "SAME":
        total = k + s - 2
        lo = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        lo = k - 1
    else:
        raise ValueError(f"Padding mode must be `SAME` or `VALID`, got {padding}.")
    return lo, total - lo


def conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int], padding: Any,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None,
                   preferred_element_type: Any = None, use_consistent_padding: bool = False) -> Any:
    """`lax.conv_transpose`: a fractionally strided convolution (lhs dilated by `strides`)."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    nd = la.ndim
    if dimension_numbers is None:
        names = {3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}
        dimension_numbers = names[nd]
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    k_sdims = _spatial(ra.shape, dn.rhs_spec)
    rd = _tuple(rhs_dilation, nd - 2)
    eff = tuple(dilate_dim(k, d) for k, d in zip(k_sdims, rd))
    if isinstance(padding, str):
        pads = tuple(_conv_transpose_padding(k, s, padding.upper()) for k, s in zip(eff, strides))
    else:
        pads = padding
    if transpose_kernel:
        rhs = lax_st.rev(rhs, dn.rhs_spec[2:])
        order = list(range(nd))
        order[dn.rhs_spec[0]], order[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = lax_st.transpose(rhs, tuple(order))
    return conv_general_dilated(lhs, rhs, (1,) * (nd - 2), pads, strides, rd, dn,
                                precision=precision, preferred_element_type=preferred_element_type)
