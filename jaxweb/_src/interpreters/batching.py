"""Vectorization: BatchTrace carries (value, batch dimension) pairs through
`rules.primitive_batchers`, plus helpers the batching rules share.

A batch dim is an int (the axis of the value holding the batch) or `not_mapped`
(None): unbatched values pass through primitives untouched.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import core
from .trace_util import ensure_live
from .rules import array_ops, instantiate_zeros, not_mapped, primitive_batchers


# ---------------------------------------------------------------- helpers for rules
def moveaxis(x: Any, src: int, dst: int) -> Any:
    """`x` with axis `src` moved to position `dst` (a lax.transpose; no-op if equal)."""
    nd = core.get_aval(x).ndim
    src, dst = src % nd, dst % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return array_ops["transpose"](x, perm)


def moveaxis_to_front(x: Any, dim: int | None) -> Any:
    """`x` with axis `dim` first (unchanged when `dim` is None or 0)."""
    return x if dim is None or dim == 0 else moveaxis(x, dim, 0)


def bdim_at_front(x: Any, dim: int | None, size: int) -> Any:
    """`x` with its batch axis first; an unbatched `x` is broadcast along a new first axis."""
    if dim is None:
        shape = core.get_aval(x).shape
        return array_ops["broadcast_in_dim"](x, (size, *shape), tuple(range(1, len(shape) + 1)))
    return moveaxis_to_front(x, dim)


def broadcast_batched(args: Sequence[Any], dims: Sequence[int | None]) -> tuple[list, int]:
    """Align operands of an elementwise primitive: every result has the batch at one axis.

    Batched operands keep (or move to) the first batched operand's batch position;
    unbatched ones (and lower-rank per-example ones, right-aligned) are broadcast."""
    batched = [(x, d) for x, d in zip(args, dims) if d is not None]
    size = core.get_aval(batched[0][0]).shape[batched[0][1]]
    per_ex = [_unbatched_shape(x, d) for x, d in zip(args, dims)]
    shape = max(per_ex, key=len)
    nd = len(shape)
    bd = min(batched[0][1], nd)
    full = (*shape[:bd], size, *shape[bd:])
    example_axes = [i if i < bd else i + 1 for i in range(nd)]
    out = []
    for x, d, pe_shape in zip(args, dims, per_ex):
        if d is not None and len(pe_shape) == nd:
            out.append(moveaxis(x, d, bd))
            continue
        if d is not None:
            x = moveaxis_to_front(x, d)
        axes = example_axes[nd - len(pe_shape):]
        out.append(array_ops["broadcast_in_dim"](x, full, ((bd,) if d is not None else ()) + tuple(axes)))
    return out, bd


def _unbatched_shape(x: Any, d: int | None) -> tuple[int, ...]:
    shape = core.get_aval(x).shape
    return shape if d is None else shape[:d] + shape[d + 1:]


#: collective prim -> rule(trace, vals, dims, **params) -> (out, out_dim), applied by the
#: BatchTrace whose axis_name the collective names (see lax/parallel.py)
collective_rules: dict[core.Primitive, Callable] = {}


_rule_axis_name: Any = None


def current_axis_name() -> Any:
    """The axis name of the vmap whose batching rule is running (for rules that batch a
    whole jaxpr, so collectives inside it still see their axis)."""
    return _rule_axis_name


def find_named_axis(name: Any) -> core.MainTrace | None:
    """The innermost vmap's main whose axis_name is `name`."""
    for main in reversed(core.trace_stack):
        if main.trace_type is BatchTrace and main.global_data[1] == name:
            return main
    return None


# ---------------------------------------------------------------- the trace
class BatchTracer(core.Tracer):
    """A batch of values stacked along `batch_dim` (None: the same value for all)."""

    __slots__ = ("_trace", "val", "batch_dim")

    def __init__(self, trace: "BatchTrace", val: Any, batch_dim: int | None):
        self._trace, self.val, self.batch_dim = trace, val, batch_dim

    @property
    def aval(self) -> core.ShapedArray:
        aval = core.get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = list(aval.shape)
        del shape[self.batch_dim]
        return aval.update(shape=tuple(shape))

    def full_lower(self) -> Any:
        return core.full_lower(self.val) if self.batch_dim is not_mapped else self


class BatchTrace(core.Trace):
    """The trace of one vmap; `main.global_data` is (axis_size, axis_name)."""

    def pure(self, val: Any) -> BatchTracer:
        return BatchTracer(self, val, not_mapped)

    lift = pure

    @property
    def axis_size(self) -> int:
        return self.main.global_data[0]

    def process_primitive(self, primitive, tracers, params):
        ensure_live(self)
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        if primitive in collective_rules:
            return self.process_collective(primitive, vals, dims, params)
        if all(d is not_mapped for d in dims):
            return primitive.bind(*vals, **params)
        rule = primitive_batchers.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Batching rule for '{primitive.name}' not implemented")
        global _rule_axis_name
        prev, _rule_axis_name = _rule_axis_name, self.main.global_data[1]
        try:
            out, out_dim = rule(vals, dims, **params)
        finally:
            _rule_axis_name = prev
        if primitive.multiple_results:
            return [BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
        return BatchTracer(self, out, out_dim)

    def process_collective(self, primitive, vals, dims, params):
        """A collective over this vmap's axis reduces along the batch; over another
        (outer) axis it acts on each example alike, so the batch dim passes through."""
        if self.main.global_data[1] in params["axis_name"]:
            out, out_dim = collective_rules[primitive](self, vals, dims, **params)
        else:
            out, out_dim = primitive.bind(*vals, **params), (dims[0] if dims else not_mapped)
        return BatchTracer(self, out, out_dim)

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, **params):
        return batch_custom_jvp(self, primitive, fun, jvp, tracers, **params)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, **params):
        return batch_custom_vjp(self, primitive, fun, fwd, bwd, tracers, **params)


def _vmap_trace(fun: Callable[..., Sequence[Any]], in_dims: Sequence[int | None], axis_size: int,
                args: Sequence[Any], axis_name: Any) -> list[tuple[Any, int | None]]:
    with core.new_main(BatchTrace, (axis_size, axis_name)) as main:
        trace = BatchTrace(main)
        tracers = [BatchTracer(trace, x, d) if d is not not_mapped else x for x, d in zip(args, in_dims)]
        outs = [trace.full_raise(o) for o in fun(*tracers)]
        return [(o.val, o.batch_dim) for o in outs]


def vmap_flat(fun: Callable[..., Sequence[Any]], in_dims: Sequence[int | None],
              out_dims: Sequence[int | None] | Callable[[], Sequence[int | None]], axis_size: int,
              args: Sequence[Any], axis_name: Any = None) -> list:
    """Apply `fun` to each slice along `in_dims`; outputs stacked along `out_dims` (or along
    `out_dims()`, for output axes that are known only once `fun` has run)."""
    vals_dims = _vmap_trace(fun, in_dims, axis_size, args, axis_name)
    dims = out_dims() if callable(out_dims) else out_dims
    return [_move_out(v, d, od, axis_size) for (v, d), od in zip(vals_dims, dims)]


def _move_out(x: Any, dim: int | None, out_dim: int | None, size: int) -> Any:
    if out_dim is None:
        if dim is not_mapped:
            return x
        raise ValueError(f"at vmap out_axes, got axis spec None but output was batched on axis {dim}")
    x = bdim_at_front(x, dim, size)
    nd = core.get_aval(x).ndim
    if not -nd <= out_dim < nd:
        raise ValueError(f"axis {out_dim} is out of bounds for array of dimension {nd}")
    return moveaxis(x, 0, out_dim)


def batch_fun_at_front(fun: Callable[..., Sequence[Any]], in_dims: Sequence[int | None],
                       axis_size: int, axis_name: Any = None) -> Callable[..., list]:
    """`fun` vectorized over `in_dims`, every output batched along axis 0."""
    def run(*args: Any) -> list:
        vals_dims = _vmap_trace(fun, in_dims, axis_size, args, axis_name)
        return [bdim_at_front(v, d, axis_size) for v, d in vals_dims]
    return run


# ---------------------------------------------------------------- custom_jvp / custom_vjp calls under vmap
def batch_custom_jvp(trace, primitive, fun, jvp, tracers, *, symbolic_zeros=False):
    """vmap of a custom_jvp call: every input batched at axis 0, function and rule vmapped."""
    size, name = trace.main.global_data
    vals = [bdim_at_front(t.val, t.batch_dim, size) for t in tracers]
    n = len(vals)
    fun_b = batch_fun_at_front(fun, [0] * n, size, name)

    def jvp_b(primals, tangents):
        tangents = [instantiate_zeros(t) for t in tangents]
        outs = batch_fun_at_front(lambda *pt: _concat(jvp(pt[:n], pt[n:])), [0] * (2 * n), size, name)(
            *primals, *tangents)
        return outs[:len(outs) // 2], outs[len(outs) // 2:]

    outs = primitive.bind(*vals, call_jaxpr=fun_b, jvp=jvp_b, symbolic_zeros=False)
    return [_batched(trace, o) for o in outs]


def batch_custom_vjp(trace, primitive, fun, fwd, bwd, tracers, *, symbolic_zeros=False):
    """vmap of a custom_vjp call: fun, fwd and bwd all vmapped along axis 0."""
    size, name = trace.main.global_data
    vals = [bdim_at_front(t.val, t.batch_dim, size) for t in tracers]
    n = len(vals)
    fun_b = batch_fun_at_front(fun, [0] * n, size, name)
    n_out: list[int] = []

    def fwd_flat(*xs):
        outs, res = fwd(*xs)
        n_out[:] = [len(outs)]
        return [*outs, *res]

    def fwd_b(*xs):
        both = batch_fun_at_front(fwd_flat, [0] * n, size, name)(*xs)
        return both[:n_out[0]], both[n_out[0]:]

    def bwd_b(res, cts):
        nr = len(res)
        cts = [instantiate_zeros(c) for c in cts]
        return batch_fun_at_front(lambda *rc: list(bwd(list(rc[:nr]), list(rc[nr:]))),
                                  [0] * (nr + len(cts)), size, name)(*res, *cts)

    outs = primitive.bind(*vals, call_jaxpr=fun_b, fwd=fwd_b, bwd=bwd_b, symbolic_zeros=symbolic_zeros)
    return [_batched(trace, o) for o in outs]


def _batched(trace, x: Any) -> Any:
    return BatchTracer(trace, x, 0)


def _concat(pair: tuple[Sequence[Any], Sequence[Any]]) -> list:
    return [*pair[0], *pair[1]]
