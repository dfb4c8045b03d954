"""Reduction primitives: reduce_sum/prod/max/min/and/or/xor, argmax/argmin, `lax.reduce`.

Each reduction lowers to one kernel reducing the operand over `axes` with one of
the IR's reduce ops (add, mul, max, min); float16/bfloat16 accumulate in float32.
argmax/argmin are two kernels (the extremum, then the first index that attains it,
a NaN counting as the extremum as in JAX). Cumulative ops live in `cumulative.py`.
"""
from __future__ import annotations

__all__ = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
           "reduce_xor", "argmax", "argmin", "reduce", "reduce_sum_p", "reduce_prod_p", "reduce_max_p",
           "reduce_min_p", "reduce_and_p", "reduce_or_p", "reduce_xor_p", "argmax_p", "argmin_p"]

from typing import Any, Callable, Sequence

from .. import core, dtypes
from ..interpreters.batching import bdim_at_front as to_front, moveaxis  # noqa: F401  (shared helpers)
from ..compiler import graph
from ..compiler.kernel import REDUCE_IDENTITY
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base


def kept_dims(ndim: int, axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(i for i in range(ndim) if i not in axes)


def batched_axes(axes: Sequence[int], bdim: int) -> tuple[int, ...]:
    """Operand axes after a batch dimension is inserted at `bdim`."""
    return tuple(a + (a >= bdim) for a in axes)


def batch_size(args: Sequence[Any], dims: Sequence[int | None]) -> int:
    """The size of the vmapped axis, from the first batched argument."""
    return next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)


def linear_in_first_jvp(prim: core.Primitive) -> Callable:
    """JVP of a primitive linear in its first argument and constant in the others (indices)."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        t = tangents[0]
        if isinstance(t, R.Zero):
            return out, R.Zero(core.get_aval(out))
        return out, prim.bind(t, *primals[1:], **params)
    return jvp


# ---------------------------------------------------------------- monoid reductions
_REDUCE_KINDS = {"reduce_sum": base.NUM, "reduce_prod": base.NUM, "reduce_max": base.ORDERED,
                 "reduce_min": base.ORDERED, "reduce_and": base.INT_OR_BOOL, "reduce_or": base.INT_OR_BOOL,
                 "reduce_xor": base.INT_OR_BOOL}


def _reduction_abstract(name: str):
    def rule(x, *, axes, out_sharding=None):
        base.check_dtype(name, x, _REDUCE_KINDS[name])
        for a in axes:
            if not 0 <= a < x.ndim:
                raise ValueError(f"{name}: axis {a} is out of bounds for array of dimension {x.ndim}")
        return x.update(shape=tuple(d for i, d in enumerate(x.shape) if i not in axes),
                        weak_type=False)  # as in JAX, reductions are never weakly typed
    return rule


def _monoid_lowering(ir_op: str):
    @base.in_f32  # float16/bfloat16 accumulate in float32
    def lower(x: Node, *, axes, out_sharding=None) -> Node:
        return x.reduce(ir_op, axes)
    return lower


def _parity(bits: Node, axes: Sequence[int]) -> Node:
    """1 where an odd number of the 0/1 values along `axes` are 1 (in bits' dtype)."""
    count = bits.cast(dtypes.int32).reduce("add", axes)
    return graph.alu("rem", count, graph.const_like(count, 2)).cast(bits.dtype)


#: how a bitwise reduction combines one bit plane: reduce op, or a function
_BIT_REDUCERS: dict[str, Callable[[Node, Sequence[int]], Node]] = {
    "and": lambda bits, axes: bits.reduce("min", axes),
    "or": lambda bits, axes: bits.reduce("max", axes),
    "xor": _parity,
}


def _bitwise_lowering(kind: str):
    """Bools reduce directly; integers reduce each bit plane (one kernel per bit) and
    reassemble the bits: and = min, or = max, xor = parity of the bit count."""
    reducer = _BIT_REDUCERS[kind]

    def lower(x: Node, *, axes, out_sharding=None) -> Node:
        if x.dtype.kind == "b":
            return reducer(x.cast(dtypes.uint8), axes).cast(dtypes.bool_)
        ut = dtypes.dtype(f"uint{x.dtype.itemsize * 8}")
        u = x.bitcast(ut)
        out = None
        for b in range(x.dtype.itemsize * 8):
            plane = graph.alu("rem", graph.alu("shr_logical", u, graph.const_like(u, b)), graph.const_like(u, 2))
            r = reducer(plane, axes)
            term = graph.alu("shl", r, graph.const_like(r, b))
            out = term if out is None else graph.alu("or", out, term)
        return out.bitcast(x.dtype)
    return lower


def _reduction(name: str, lowering: Callable[..., Node]) -> core.Primitive:
    prim = core.Primitive(name)
    core.def_abstract_eval(prim)(_reduction_abstract(name))
    def_lowering(prim)(lowering)
    R.primitive_batchers[prim] = _reduce_batch(prim)
    return prim


def _reduce_batch(prim: core.Primitive):
    def rule(args, dims, *, axes, **params):
        (x,), (d,) = args, dims
        out_d = d - sum(a < d for a in axes)
        return prim.bind(x, axes=batched_axes(axes, d), **params), out_d
    return rule


reduce_sum_p = _reduction("reduce_sum", _monoid_lowering("add"))
reduce_prod_p = _reduction("reduce_prod", _monoid_lowering("mul"))
reduce_max_p = _reduction("reduce_max", _monoid_lowering("max"))
reduce_min_p = _reduction("reduce_min", _monoid_lowering("min"))
reduce_and_p = _reduction("reduce_and", _bitwise_lowering("and"))
reduce_or_p = _reduction("reduce_or", _bitwise_lowering("or"))
reduce_xor_p = _reduction("reduce_xor", _bitwise_lowering("xor"))
for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):
    R.defnondifferentiable(_p)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    shape = x.aval.shape
    ct = R.instantiate_zeros(ct)
    return [lax_st.broadcast_in_dim(ct, shape, kept_dims(len(shape), axes))]


R.deflinear(reduce_sum_p, _reduce_sum_transpose)


def _chooser_jvp(t, ans, x, *, axes, out_sharding=None):
    """max/min JVP: the tangent averaged over the positions attaining the extremum (as JAX)."""
    shape = core.get_aval(x).shape
    keep = kept_dims(len(shape), axes)
    hit = lax_ew.convert_element_type(lax_ew.eq(x, lax_st.broadcast_in_dim(ans, shape, keep)), core.get_aval(t).dtype)
    count = reduce_sum_p.bind(hit, axes=axes)
    return lax_ew.div(reduce_sum_p.bind(lax_ew.mul(t, hit), axes=axes), count)


R.defjvp2(reduce_max_p, _chooser_jvp)
R.defjvp2(reduce_min_p, _chooser_jvp)


def _reduce_prod_jvp(t, x, *, axes, out_sharding=None):
    """d prod = sum_i t_i * prod_{j != i} x_j, exact when some x_j are zero."""
    shape = core.get_aval(x).shape
    keep = kept_dims(len(shape), axes)
    n = 1
    for a in axes:
        n *= shape[a]
    flat = tuple(shape[i] for i in keep) + (n,)

    def flatten(v):  # reduced axes moved last and merged into one
        return lax_st.reshape(lax_st.transpose(v, keep + tuple(axes)), flat)
    others = others_product(flatten(x), len(keep))
    return reduce_sum_p.bind(lax_ew.mul(flatten(t), others), axes=(len(keep),))


R.defjvp(reduce_prod_p, _reduce_prod_jvp)


# ---------------------------------------------------------------- argmax / argmin
def _arg_abstract(name: str):
    def rule(x, *, axes, index_dtype):
        # complex operands fail at the comparison JAX's argmax/argmin make (its message)
        base.check_dtype({"argmax": "gt", "argmin": "lt"}[name] if x.dtype.kind == "c" else name, x,
                         base.ANY, 0 if x.dtype.kind == "c" else None)
        (axis,) = axes
        if not 0 <= axis < x.ndim:
            raise ValueError(f"Invalid axis {axis} for operand shape {x.shape}")
        if x.shape[axis] == 0:
            raise ValueError(f"argmin and argmax require non-empty reduced dimension. "
                             f"operand.shape={x.shape} axis={axis}")
        idt = dtypes.dtype(index_dtype)
        if idt.kind not in "iu":
            raise TypeError(f"index_dtype must be an integer type, but got {idt.name}")
        return core.ShapedArray(tuple(d for i, d in enumerate(x.shape) if i != axis), idt)
    return rule


def _arg_lowering(ir_op: str):
    """The first index whose value equals the extremum; NaN equals a NaN extremum."""
    def lower(x: Node, *, axes, index_dtype) -> Node:
        (axis,) = axes
        if x.dtype in base.LOW_FLOATS:
            x = x.cast(dtypes.float32)
        idt = dtypes.dtype(index_dtype)
        ext = x.reduce(ir_op, axes)
        ext_b = ext.reshape(tuple(1 if i == axis else d for i, d in enumerate(x.shape))).expand(x.shape)
        hit = graph.alu("eq", x, ext_b)
        if x.dtype.kind == "f":
            hit = graph.alu("or", hit, graph.alu("ne", x, x))
        pos = graph.iota(idt, x.shape, axis)
        return graph.where(hit, pos, graph.const_like(pos, x.shape[axis])).reduce("min", axes)
    return lower


def _arg_primitive(name: str, ir_op: str) -> core.Primitive:
    prim = core.Primitive(name)
    core.def_abstract_eval(prim)(_arg_abstract(name))
    def_lowering(prim)(_arg_lowering(ir_op))
    R.defnondifferentiable(prim)
    R.primitive_batchers[prim] = _reduce_batch(prim)
    return prim


argmax_p = _arg_primitive("argmax", "max")
argmin_p = _arg_primitive("argmin", "min")


# ---------------------------------------------------------------- wrappers
def _axes_param(x: Any, axes: Sequence[int]) -> tuple[int, ...]:
    aval = core.get_aval(x)
    axes = tuple(int(a) for a in axes)
    if any(not -aval.ndim <= a < aval.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for {aval.str_short(False)}.")
    return tuple(sorted({a % aval.ndim for a in axes}))


def _wrapper(prim: core.Primitive):
    def fn(operand: Any, axes: Sequence[int]) -> Any:
        return prim.bind(operand, axes=_axes_param(operand, axes))
    fn.__name__ = prim.name
    fn.__doc__ = f"`lax.{prim.name}`: reduce `operand` over `axes`."
    return fn


reduce_sum = _wrapper(reduce_sum_p)
reduce_prod = _wrapper(reduce_prod_p)
reduce_max = _wrapper(reduce_max_p)
reduce_min = _wrapper(reduce_min_p)
reduce_and = _wrapper(reduce_and_p)
reduce_or = _wrapper(reduce_or_p)
reduce_xor = _wrapper(reduce_xor_p)


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
    """`lax.argmax`: index of the largest element along `axis` (first one; NaN wins)."""
    (axis,) = base.canonical_axes([axis], core.get_aval(operand).ndim)
    return argmax_p.bind(operand, axes=(axis,), index_dtype=dtypes.canonicalize_dtype(index_dtype))


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
    """`lax.argmin`: index of the smallest element along `axis` (first one; NaN wins)."""
    (axis,) = base.canonical_axes([axis], core.get_aval(operand).ndim)
    return argmin_p.bind(operand, axes=(axis,), index_dtype=dtypes.canonicalize_dtype(index_dtype))


# ---------------------------------------------------------------- lax.reduce
#: lax computation name -> (reduction, identity of the monoid for a dtype)
_MONOIDS: dict[str, tuple[Callable, Callable[[Any], Any]]] = {
    "add": (reduce_sum, lambda dt: 0), "mul": (reduce_prod, lambda dt: 1),
    "max": (reduce_max, lambda dt: REDUCE_IDENTITY["max"](dt)),
    "min": (reduce_min, lambda dt: REDUCE_IDENTITY["min"](dt)),
    "bitwise_and": (reduce_and, lambda dt: True if dt.kind == "b" else -1 if dt.kind == "i" else dtypes.iinfo(dt).max),
    "bitwise_or": (reduce_or, lambda dt: 0), "bitwise_xor": (reduce_xor, lambda dt: 0),
}
_PROBES = {(5.0, -3.0): "add", (6.0, 2.0): "mul", (3.0, -1.0): "max", (2.0, -2.0): "min"}


def monoid_of(computation: Callable) -> str | None:
    """The lax name of a monoid computation: by identity with the lax function, or (for
    lambdas wrapping add/mul/max/min) by probing it on scalars."""
    for name in _MONOIDS:
        if computation is getattr(lax_ew, name, None):
            return name
    try:
        a = float(computation(2.0, 3.0))
        b = float(computation(-1.0, -2.0))
    except Exception:  # noqa: BLE001  (an arbitrary user function: anything may fail)
        return None
    return _PROBES.get((a, b))


def is_identity(name: str, init: Any, dtype: Any) -> bool:
    """Whether `init` is the monoid's identity (then it need not be folded in)."""
    if isinstance(init, core.Tracer):
        return False
    try:
        v = init.item() if hasattr(init, "item") else init
    except Exception:  # noqa: BLE001  (not a concrete scalar)
        return False
    return v == _MONOIDS[name][1](dtypes.dtype(dtype))


def fold_init(name: str, out: Any, init: Any) -> Any:
    """`out` combined with a non-identity init value (XLA folds it into every reduction)."""
    dt = core.get_aval(out).dtype
    if is_identity(name, init, dt):
        return out
    return getattr(lax_ew, name)(out, lax_ew.convert_element_type(init, dt))


def reduce(operands: Any, init_values: Any, computation: Callable, dimensions: Sequence[int]) -> Any:
    """`lax.reduce` for the monoids add, mul, max, min and bitwise and/or/xor, one operand
    (or a 1-tuple of them)."""
    multi = isinstance(operands, (tuple, list))
    ops = list(operands) if multi else [operands]
    inits = list(init_values) if multi else [init_values]
    if len(ops) != len(inits):
        raise ValueError("reduce: operands and init_values must have the same length")
    name = monoid_of(computation)
    if name is None or len(ops) != 1:
        raise NotImplementedError("lax.reduce supports only the monoids add, mul, max, min and "
                                  "bitwise and/or/xor on a single operand")
    (x,), (init,) = ops, inits
    out = fold_init(name, _MONOIDS[name][0](x, dimensions), init)
    return (out,) if multi else out


from .cumulative import *  # noqa: E402,F401,F403  (cumsum & co., listed in jaxweb.lax)
from .cumulative import __all__ as _cumulative_all  # noqa: E402
from .cumulative import others_product
from . import elementwise as lax_ew
from . import structural as lax_st

__all__ = __all__ + _cumulative_all
