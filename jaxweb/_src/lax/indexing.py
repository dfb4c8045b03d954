"""Dynamic slicing (`dynamic_slice`, `dynamic_update_slice`) and, re-exported from
gather_scatter.py, `gather`/`scatter*`: JAX's lax slicing family.

Start indices are operands (possibly traced); like XLA they are clamped so the
slice stays inside the operand. Static (constant) starts lower to a free view;
traced ones to one kernel that loads the index values. `normalize_index` (negative
indices counted from the end, in one kernel) serves these wrappers and jnp indexing.
"""
from __future__ import annotations

from typing import Any, Sequence

from .. import core, dtypes
from ..compiler import expr as E, graph
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..interpreters import rules as R
from ..interpreters.rules import UndefinedPrimal
from . import gather_scatter as gs
from .gather_scatter import *  # noqa: F401,F403
from ..interpreters.batching import bdim_at_front
from .structural import full, batch_size, linear_transpose, broadcast_in_dim, concatenate, squeeze, expand_dims
from .elementwise import convert_element_type

__all__ = ["dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim",
           "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim", "dynamic_slice_p",
           "dynamic_update_slice_p"] + gs.__all__


def _check_indices(name: str, idx_avals: Sequence[core.ShapedArray]) -> None:
    kinds = [a.dtype for a in idx_avals]
    if any(d.kind not in "iu" for d in kinds) or len(set(kinds)) > 1:
        raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                        f"{', '.join(d.name for d in kinds)}")
    if any(a.ndim for a in idx_avals):
        raise TypeError(f"index arguments to {name} must be scalars, got shapes "
                        f"{', '.join(str(a.shape) for a in idx_avals)}")


def _static_starts(idxs: Sequence[Node], shape, sizes) -> list[int] | None:
    """Clamped starts when every index is a constant, else None."""
    if not all(graph.is_const(i) for i in idxs):
        return None
    return [min(max(int(i.value), 0), n - s) for i, n, s in zip(idxs, shape, sizes)]


def _dynamic_starts(ctx, idxs: Sequence[Node], shape, sizes) -> list[E.Expr]:
    return [gs._clamp(i.at(ctx, ()), 0, n - s) for i, n, s in zip(idxs, shape, sizes)]


# ---------------------------------------------------------------- index normalization
normalize_index_p = core.Primitive("normalize_index")


@core.def_abstract_eval(normalize_index_p)
def _normalize_index_abstract(i, *, size):
    return i


@def_lowering(normalize_index_p)
def _normalize_index_lower(i, *, size):
    if i.dtype.kind == "u":
        return i
    zero, n = graph.const_like(i, 0), graph.const_like(i, size)
    return graph.where(graph.alu("lt", i, zero), graph.alu("add", i, n), i)


R.defnondifferentiable(normalize_index_p)
R.defvectorized(normalize_index_p)


def normalize_index(index: Any, size: int) -> Any:
    """Negative integer indices counted from the end (once), in one elementwise kernel."""
    return normalize_index_p.bind(index, size=int(size))


# ---------------------------------------------------------------- dynamic_slice
dynamic_slice_p = core.Primitive("dynamic_slice")


@core.def_abstract_eval(dynamic_slice_p)
def _dynamic_slice_abstract(x, *idxs, slice_sizes):
    _check_indices("dynamic_slice", idxs)
    if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
        if len(slice_sizes) != x.ndim:
            raise TypeError(f"dynamic_slice slice_sizes must have the same length as operand rank, got "
                            f"slice_sizes {tuple(slice_sizes)} for operand shape {x.shape}.")
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {tuple(slice_sizes)} for operand shape {x.shape}.")
    return x.update(shape=tuple(slice_sizes))


@def_lowering(dynamic_slice_p)
def _dynamic_slice_lower(x, *idxs, slice_sizes):
    static = _static_starts(idxs, x.shape, slice_sizes)
    if static is not None:
        return x.shrink([(s, s + n) for s, n in zip(static, slice_sizes)])

    def element(ctx, out):
        starts = _dynamic_starts(ctx, idxs, x.shape, slice_sizes)
        return x.at(ctx, [s + o for s, o in zip(starts, out)])
    return graph.fn(tuple(slice_sizes), x.dtype, element, (x, *idxs))


@linear_transpose
def _dynamic_slice_transpose(ct, x, *idxs, slice_sizes):
    zeros = full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *idxs)] + [None] * len(idxs)


def _stacked_indices(idxs, dims, n) -> Any:
    """The scalar start indices (some batched) as one (n, k) index array."""
    cols = []
    for i, d in zip(idxs, dims):
        i = bdim_at_front(i, d, n)
        cols.append(broadcast_in_dim(i, (n, 1), (0,)))
    return concatenate(cols, 1)


def _dynamic_slice_batch(args, dims, *, slice_sizes):
    x, idxs = args[0], args[1:]
    n = batch_size(args, dims)
    if all(d is None for d in dims[1:]):
        x = bdim_at_front(x, dims[0], n)
        zero = full((), 0, core.get_aval(idxs[0]).dtype) if idxs else 0
        return dynamic_slice_p.bind(x, zero, *idxs, slice_sizes=(n,) + tuple(slice_sizes)), 0
    x = bdim_at_front(x, dims[0], n)
    k = len(idxs)
    dn = gs.GatherDimensionNumbers(tuple(range(1, k + 1)), (), tuple(range(1, k + 1)), (0,), (0,))
    return gs.gather(x, _stacked_indices(idxs, dims[1:], n), dn, (1,) + tuple(slice_sizes), mode="clip"), 0


R.defjvp(dynamic_slice_p, lambda t, x, *idxs, slice_sizes: dynamic_slice_p.bind(t, *idxs, slice_sizes=slice_sizes))
R.primitive_transposes[dynamic_slice_p] = _dynamic_slice_transpose
R.primitive_batchers[dynamic_slice_p] = _dynamic_slice_batch


def _normalize_indices(operand: Any, start_indices: Sequence[Any], name: str,
                       allow_negative: bool | Sequence[bool] = True) -> list:
    """Indices as same-typed integer scalars, negatives counted from the end unless
    `allow_negative` is False for that dimension (JAX's wrapper)."""
    shape = core.get_aval(operand).shape
    if hasattr(start_indices, "shape") and getattr(start_indices, "ndim", 0) == 1:
        start_indices = [start_indices[i] for i in range(start_indices.shape[0])]
    start_indices = list(start_indices)
    if len(start_indices) != len(shape):
        raise ValueError(f"Length of slice indices must match number of operand dimensions "
                         f"({len(start_indices)} vs {shape})")
    arrays = [core.get_aval(i).dtype for i in start_indices if not core.is_python_scalar(i)]
    for dt in arrays:
        if dt.kind not in "iu":
            raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                            f"{', '.join(core.get_aval(i).dtype.name for i in start_indices)}")
    idt = dtypes.result_type(*arrays) if arrays else dtypes.int32
    negs = [allow_negative] * len(shape) if isinstance(allow_negative, bool) else list(allow_negative)
    out = []
    for i, n, neg in zip(start_indices, shape, negs):
        if core.is_python_scalar(i):
            if not isinstance(i, int):
                raise TypeError(f"index arguments to {name} must be integers, got {type(i).__name__}")
            if i < 0 and not neg:
                raise ValueError(f"Index {i} is out of bounds for dimension {n} if allow_negative_indices=False")
            out.append(full((), i + n if i < 0 else i, idt))
            continue
        i = convert_element_type(i, idt)
        out.append(normalize_index(i, n) if neg else i)
    return out


def dynamic_slice(operand: Any, start_indices: Sequence[Any], slice_sizes: Sequence[int], *,
                  allow_negative_indices: bool | Sequence[bool] = True) -> Any:
    """`lax.dynamic_slice`: a `slice_sizes` box at (possibly traced) `start_indices`,
    clamped to stay in bounds; negative indices count from the end (if allowed)."""
    idxs = _normalize_indices(operand, start_indices, "dynamic_slice", allow_negative_indices)
    return dynamic_slice_p.bind(operand, *idxs, slice_sizes=tuple(int(s) for s in slice_sizes))


def dynamic_slice_in_dim(operand: Any, start_index: Any, slice_size: int, axis: int = 0) -> Any:
    """`lax.dynamic_slice_in_dim`: dynamic_slice along one axis."""
    shape = core.get_aval(operand).shape
    axis = int(axis) % len(shape)
    starts = [0] * len(shape)
    starts[axis] = start_index
    sizes = list(shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0, keepdims: bool = True) -> Any:
    """`lax.dynamic_index_in_dim`: one (clamped) element along `axis`."""
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (int(axis) % core.get_aval(operand).ndim,))


# ---------------------------------------------------------------- dynamic_update_slice
dynamic_update_slice_p = core.Primitive("dynamic_update_slice")


@core.def_abstract_eval(dynamic_update_slice_p)
def _dus_abstract(x, upd, *idxs):
    _check_indices("dynamic_update_slice", idxs)
    if upd.ndim != x.ndim:
        raise TypeError(f"dynamic_update_slice update must have the same rank as operand, got update "
                        f"shape {upd.shape} for operand shape {x.shape}.")
    if any(u > n for u, n in zip(upd.shape, x.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand shape, got "
                        f"update shape {upd.shape} for operand shape {x.shape}.")
    if x.dtype != upd.dtype:
        raise TypeError(f"lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {upd.dtype.name}.")
    return x.update(weak_type=x.weak_type and upd.weak_type)


@def_lowering(dynamic_update_slice_p)
def _dus_lower(x, upd, *idxs):
    i32 = dtypes.int32

    def element(ctx, j):
        starts = _dynamic_starts(ctx, idxs, x.shape, upd.shape)
        inside, uidx = E.const(True, dtypes.bool_), []
        for jj, s, m in zip(j, starts, upd.shape):
            off = jj - s
            inside = inside & (off >= 0) & (off < m)
            uidx.append(E.binary("min", E.binary("max", off, E.const(0, i32)), E.const(max(m - 1, 0), i32)))
        if 0 in upd.shape:
            return x.at(ctx, j)
        return E.where(inside, upd.at(ctx, uidx), x.at(ctx, j))
    return graph.fn(x.shape, x.dtype, element, (x, upd, *idxs))


@linear_transpose
def _dus_transpose(ct, x, upd, *idxs):
    ct_x = ct_u = None
    u_shape = (upd.aval if isinstance(upd, UndefinedPrimal) else core.get_aval(upd)).shape
    if isinstance(x, UndefinedPrimal):
        ct_x = dynamic_update_slice_p.bind(ct, full(u_shape, 0, core.get_aval(ct).dtype), *idxs)
    if isinstance(upd, UndefinedPrimal):
        ct_u = dynamic_slice_p.bind(ct, *idxs, slice_sizes=u_shape)
    return [ct_x, ct_u] + [None] * len(idxs)


def _dus_jvp(primals, tangents):
    x, upd, *idxs = primals
    tx, tu = tangents[0], tangents[1]
    out = dynamic_update_slice_p.bind(x, upd, *idxs)
    if isinstance(tx, R.Zero) and isinstance(tu, R.Zero):
        return out, R.Zero(core.get_aval(out))
    return out, dynamic_update_slice_p.bind(R.instantiate_zeros(tx), R.instantiate_zeros(tu), *idxs)


def _dus_batch(args, dims):
    x, upd, idxs = args[0], args[1], args[2:]
    n = batch_size(args, dims)
    x, upd = bdim_at_front(x, dims[0], n), bdim_at_front(upd, dims[1], n)
    if all(d is None for d in dims[2:]):
        zero = full((), 0, core.get_aval(idxs[0]).dtype) if idxs else 0
        return dynamic_update_slice_p.bind(x, upd, zero, *idxs), 0
    k = len(idxs)
    dn = gs.ScatterDimensionNumbers(tuple(range(1, k + 1)), (), tuple(range(1, k + 1)), (0,), (0,))
    return gs.scatter(x, _stacked_indices(idxs, dims[2:], n), upd, dn, mode="clip"), 0


R.primitive_jvps[dynamic_update_slice_p] = _dus_jvp
R.primitive_transposes[dynamic_update_slice_p] = _dus_transpose
R.primitive_batchers[dynamic_update_slice_p] = _dus_batch


def dynamic_update_slice(operand: Any, update: Any, start_indices: Sequence[Any], *,
                         allow_negative_indices: bool | Sequence[bool] = True) -> Any:
    """`lax.dynamic_update_slice`: `operand` with `update` written at `start_indices`
    (clamped so the whole update fits; negative indices count from the end if allowed)."""
    idxs = _normalize_indices(operand, start_indices, "dynamic_update_slice", allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *idxs)


def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any, axis: int) -> Any:
    """`lax.dynamic_update_slice_in_dim`: dynamic_update_slice along one axis."""
    nd = core.get_aval(operand).ndim
    starts: list[Any] = [0] * nd
    starts[int(axis) % nd] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand: Any, update: Any, index: Any, axis: int) -> Any:
    """`lax.dynamic_update_index_in_dim`: write one slice (rank one lower or equal) at `index`."""
    axis = int(axis) % core.get_aval(operand).ndim
    if core.get_aval(update).ndim == core.get_aval(operand).ndim - 1:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)
