"""`lax.gather` and the `lax.scatter*` family, with XLA's general dimension numbers.

Both lower to single kernels without routines. A gather is a function of the
output index: load the start indices, then the operand (clamped, or the fill value
when a slice is out of bounds). A combining scatter (add/mul/min/max) is a
reduction over the scatter positions of the updates: each output element combines
the updates whose window covers it (O(N*U) work, fully parallel). A replacing
scatter first reduces (max) the position of the last update that hits each output
element, then reads that update, so duplicates resolve like numpy (last wins).
"""
from __future__ import annotations

import enum
from typing import Any, NamedTuple, Sequence

from .. import core, dtypes
from ..compiler import expr as E, graph
from ..compiler.graph import Node
from ..compiler.kernel import identity
from ..compiler.shapetracker import unflatten
from ..dispatch import def_lowering, device_of, materialize
from ..interpreters import rules as R
from ..interpreters.rules import UndefinedPrimal, Zero
from .base import in_f32
from .composite import decomposed_primitive
from ..interpreters.batching import bdim_at_front
from .structural import batch_size, full, linear_transpose
from .elementwise import add, convert_element_type, eq, full_like, mul, neg, select_n, _weak_scalar

__all__ = ["GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode", "gather",
           "scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max",
           "scatter_apply", "gather_p", "scatter_p", "scatter_add_p", "scatter_mul_p",
           "scatter_min_p", "scatter_max_p", "scatter_sub_p"]


class GatherDimensionNumbers(NamedTuple):
    """Which output dims are slice offsets, which operand dims are dropped, and which
    operand dim each component of an index vector (the last indices dim) addresses."""
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """The scatter counterpart of GatherDimensionNumbers (seen from the updates)."""
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """Out-of-bounds policy. CLIP clamps starts so the window fits; FILL_OR_DROP fills
    (gather) or drops (scatter) windows that do not fit; PROMISE_IN_BOUNDS lets the
    implementation choose (here: clamp for gather, drop for scatter, like XLA)."""
    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3
    ONE_HOT = 4

    @staticmethod
    def from_any(s: "str | GatherScatterMode | None") -> "GatherScatterMode":
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


def _tup(xs: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(x) for x in xs)


def _gdn(d: Any) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(*(_tup(f) for f in d))


def _sdn(d: Any) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(*(_tup(f) for f in d))


# ---------------------------------------------------------------- index expressions
def _i32(e: E.Expr) -> E.Expr:
    return E.cast(e, dtypes.int32)


def _widen(e: E.Expr) -> E.Expr:
    """Narrow index types compute in int32, so bounds like 999 are representable."""
    return _i32(e) if e.dtype.itemsize < 4 else e


def _clamp(e: E.Expr, lo: int, hi: int) -> E.Expr:
    """Clamp an integer expression (any int dtype; lo <= 0 for unsigned) to [lo, hi], as int32."""
    e = _widen(e)
    dt = e.dtype
    if dt.kind == "u":
        return _i32(E.binary("min", e, E.const(max(hi, 0), dt)))
    return _i32(E.binary("min", E.binary("max", e, E.const(lo, dt)), E.const(max(hi, lo), dt)))


def _in_range(e: E.Expr, lo: int, hi: int) -> E.Expr:
    """lo <= e <= hi for an integer expression of any int dtype (lo >= 0)."""
    e = _widen(e)
    dt = e.dtype
    upper = E.binary("le", e, E.const(hi, dt)) if hi >= 0 else E.const(False, dtypes.bool_)
    if dt.kind == "u" and lo == 0:
        return upper
    return E.binary("ge", e, E.const(lo, dt)) & upper


def _starts(ctx, idx: Node, batch: Sequence[E.Expr]) -> list[E.Expr]:
    n = idx.shape[-1]
    return [idx.at(ctx, list(batch) + [E.const(k, dtypes.int32)]) for k in range(n)]


def _flat(idxs: Sequence[E.Expr], shape: Sequence[int]) -> E.Expr:
    out = E.const(0, dtypes.int32)
    for i, n in zip(idxs, shape):
        out = out * n + i
    return out


# ---------------------------------------------------------------- gather
gather_p = core.Primitive("gather")


def _gather_shape(x, idx, dnums: GatherDimensionNumbers, slice_sizes) -> tuple[int, ...]:
    if idx.dtype.kind not in "iu":
        raise ValueError("indices must have an integer type")
    if len(slice_sizes) != x.ndim:
        raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={x.ndim}")
    if idx.ndim < 1 or len(dnums.start_index_map) != idx.shape[-1]:
        raise TypeError(f"Gather op has {len(dnums.start_index_map)} elements in start_index_map and "
                        f"the bound of dimension index_vector_dim={idx.ndim - 1} of indices is "
                        f"{idx.shape[-1] if idx.ndim else 0}. These two numbers must be equal.")
    if list(dnums.offset_dims) != sorted(set(dnums.offset_dims)):
        raise TypeError(f"offset_dims in gather op must be sorted; got offset_dims {dnums.offset_dims}.")
    for i, d in enumerate(dnums.collapsed_slice_dims):
        if slice_sizes[d] != 1:
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position {i}.")
    for i, (s, n) in enumerate(zip(slice_sizes, x.shape)):
        if not 0 <= s <= n:
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must be within "
                            f"[0, {n} + 1), got {s}.")
    dropped = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
    offsets = [slice_sizes[d] for d in range(x.ndim) if d not in dropped]
    if len(offsets) != len(dnums.offset_dims):
        raise TypeError(f"All components of the offset index in a gather op must either be a offset "
                        f"dimension or explicitly collapsed/batching; got len(slice_sizes)="
                        f"{len(slice_sizes)}, output_slice_sizes={tuple(offsets)}, collapsed_slice_dims="
                        f"{dnums.collapsed_slice_dims}, operand_batching_dims={dnums.operand_batching_dims}.")
    batch = list(idx.shape[:-1])
    rank = len(batch) + len(offsets)
    off_it, b_it = iter(offsets), iter(batch)
    return tuple(next(off_it) if i in dnums.offset_dims else next(b_it) for i in range(rank))


@core.def_abstract_eval(gather_p)
def _gather_abstract(x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted,
                     unique_indices, mode, fill_value):
    return x.update(shape=_gather_shape(x, idx, dimension_numbers, slice_sizes), weak_type=x.weak_type)


def default_fill(dtype: dtypes.DType) -> Any:
    """Gather's FILL_OR_DROP fill: NaN (complex: nan + 0j), the minimum signed int,
    maximum unsigned, True."""
    if dtype.kind == "f":
        return float("nan")
    if dtype.kind == "c":
        return complex(float("nan"), 0.0)
    if dtype.kind == "b":
        return True
    info = dtypes.iinfo(dtype)
    return info.min if dtype.kind == "i" else info.max


@def_lowering(gather_p)
def _gather_lower(x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted,
                  unique_indices, mode, fill_value):
    dn = dimension_numbers
    out_shape = _gather_shape(x, idx, dn, slice_sizes)
    fill = mode is GatherScatterMode.FILL_OR_DROP
    fill_e = E.const(default_fill(x.dtype) if fill_value is None else fill_value, x.dtype)

    def element(ctx, out):
        batch = [out[i] for i in range(len(out_shape)) if i not in dn.offset_dims]
        offs = iter(out[i] for i in dn.offset_dims)
        starts = _starts(ctx, idx, batch)
        full, ok = [], E.const(True, dtypes.bool_)
        for d, n in enumerate(x.shape):
            if d in dn.operand_batching_dims:
                full.append(batch[dn.start_indices_batching_dims[dn.operand_batching_dims.index(d)]])
                continue
            hi = n - slice_sizes[d]
            start = E.const(0, dtypes.int32)
            if d in dn.start_index_map:
                s = starts[dn.start_index_map.index(d)]
                start = _clamp(s, 0, hi)
                if fill:
                    ok = ok & _in_range(s, 0, hi)
            full.append(start if d in dn.collapsed_slice_dims else start + next(offs))
        v = x.at(ctx, full)
        return E.where(ok, v, fill_e) if fill else v
    return graph.fn(out_shape, x.dtype, element, (x, idx))


def _gather_to_scatter_dnums(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map,
                                   dn.operand_batching_dims, dn.start_indices_batching_dims)


def _scatter_to_gather_dnums(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(dn.update_window_dims, dn.inserted_window_dims,
                                  dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                                  dn.scatter_indices_batching_dims)


def _scatter_mode_of_gather(mode: GatherScatterMode) -> GatherScatterMode:
    """The transpose's mode: a clamped gather scatters back clamped; otherwise (fill, and
    PROMISE_IN_BOUNDS, which gathers clamped) out-of-bounds cotangents are dropped, as in JAX."""
    return GatherScatterMode.CLIP if mode is GatherScatterMode.CLIP else GatherScatterMode.FILL_OR_DROP


@linear_transpose
def _gather_transpose(ct, x, idx, *, dimension_numbers, slice_sizes, mode, **_):
    zeros = full(x.aval.shape, 0, x.aval.dtype)
    out = scatter_add(zeros, idx, ct, _gather_to_scatter_dnums(dimension_numbers),
                      mode=_scatter_mode_of_gather(mode))
    return [out, None]


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, **params):
    n = batch_size(args, dims)
    x, idx = (bdim_at_front(a, d, n) for a, d in zip(args, dims))
    dn = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
    new = GatherDimensionNumbers(up(dn.offset_dims), up(dn.collapsed_slice_dims), up(dn.start_index_map),
                                 (0,) + up(dn.operand_batching_dims), (0,) + up(dn.start_indices_batching_dims))
    return gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=(1,) + tuple(slice_sizes), **params), 0


def _gather_jvp(t, x, idx, *, fill_value, **params):
    """Linear in the operand; filled (out-of-bounds) slices have zero tangent."""
    return gather_p.bind(t, idx, fill_value=None if fill_value is None and params["mode"] is not
                         GatherScatterMode.FILL_OR_DROP else 0, **params)


R.defjvp(gather_p, _gather_jvp, None)
R.primitive_transposes[gather_p] = _gather_transpose
R.primitive_batchers[gather_p] = _gather_batch


def gather(operand: Any, start_indices: Any, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: str | GatherScatterMode | None = None, fill_value: Any = None) -> Any:
    """`lax.gather`: slices of `operand` at the start positions in `start_indices`
    (index vectors along its last dimension). Out-of-bounds starts are clamped by
    default; mode='fill' fills whole out-of-bounds slices with `fill_value`."""
    parsed = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    if parsed is not GatherScatterMode.FILL_OR_DROP:
        fill_value = None
    elif fill_value is not None:  # a static scalar, baked into the kernel
        fill_value = core.concrete_or_error(fill_value, "gather fill_value")
        fill_value = fill_value.item() if hasattr(fill_value, "item") else fill_value
    return gather_p.bind(operand, start_indices, dimension_numbers=_gdn(dimension_numbers),
                         slice_sizes=_tup(slice_sizes), indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=parsed, fill_value=fill_value)


# ---------------------------------------------------------------- scatter
def _scatter_check(x, idx, upd, dn: ScatterDimensionNumbers, name: str) -> None:
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{name} indices must have an integer type; got {idx.dtype.name}")
    if x.dtype != upd.dtype:
        raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {upd.dtype.name}.")
    if idx.ndim < 1 or len(dn.scatter_dims_to_operand_dims) != idx.shape[-1]:
        raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                        f"scatter_dims_to_operand_dims and the bound of dimension index_vector_dim="
                        f"{idx.ndim - 1} of indices is {idx.shape[-1] if idx.ndim else 0}. These two "
                        f"numbers must be equal.")
    if list(dn.update_window_dims) != sorted(set(dn.update_window_dims)):
        raise TypeError(f"update_window_dims in scatter op must be sorted; got update_window_dims "
                        f"{dn.update_window_dims}.")
    scatter_shape = [n for i, n in enumerate(upd.shape) if i not in dn.update_window_dims]
    if scatter_shape != list(idx.shape[:-1]):
        raise ValueError(f"Bounds of the scatter dimensions of updates must be the same as the bounds "
                         f"of the corresponding dimensions of scatter indices; got updates shape "
                         f"{upd.shape}, indices shape {idx.shape}, update_window_dims "
                         f"{dn.update_window_dims}.")
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_ops = [d for d in range(x.ndim) if d not in dropped]
    if len(window_ops) != len(dn.update_window_dims):
        raise TypeError(f"Scatter op has window of size {len(dn.update_window_dims)}; doesn't match "
                        f"operand of rank {x.ndim} with inserted_window_dims {dn.inserted_window_dims}.")
    for wd, d in zip(dn.update_window_dims, window_ops):
        if upd.shape[wd] > x.shape[d]:
            raise TypeError(f"Bounds of the window dimensions of updates must not exceed the bounds of "
                            f"the corresponding dimensions of operand. For dimension {wd}, updates "
                            f"bound is {upd.shape[wd]}, operand bound is {x.shape[d]}.")


def _scatter_window(ctx, x_shape, idx, upd, dn: ScatterDimensionNumbers, mode, j, batch):
    """(hit, update index): does scatter position `batch` write operand element `j`,
    and which update element it writes there (always a valid index)."""
    clip = mode is GatherScatterMode.CLIP
    starts = _starts(ctx, idx, batch)
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_ops = [d for d in range(len(x_shape)) if d not in dropped]
    wsize = {d: upd.shape[wd] for d, wd in zip(window_ops, dn.update_window_dims)}
    hit = E.const(True, dtypes.bool_)
    offs = {}
    for d, n in enumerate(x_shape):
        if d in dn.operand_batching_dims:
            b = batch[dn.scatter_indices_batching_dims[dn.operand_batching_dims.index(d)]]
            hit = hit & E.binary("eq", j[d], b)
            continue
        w = wsize.get(d, 1)
        start = E.const(0, dtypes.int32)
        if d in dn.scatter_dims_to_operand_dims:
            s = starts[dn.scatter_dims_to_operand_dims.index(d)]
            start = _clamp(s, 0, n - w) if clip else _clamp(s, -1, n)
            if not clip:
                hit = hit & _in_range(s, 0, n - w)
        off = j[d] - start
        hit = hit & (off >= 0) & (off < w)
        offs[d] = E.binary("min", E.binary("max", off, E.const(0, dtypes.int32)), E.const(max(w - 1, 0), dtypes.int32))
    bit, uidx = iter(batch), []
    wd_to_op = dict(zip(dn.update_window_dims, window_ops))
    for i in range(len(upd.shape)):
        uidx.append(offs[wd_to_op[i]] if i in wd_to_op else next(bit))
    return hit, uidx


def _scatter_loops(dn: ScatterDimensionNumbers, scatter_shape: tuple, r: int):
    """(the scatter dims a lowering must loop over, positions(ix)): a batching scatter dim
    is not looped over, its position is the operand element's batching coordinate (a
    take_along_axis gradient then reads one index per element, not a whole column).
    `ix` is the operand index followed by the looped scatter dims."""
    fixed = {s: d for s, d in zip(dn.scatter_indices_batching_dims, dn.operand_batching_dims)
             if s < len(scatter_shape)}
    free = tuple(n for s, n in enumerate(scatter_shape) if s not in fixed)

    def positions(ix) -> list:
        rest = iter(ix[r:])
        return [ix[fixed[s]] if s in fixed else next(rest) for s in range(len(scatter_shape))]
    return free, positions


_BOOL_REDUCE = {"add": "max", "mul": "min", "max": "max", "min": "min"}
_BOOL_COMBINE = {"add": "or", "mul": "and", "max": "or", "min": "and"}


def _scatter_combine_lower(op: str):
    """Lowering of scatter_<op>: combine the operand with the reduction of the hits."""
    def lower(x, idx, upd, *, dimension_numbers, mode, **_):
        dn, r = dimension_numbers, x.ndim
        scatter_shape = tuple(idx.shape[:-1])
        is_bool = x.dtype.kind == "b"
        red = _BOOL_REDUCE[op] if is_bool else op
        ident = identity(red, x.dtype)

        free, positions = _scatter_loops(dn, scatter_shape, r)

        def element(ctx, ix):
            hit, uidx = _scatter_window(ctx, x.shape, idx, upd, dn, mode, list(ix[:r]), positions(ix))
            return E.where(hit, upd.at(ctx, uidx), ident)
        total = graph.fn(x.shape + free, x.dtype, element, (idx, upd)).reduce(red, range(r, r + len(free)))
        if is_bool:
            return graph.alu(_BOOL_COMBINE[op], x, total)
        combined = graph.alu(op, x, total)
        if op == "add" and x.dtype.kind == "f":  # keep -0.0 where nothing lands
            return graph.where(graph.alu("eq", total, graph.const_like(total, 0)), x, combined)
        return combined
    return lower


def _scatter_lower(x, idx, upd, *, dimension_numbers, mode, **_):
    """Replacing scatter: the last hitting scatter position wins (numpy's order)."""
    dn, r = dimension_numbers, x.ndim
    scatter_shape = tuple(idx.shape[:-1])
    i32 = dtypes.int32

    free, positions = _scatter_loops(dn, scatter_shape, r)

    def last_hit(ctx, ix):
        batch = positions(ix)
        hit, _ = _scatter_window(ctx, x.shape, idx, upd, dn, mode, list(ix[:r]), batch)
        return E.where(hit, _flat(batch, scatter_shape), E.const(-1, i32))
    winner = graph.fn(x.shape + free, i32, last_hit, (idx, upd)).reduce("max", range(r, r + len(free)))

    def element(ctx, j):
        w = winner.at(ctx, j)
        safe = E.binary("max", w, E.const(0, i32))
        batch = unflatten(safe, scatter_shape)
        _, uidx = _scatter_window(ctx, x.shape, idx, upd, dn, mode, list(j), batch)
        return E.where(E.binary("ge", w, E.const(0, i32)), upd.at(ctx, uidx), x.at(ctx, j))
    return graph.fn(x.shape, x.dtype, element, (winner, idx, upd, x))


def _scatter_prim(name: str, lowering) -> core.Primitive:
    prim = core.Primitive(name)

    @core.def_abstract_eval(prim)
    def _abstract(x, idx, upd, *, dimension_numbers, **_):
        _scatter_check(x, idx, upd, dimension_numbers, name)
        return x
    def_lowering(prim)(lowering)
    R.primitive_batchers[prim] = lambda args, dims, **p: _scatter_batch(prim, args, dims, **p)
    return prim


def _scatter_batch(prim, args, dims, *, dimension_numbers, **params):
    n = batch_size(args, dims)
    x, idx, upd = (bdim_at_front(a, d, n) for a, d in zip(args, dims))
    dn = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
    new = ScatterDimensionNumbers(up(dn.update_window_dims), up(dn.inserted_window_dims),
                                  up(dn.scatter_dims_to_operand_dims), (0,) + up(dn.operand_batching_dims),
                                  (0,) + up(dn.scatter_indices_batching_dims))
    return prim.bind(x, idx, upd, dimension_numbers=new, **params), 0


scatter_p = _scatter_prim("scatter", _scatter_lower)
scatter_add_p = _scatter_prim("scatter-add", in_f32(_scatter_combine_lower("add")))
scatter_mul_p = _scatter_prim("scatter-mul", in_f32(_scatter_combine_lower("mul")))
scatter_min_p = _scatter_prim("scatter-min", in_f32(_scatter_combine_lower("min")))
scatter_max_p = _scatter_prim("scatter-max", in_f32(_scatter_combine_lower("max")))


def _updates_slice_sizes(x_shape, upd_shape, dn: ScatterDimensionNumbers) -> tuple[int, ...]:
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window = iter(upd_shape[d] for d in dn.update_window_dims)
    return tuple(1 if d in dropped else next(window) for d in range(len(x_shape)))


def _gather_updates(ct, idx, upd_aval, x_shape, dn, mode, **params):
    """The cotangent of the updates: ct read back at the updates' windows (0 if dropped)."""
    clip = mode is GatherScatterMode.CLIP
    return gather_p.bind(ct, idx, dimension_numbers=_scatter_to_gather_dnums(dn),
                         slice_sizes=_updates_slice_sizes(x_shape, upd_aval.shape, dn),
                         indices_are_sorted=params.get("indices_are_sorted", False),
                         unique_indices=params.get("unique_indices", False),
                         mode=GatherScatterMode.CLIP if clip else GatherScatterMode.FILL_OR_DROP,
                         fill_value=None if clip else 0)


@linear_transpose
def _scatter_add_transpose(ct, x, idx, upd, *, dimension_numbers, mode, **params):
    x_shape = (x.aval if isinstance(x, UndefinedPrimal) else core.get_aval(x)).shape
    ct_upd = None
    if isinstance(upd, UndefinedPrimal):
        ct_upd = _gather_updates(ct, idx, upd.aval, x_shape, dimension_numbers, mode, **params)
    return [ct if isinstance(x, UndefinedPrimal) else None, None, ct_upd]


def _linear_in_operand_and_updates(prim):
    def jvp(primals, tangents, **params):
        x, idx, upd = primals
        tx, _, tu = tangents
        out = prim.bind(x, idx, upd, **params)
        if isinstance(tx, Zero) and isinstance(tu, Zero):
            return out, Zero(core.get_aval(out))
        return out, prim.bind(R.instantiate_zeros(tx), idx, R.instantiate_zeros(tu), **params)
    R.primitive_jvps[prim] = jvp


_linear_in_operand_and_updates(scatter_add_p)
_linear_in_operand_and_updates(scatter_p)
R.primitive_transposes[scatter_add_p] = _scatter_add_transpose


@linear_transpose
def _scatter_transpose(ct, x, idx, upd, *, dimension_numbers, mode, **params):
    """Linear in (operand, updates): the operand keeps the cotangent where nothing
    lands; each update gets it where that update is the one that won."""
    dn = dimension_numbers
    x_aval = x.aval if isinstance(x, UndefinedPrimal) else core.get_aval(x)
    u_aval = upd.aval if isinstance(upd, UndefinedPrimal) else core.get_aval(upd)
    ct_x = ct_u = None
    if isinstance(x, UndefinedPrimal):
        ct_x = scatter_p.bind(ct, idx, full(u_aval.shape, 0, ct.dtype), dimension_numbers=dn, mode=mode, **params)
    if isinstance(upd, UndefinedPrimal):
        ids = flat_iota(u_aval.shape)
        owner = scatter_p.bind(full(x_aval.shape, -1, dtypes.int32), idx, ids, dimension_numbers=dn,
                               mode=mode, **params)
        back = _gather_updates(owner, idx, u_aval, x_aval.shape, dn, mode, **params)
        won = convert_element_type(eq(back, ids), ct.dtype)
        ct_u = mul(_gather_updates(ct, idx, u_aval, x_aval.shape, dn, mode, **params), won)
    return [ct_x, None, ct_u]


def flat_iota(shape: tuple[int, ...]) -> Any:
    """A concrete int32 array holding each element's row-major flat position."""
    sym = graph.fn(shape, dtypes.int32, lambda ctx, ix: _flat(ix, shape))
    return materialize(sym, core.ShapedArray(shape, dtypes.int32), device_of(()), "iota")


R.primitive_transposes[scatter_p] = _scatter_transpose


def _scatter_mul_jvp(primals, tangents, *, unique_indices, **params):
    """d(x * u) = t_x * u + x * t_u; the update term needs each element hit at most once."""
    x, idx, upd = primals
    tx, _, tu = tangents
    out = scatter_mul_p.bind(x, idx, upd, unique_indices=unique_indices, **params)
    t: Any = Zero(core.get_aval(out))
    if not isinstance(tx, Zero):
        t = scatter_mul_p.bind(tx, idx, upd, unique_indices=unique_indices, **params)
    if not isinstance(tu, Zero):
        if not unique_indices:
            raise NotImplementedError("scatter_mul gradients are only implemented if `unique_indices=True`")
        hit = scatter_p.bind(full(core.get_aval(x).shape, 0, core.get_aval(tu).dtype), idx, tu,
                             unique_indices=True, **params)
        t = mul(x, hit) if isinstance(t, Zero) else add(t, mul(x, hit))
    return out, t


def _scatter_extremum_jvp(prim):
    """Tangent of scatter_min/max: the tangent of whichever value won (the operand or
    an update), averaged over ties, as JAX does."""
    def jvp(primals, tangents, **params):
        x, idx, upd = primals
        tx, _, tu = (R.instantiate_zeros(t) for t in tangents)
        out = prim.bind(x, idx, upd, **params)
        dn, mode = params["dimension_numbers"], params["mode"]
        zeros = full_like(out, 0)
        won_x = convert_element_type(eq(x, out), out.dtype)
        at_upd = _gather_updates(out, idx, core.get_aval(upd), core.get_aval(x).shape, dn, mode)
        won_u = convert_element_type(eq(upd, at_upd), out.dtype)
        common = {k: v for k, v in params.items() if k != "dimension_numbers"}
        count = won_x + scatter_add_p.bind(zeros, idx, won_u, dimension_numbers=dn, **common)
        total = tx * won_x + scatter_add_p.bind(zeros, idx, tu * won_u, dimension_numbers=dn, **common)
        return out, total / count
    R.primitive_jvps[prim] = jvp


_scatter_extremum_jvp(scatter_min_p)
_scatter_extremum_jvp(scatter_max_p)




@linear_transpose
def _scatter_mul_transpose(ct, x, idx, upd, **params):
    """Linear in the operand only: each element is scaled by the product of its hits."""
    if isinstance(upd, UndefinedPrimal):
        raise NotImplementedError("scatter_mul transpose is only implemented for the operand")
    return [scatter_mul_p.bind(ct, idx, upd, **params), None, None]


R.primitive_jvps[scatter_mul_p] = _scatter_mul_jvp
R.primitive_transposes[scatter_mul_p] = _scatter_mul_transpose


def _scatter_wrapper(prim: core.Primitive, doc: str):
    def fn(operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers,
           *, indices_are_sorted: bool = False, unique_indices: bool = False,
           mode: str | GatherScatterMode | None = None) -> Any:
        if core.is_python_scalar(updates):
            updates = _weak_scalar(updates, core.get_aval(operand).dtype)
        return prim.bind(operand, scatter_indices, updates, dimension_numbers=_sdn(dimension_numbers),
                         indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
                         mode=GatherScatterMode.from_any(mode))
    fn.__name__, fn.__doc__ = prim.name.replace("-", "_"), doc
    return fn


scatter = _scatter_wrapper(scatter_p, "`lax.scatter`: write updates at the indexed windows (last wins).")
scatter_add = _scatter_wrapper(scatter_add_p, "`lax.scatter_add`: add updates into the indexed windows.")
scatter_mul = _scatter_wrapper(scatter_mul_p, "`lax.scatter_mul`: multiply the indexed windows by updates.")
scatter_min = _scatter_wrapper(scatter_min_p, "`lax.scatter_min`: elementwise minimum into the windows.")
scatter_max = _scatter_wrapper(scatter_max_p, "`lax.scatter_max`: elementwise maximum into the windows.")


def _scatter_sub(operand: Any, scatter_indices: Any, updates: Any, *, dimension_numbers: ScatterDimensionNumbers,
                 **kwargs: Any) -> Any:
    return scatter_add(operand, scatter_indices, neg(updates), dimension_numbers, **kwargs)


scatter_sub_p = decomposed_primitive("scatter_sub", _scatter_sub)


def scatter_sub(operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers,
                **kwargs: Any) -> Any:
    """`lax.scatter_sub`: subtract updates from the indexed windows (`scatter_sub_p`, a
    scatter_add of the negated updates)."""
    try:
        hash((dimension_numbers, tuple(kwargs.items())))
    except TypeError:  # list-valued dimension numbers: no primitive parameter, the decomposition itself
        return _scatter_sub(operand, scatter_indices, updates, dimension_numbers=dimension_numbers, **kwargs)
    return scatter_sub_p.bind(operand, scatter_indices, updates, dimension_numbers=dimension_numbers, **kwargs)


def scatter_apply(operand: Any, scatter_indices: Any, func: Any, dimension_numbers: ScatterDimensionNumbers,
                  *, update_shape: Sequence[int] = (), **kwargs: Any) -> Any:
    """`lax.scatter_apply`: apply `func` to the indexed elements (each once, even if repeated)."""
    aval = core.get_aval(operand)
    hit = scatter(full(aval.shape, False, dtypes.bool_), scatter_indices,
                  full(tuple(update_shape), True, dtypes.bool_), dimension_numbers, **kwargs)
    return select_n(hit, operand, convert_element_type(func(operand), aval.dtype))
