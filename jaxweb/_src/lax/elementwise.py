"""Elementwise primitives: arithmetic, rounding, comparisons, bitwise ops, selects, casts.

Each primitive is defined in a line or two with `unop`/`binop` (base.py), followed by
its JVP/transpose and batching rules, as in JAX's lax.py. Float16/bfloat16 compute
in float32. The transcendental functions (exp, log, trig, special functions) live
in `transcendental.py` and are re-exported here, so `jaxweb.lax` sees one family.
Every user-facing wrapper accepts Python scalars, which take the other operand's
dtype (weakly typed), as JAX's lax functions do.
"""
from __future__ import annotations

__all__ = [
    "add", "sub", "mul", "div", "rem", "pow", "integer_pow", "max", "min", "neg", "sign",
    "abs", "square", "square_p", "reciprocal", "floor", "ceil", "round", "RoundingMethod", "nextafter",
    "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "shift_left", "shift_right_logical", "shift_right_arithmetic",
    "population_count", "clz", "select_n", "select", "clamp", "convert_element_type",
    "bitcast_convert_type", "reduce_precision", "iota", "broadcasted_iota", "full_like",
    "add_p", "sub_p", "mul_p", "div_p", "rem_p", "pow_p", "integer_pow_p", "max_p",
    "min_p", "neg_p", "sign_p", "abs_p", "floor_p", "ceil_p", "round_p", "nextafter_p",
    "eq_p", "ne_p", "lt_p", "le_p", "gt_p", "ge_p", "and_p", "or_p", "xor_p", "not_p",
    "shift_left_p", "shift_right_logical_p", "shift_right_arithmetic_p",
    "population_count_p", "clz_p", "select_n_p", "clamp_p", "convert_element_type_p",
    "bitcast_convert_type_p", "reduce_precision_p", "iota_p",
]

import builtins
import enum
from typing import Any, Sequence

from .. import core, dtypes
from ..compiler import graph
from ..array import Array
from ..dispatch import def_lowering
from ..host_arrays import from_host
from ..interpreters import rules as R
from . import base
from .base import ANY, FLOAT, INT, INT_OR_BOOL, NUM, binop, unop

_SIGNED_OR_INEXACT = "ifc"


# ---------------------------------------------------------------- operand helpers
def _weak_scalar(x: Any, dtype: Any) -> Any:
    out = base.constant((), x, dtype)
    out.aval = out.aval.update(weak_type=True)
    return out


def _operand(x: Any) -> Any:
    """A Python scalar becomes a weakly typed 0-d array of its default dtype."""
    return _weak_scalar(x, core.get_aval(x).dtype) if core.is_python_scalar(x) else x


def _promote_scalars(*xs: Any) -> list:
    """lax-style operands: a Python scalar takes the dtype of the first array operand
    (weakly typed); 0-d operands broadcast to the shape of the others."""
    arrays = [x for x in xs if not core.is_python_scalar(x)]
    if arrays:
        dt = core.get_aval(arrays[0]).dtype
        xs = [_weak_scalar(x, dt) if core.is_python_scalar(x) else x for x in xs]
    else:
        xs = [_operand(x) for x in xs]
    shapes = [core.get_aval(x).shape for x in xs]
    target = builtins.max(shapes, key=len)
    if any(s != target and s == () for s in shapes):
        xs = [broadcast_in_dim(x, target, ()) if s == () and s != target else x
              for x, s in zip(xs, shapes)]
    return list(xs)


def _nary_wrapper(prim: core.Primitive, name: str | None = None):
    def fn(*args: Any, **params: Any) -> Any:
        return prim.bind(*_promote_scalars(*args), **params)
    fn.__name__ = fn.__qualname__ = name or prim.name
    fn.__doc__ = f"`lax.{fn.__name__}`: the `{prim.name}` primitive, elementwise."
    return fn


def _unary_wrapper(prim: core.Primitive, name: str | None = None):
    def fn(x: Any, **params: Any) -> Any:
        return prim.bind(_operand(x), **params)
    fn.__name__ = fn.__qualname__ = name or prim.name
    fn.__doc__ = f"`lax.{fn.__name__}`: the `{prim.name}` primitive, elementwise."
    return fn


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None) -> Any:
    """`lax.full_like`: a constant with x's shape and dtype (unless given)."""
    aval = core.get_aval(x)
    out = full(aval.shape if shape is None else shape, fill_value, aval.dtype if dtype is None else dtype)
    if dtype is None and aval.weak_type:  # keeps x's weak type, as JAX does
        out.aval = out.aval.update(weak_type=True)
    return out


def zeros_like(x: Any) -> Any:
    """Zeros with x's shape and dtype."""
    return full_like(x, 0)


def _zero_tangent(x: Any) -> R.Zero:
    aval = core.get_aval(x)
    return R.Zero(aval.update(dtype=R.tangent_dtype(aval.dtype), weak_type=False))


def _linear_transpose(*fns):
    """Transpose rule of a primitive linear in each argument: `fns[i](ct, *args)` gives
    the cotangent of argument i (None where an argument is never linear)."""
    def rule(ct, *args, **params):
        out = []
        for fn, a in zip(fns, args):
            if fn is None or not R.is_undefined_primal(a):
                out.append(None)
            elif isinstance(ct, R.Zero):
                out.append(R.Zero(a.aval))
            else:
                out.append(fn(ct, *args, **params))
        return out
    return rule


# ---------------------------------------------------------------- arithmetic
add_p = binop("add", NUM)
R.array_ops["add"] = add_p.bind  # summing tangents and cotangents
R.defbroadcasting(add_p)
R.deflinear(add_p, _linear_transpose(lambda ct, x, y: ct, lambda ct, x, y: ct))
sub_p = binop("sub", NUM)
R.defbroadcasting(sub_p)
R.deflinear(sub_p, _linear_transpose(lambda ct, x, y: ct, lambda ct, x, y: neg(ct)))
mul_p = binop("mul", NUM)
R.defbroadcasting(mul_p)
R.defbilinear(mul_p, lambda ct, x, y: mul(ct, y), lambda ct, x, y: mul(x, ct))
neg_p = unop("neg", NUM)
R.defvectorized(neg_p)
R.deflinear(neg_p, _linear_transpose(lambda ct, x: neg(ct)))

div_p = binop("div", NUM)
R.defbroadcasting(div_p)
R.defjvp(div_p, lambda g, x, y: div(g, y),
         lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))
R.primitive_transposes[div_p] = _linear_transpose(lambda ct, x, y: div(ct, y), None)

rem_p = binop("rem", base.REAL_NUM)
R.defbroadcasting(rem_p)
R.defjvp(rem_p, lambda g, x, y: g,
         lambda g, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))

max_p = binop("max", base.ORDERED)
R.defbroadcasting(max_p)
min_p = binop("min", base.ORDERED)
R.defbroadcasting(min_p)


def _balanced_eq(x: Any, z: Any, y: Any) -> Any:
    """1 where x is the result z alone, 0.5 where x and y tie, 0 elsewhere (JAX's rule)."""
    one, half, zero = (base.constant(core.get_aval(z).shape, v, core.get_aval(z).dtype) for v in (1, 0.5, 0))
    return select(eq(x, z), select(eq(y, z), half, one), zero)


R.defjvp2(max_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
          lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
R.defjvp2(min_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
          lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))

sign_p = unop("sign", NUM)
R.defvectorized(sign_p)
R.defjvp(sign_p, None)
abs_p = unop("abs", _SIGNED_OR_INEXACT, complex_to_real=True)
R.defvectorized(abs_p)


def _abs_jvp(g: Any, ans: Any, x: Any) -> Any:
    """d|x| = Re(dx conj(x) / |x|) for complex x, written with x and |x| so that it is
    differentiable again (Re(dx) at 0, as JAX); ±dx for real x."""
    if core.get_aval(x).dtype.kind == "c":
        dt = core.get_aval(x).dtype
        return real(mul(g, div(conj(_replace_zero(x)), _replace_zero(convert_element_type(ans, dt)))))
    return select(ge(x, 0), g, neg(g))


R.defjvp2(abs_p, _abs_jvp)


# ---------------------------------------------------------------- pow, integer_pow
pow_p = core.Primitive("pow")


@core.def_abstract_eval(pow_p)
def _pow_abstract(x, y):
    base.check_dtype("pow", x, NUM)  # integer bases: jnp.power's private path
    base.check_dtype("pow", y, NUM)
    if y.dtype.kind in "fc" and y.dtype is not x.dtype or x.dtype.kind in INT and y.dtype.kind in "fc":
        raise TypeError(f"the first argument to pow must have an inexact dtype (float or complex), and "
                        f"the second argument must have an inexact or integer dtype, and two inexact "
                        f"dtypes must match, but got {x.dtype.name} and {y.dtype.name}.")
    base.check_same("pow", [x, y.update(dtype=x.dtype)])
    return x.update(weak_type=x.weak_type and y.weak_type)


@def_lowering(pow_p)
@base.in_f32
def _pow_lower(x, y):
    return graph.alu("pow", x, y.cast(x.dtype))


R.defbroadcasting(pow_p)


def _replace_zero(x: Any) -> Any:
    return select(eq(x, 0), base.constant(core.get_aval(x).shape, 1, core.get_aval(x).dtype), x)


R.defjvp2(pow_p,
          lambda g, ans, x, y: mul(g, mul(convert_element_type(y, core.get_aval(x).dtype),
                                          pow(x, sub(convert_element_type(y, core.get_aval(x).dtype), 1)))),
          lambda g, ans, x, y: mul(g, mul(log(_replace_zero(x)), ans)))

integer_pow_p = core.Primitive("integer_pow")


@core.def_abstract_eval(integer_pow_p)
def _integer_pow_abstract(x, *, y):
    base.check_dtype("integer_pow", x, NUM)
    if y < 0 and x.dtype.kind in INT:
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({x.str_short()}, {y})")
    return x


@def_lowering(integer_pow_p)
@base.in_f32
def _integer_pow_lower(x, *, y):
    """Square-and-multiply on the IR; a negative power is the reciprocal."""
    acc, b, n = None, x, builtins.abs(y)
    while n:
        if n & 1:
            acc = b if acc is None else graph.alu("mul", acc, b)
        n >>= 1
        if n:
            b = graph.alu("mul", b, b)
    one = graph.const_like(x, 1)
    if acc is None:
        return one
    return graph.alu("div", one, acc) if y < 0 else acc


R.defvectorized(integer_pow_p)
R.defjvp(integer_pow_p, lambda g, x, *, y: zeros_like(g) if y == 0 else
         mul(g, mul(integer_pow(x, y - 1), y)))


def pow(x: Any, y: Any) -> Any:
    """`lax.pow`: x (float) to the power y (same float dtype, or any integer dtype)."""
    x = _operand(x)
    xa = core.get_aval(x)
    if xa.dtype.kind not in "fc":
        raise TypeError(f"pow does not accept dtype {xa.dtype.name} at position 0. "
                        "Accepted dtypes at position 0 are subtypes of floating, complexfloating.")
    if core.is_python_scalar(y):
        y = _weak_scalar(y, dtypes.default_int() if type(y) is int else xa.dtype)
    if core.get_aval(y).ndim == 0 and xa.ndim:
        y = broadcast_in_dim(y, xa.shape, ())
    return pow_p.bind(x, y)


def integer_pow(x: Any, y: int) -> Any:
    """`lax.integer_pow`: x to a static integer power, by repeated multiplication."""
    return integer_pow_p.bind(_operand(x), y=int(y))


square_p = unop("square", NUM, lambda x, **_: graph.alu("mul", x, x))
R.defvectorized(square_p)
R.defjvp(square_p, lambda g, x: mul(g, mul(x, full_like(x, 2))))


def square(x: Any) -> Any:
    """`lax.square`: x * x (its own primitive, as in JAX's jaxprs)."""
    return square_p.bind(_operand(x))


def reciprocal(x: Any) -> Any:
    """`lax.reciprocal`: 1 / x."""
    return integer_pow(x, -1)


# ---------------------------------------------------------------- rounding
class RoundingMethod(enum.IntEnum):
    """How `lax.round` breaks ties (JAX's values)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


floor_p = unop("floor", FLOAT)
R.defvectorized(floor_p)
R.defjvp(floor_p, None)
ceil_p = unop("ceil", FLOAT)
R.defvectorized(ceil_p)
R.defjvp(ceil_p, None)
round_p = unop("round", FLOAT, lambda x, *, rounding_method: graph.alu(
    "round_even" if int(rounding_method) == RoundingMethod.TO_NEAREST_EVEN else "round", x))
R.defvectorized(round_p)
R.defjvp(round_p, None)


def round(x: Any, rounding_method: Any = RoundingMethod.AWAY_FROM_ZERO) -> Any:
    """`lax.round`: ties away from zero (default) or to nearest even."""
    return round_p.bind(_operand(x), rounding_method=RoundingMethod(int(rounding_method)))


nextafter_p = core.Primitive("nextafter")


@core.def_abstract_eval(nextafter_p)
def _nextafter_abstract(x, y):
    base.naryop_dtype_rule("nextafter", [x, y], FLOAT)
    return x.update(weak_type=x.weak_type and y.weak_type)


@def_lowering(nextafter_p)
def _nextafter_lower(x, y):  # no float32 detour: the step is one ulp of x's own dtype
    return graph.alu("nextafter", x, y)


R.defbroadcasting(nextafter_p)

# ---------------------------------------------------------------- comparisons
eq_p, ne_p, lt_p, le_p, gt_p, ge_p = (binop(n, ANY + "c" if n in ("eq", "ne") else ANY, result_dtype=dtypes.bool_)
                                      for n in ("eq", "ne", "lt", "le", "gt", "ge"))
for _p in (eq_p, ne_p, lt_p, le_p, gt_p, ge_p):
    R.defbroadcasting(_p)
    R.defnondifferentiable(_p)

# ---------------------------------------------------------------- bitwise and logical
and_p = binop("and", INT_OR_BOOL)
or_p = binop("or", INT_OR_BOOL)
xor_p = binop("xor", INT_OR_BOOL)
not_p = unop("not", INT_OR_BOOL)
R.defvectorized(not_p)
R.defnondifferentiable(not_p)
shift_left_p = binop("shift_left", INT, "shl")
shift_right_logical_p = binop("shift_right_logical", INT, "shr_logical")
shift_right_arithmetic_p = binop("shift_right_arithmetic", INT, "shr_arith")
for _p in (and_p, or_p, xor_p, shift_left_p, shift_right_logical_p, shift_right_arithmetic_p):
    R.defbroadcasting(_p)
    R.defnondifferentiable(_p)
population_count_p = unop("population_count", INT)
clz_p = unop("clz", INT)
for _p in (population_count_p, clz_p):
    R.defvectorized(_p)
    R.defnondifferentiable(_p)


# ---------------------------------------------------------------- select_n, clamp
select_n_p = core.Primitive("select_n")


@core.def_abstract_eval(select_n_p)
def _select_n_abstract(which, *cases):
    if not cases:
        raise TypeError("select_n must have at least one case")
    if len({c.dtype for c in cases}) > 1:
        raise TypeError("lax.select requires arguments to have the same dtypes, got "
                        f"{', '.join(c.dtype.name for c in cases)}. (Tip: jnp.where is a similar "
                        "function that does automatic type promotion on inputs).")
    if len({c.shape for c in cases}) > 1:
        raise TypeError(f"select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if which.dtype.kind not in "biu":
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype.name}.")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, got `which` "
                        f"shape {which.shape} but case shape {cases[0].shape}.")
    if which.dtype.kind == "b" and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    return cases[0].update(weak_type=all(c.weak_type for c in cases))


@def_lowering(select_n_p)
def _select_n_lower(which, *cases):
    which = which.expand_to(cases[0].shape)
    if which.dtype.kind == "b":
        return graph.where(which, cases[1], cases[0]) if len(cases) > 1 else cases[0]
    out = cases[-1]  # integer `which`: out-of-range values pick the last case (as XLA clamps)
    for i in builtins.range(len(cases) - 2, -1, -1):
        out = graph.where(graph.alu("le", which, graph.const_like(which, i)), cases[i], out)
    return out


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    out = select_n_p.bind(which, *cases)
    if all(isinstance(t, R.Zero) for t in tangents[1:]):
        return out, _zero_tangent(out)
    return out, select_n_p.bind(which, *[R.instantiate_zeros(t) for t in tangents[1:]])


def _select_n_transpose(ct, which, *cases):
    assert not R.is_undefined_primal(which)
    out = [None]
    for i, c in enumerate(cases):
        if not R.is_undefined_primal(c):
            out.append(None)
        elif isinstance(ct, R.Zero):
            out.append(R.Zero(c.aval))
        else:
            z = zeros_like(ct)
            out.append(select_n_p.bind(which, *[ct if j == i else z for j in builtins.range(len(cases))]))
    return out


def _full_batch(args: Sequence[Any], dims: Sequence[Any], shape: tuple) -> tuple[list, int]:
    """Move every batch dim to the front; broadcast unbatched (or 0-d) args to (B,) + shape."""
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    out = []
    for a, d in zip(args, dims):
        aval = core.get_aval(a)
        if d is None:
            bd = tuple(builtins.range(1 + len(shape) - aval.ndim, 1 + len(shape)))
            out.append(broadcast_in_dim(a, (size,) + shape, bd))
            continue
        if d != 0:
            perm = (d,) + tuple(i for i in builtins.range(aval.ndim) if i != d)
            a = transpose(a, perm)
        if aval.ndim == 1 and shape:
            a = broadcast_in_dim(a, (size,) + shape, (0,))
        out.append(a)
    return out, 0


def _select_n_batch(args, dims):
    shape = next(core.get_aval(c).shape if d is None else
                 tuple(n for i, n in enumerate(core.get_aval(c).shape) if i != d)
                 for c, d in zip(args[1:], dims[1:]))
    args, d = _full_batch(args, dims, shape)
    return select_n_p.bind(*args), d


R.primitive_jvps[select_n_p] = _select_n_jvp
R.primitive_transposes[select_n_p] = _select_n_transpose
R.primitive_batchers[select_n_p] = _select_n_batch


def select_n(which: Any, *cases: Any) -> Any:
    """`lax.select_n`: pick `cases[which]` elementwise (bool `which`: False -> 0, True -> 1)."""
    return select_n_p.bind(_operand(which), *_promote_scalars(*cases))


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """`lax.select`: `on_true` where `pred`, else `on_false`."""
    return select_n(pred, on_false, on_true)


clamp_p = core.Primitive("clamp")


@core.def_abstract_eval(clamp_p)
def _clamp_abstract(lo, x, hi):
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape == (), got "
                            f"{name}.shape={b.shape}, operand.shape={x.shape}.")
    if lo.dtype is not x.dtype or hi.dtype is not x.dtype:
        raise TypeError(f"clamp requires min.dtype == operand.dtype == max.dtype, got "
                        f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}.")
    base.check_dtype("clamp", x, ANY)
    return x


@def_lowering(clamp_p)
@base.in_f32
def _clamp_lower(lo, x, hi):
    return graph.alu("min", graph.alu("max", x, lo.expand_to(x.shape)), hi.expand_to(x.shape))


def _bcast_to(t: Any, x: Any) -> Any:
    shape = core.get_aval(x).shape
    if core.get_aval(t).shape == shape:
        return t
    return broadcast_in_dim(t, shape, ())


R.defjvp(clamp_p,
         lambda g, lo, x, hi: select(bitwise_and(gt(_bcast_to(lo, x), x), lt(_bcast_to(lo, x), _bcast_to(hi, x))),
                                     _bcast_to(g, x), zeros_like(x)),
         lambda g, lo, x, hi: select(bitwise_and(gt(x, _bcast_to(lo, x)), lt(x, _bcast_to(hi, x))),
                                     g, zeros_like(x)),
         lambda g, lo, x, hi: select(lt(_bcast_to(hi, x), x), _bcast_to(g, x), zeros_like(x)))


def _clamp_batch(args, dims):
    shape = tuple(n for i, n in enumerate(core.get_aval(args[1]).shape) if i != dims[1]) \
        if dims[1] is not None else core.get_aval(args[1]).shape
    args, d = _full_batch(args, dims, shape)
    return clamp_p.bind(*args), d


R.primitive_batchers[clamp_p] = _clamp_batch


def clamp(min: Any, x: Any, max: Any) -> Any:
    """`lax.clamp`: x limited to [min, max]; min and max may be scalars."""
    x = _operand(x)
    dt = core.get_aval(x).dtype
    lo, hi = (_weak_scalar(b, dt) if core.is_python_scalar(b) else b for b in (min, max))
    return clamp_p.bind(lo, x, hi)


# ---------------------------------------------------------------- casts
convert_element_type_p = core.Primitive("convert_element_type")


@core.def_abstract_eval(convert_element_type_p)
def _convert_abstract(x, *, new_dtype, weak_type=False):
    return x.update(dtype=new_dtype, weak_type=weak_type)


@def_lowering(convert_element_type_p)
def _convert_lower(x, *, new_dtype, weak_type=False):
    return x.cast(new_dtype)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type=False):
    (x,), (t,) = primals, tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if isinstance(t, R.Zero) or new_dtype.kind not in "fc" or core.get_aval(x).dtype.kind not in "fc":
        return out, _zero_tangent(out)
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type)


def _convert_transpose(ct, x, *, new_dtype, weak_type=False):
    if isinstance(ct, R.Zero):
        return [R.Zero(x.aval)]
    return [convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=x.aval.weak_type)]


R.defvectorized(convert_element_type_p)
R.primitive_jvps[convert_element_type_p] = _convert_jvp
R.primitive_transposes[convert_element_type_p] = _convert_transpose


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """`lax.convert_element_type`; a no-op when dtype and weak type already match.

    Float to integer conversion truncates toward zero and saturates (NaN gives 0)."""
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    if core.is_python_scalar(x):
        return _weak_scalar(x, new_dtype) if weak_type else base.constant((), x, new_dtype)
    aval = core.get_aval(x)
    if aval.dtype is new_dtype and aval.weak_type == weak_type:
        return x
    return convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=bool(weak_type))


def asarray(x: Any, dtype: Any = None) -> Any:
    """An Array (or tracer) of `x` in `dtype`: host values through `host_arrays.from_host`,
    arrays and tracers through `convert_element_type` (JAX's `lax_internal.asarray`). What
    code below jnp uses where it would have written `jnp.asarray`."""
    if isinstance(x, (Array, core.Tracer)):
        return x if dtype is None else convert_element_type(x, dtype)
    return from_host(x, dtype)


bitcast_convert_type_p = core.Primitive("bitcast_convert_type")


@core.def_abstract_eval(bitcast_convert_type_p)
def _bitcast_abstract(x, *, new_dtype):
    if x.dtype.itemsize != new_dtype.itemsize:
        raise NotImplementedError(
            f"bitcast_convert_type from {x.dtype.name} to {new_dtype.name}: only dtypes of the same "
            "width are supported in jaxweb.")
    return x.update(dtype=new_dtype, weak_type=False)


@def_lowering(bitcast_convert_type_p)
def _bitcast_lower(x, *, new_dtype):
    return x.bitcast(new_dtype)


R.defvectorized(bitcast_convert_type_p)
R.defnondifferentiable(bitcast_convert_type_p)


def bitcast_convert_type(x: Any, new_dtype: Any) -> Any:
    """`lax.bitcast_convert_type`: reinterpret the bits (same-width dtypes only)."""
    return bitcast_convert_type_p.bind(_operand(x), new_dtype=dtypes.canonicalize_dtype(new_dtype))


reduce_precision_p = core.Primitive("reduce_precision")
_FLOAT_LAYOUT = {"float32": (8, 23, dtypes.uint32), "float64": (11, 52, dtypes.uint64)}


@core.def_abstract_eval(reduce_precision_p)
def _reduce_precision_abstract(x, *, exponent_bits, mantissa_bits):
    base.check_dtype("reduce_precision", x, FLOAT)
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ValueError(f"reduce_precision: exponent_bits must be >= 1 and mantissa_bits >= 0, got "
                         f"{exponent_bits} and {mantissa_bits}")
    return x


@def_lowering(reduce_precision_p)
@base.in_f32
def _reduce_precision_lower(x, *, exponent_bits, mantissa_bits):
    """Round x to a float with the given exponent/mantissa widths (XLA's ReducePrecision):
    round the mantissa to nearest even, then overflow to inf and underflow to zero."""
    E, M, ut = _FLOAT_LAYOUT[x.dtype.name]
    u = x.bitcast(ut)
    c = lambda v: graph.const_like(u, v)  # noqa: E731
    if mantissa_bits < M:
        drop = M - mantissa_bits
        last = graph.alu("rem", graph.alu("shr_logical", u, c(drop)), c(2))  # the kept lowest bit
        u = graph.alu("add", u, graph.alu("add", last, c((1 << (drop - 1)) - 1)))
        u = graph.alu("and", u, c(((1 << (ut.itemsize * 8)) - 1) ^ ((1 << drop) - 1)))
    if exponent_bits < E:
        exp_mask = ((1 << E) - 1) << M
        bias, rbias = (1 << (E - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        expo = graph.alu("and", u, c(exp_mask))
        sign_bit = graph.alu("and", u, c(1 << (ut.itemsize * 8 - 1)))
        over = graph.alu("gt", expo, c((bias + rbias) << M))
        under = graph.alu("le", expo, c((bias - rbias) << M))
        u = graph.where(over, graph.alu("or", sign_bit, c(exp_mask)), graph.where(under, sign_bit, u))
    return graph.where(graph.alu("ne", x, x), x, u.bitcast(x.dtype))


R.defvectorized(reduce_precision_p)
R.deflinear(reduce_precision_p, lambda ct, x, **p: [
    ct if isinstance(ct, R.Zero) else reduce_precision_p.bind(ct, **p)])


def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """`lax.reduce_precision`: round to a narrower float format, keeping the dtype."""
    return reduce_precision_p.bind(_operand(operand), exponent_bits=int(exponent_bits),
                                   mantissa_bits=int(mantissa_bits))



# ---------------------------------------------------------------- iota
iota_p = core.Primitive("iota")


@core.def_abstract_eval(iota_p)
def _iota_abstract(*, dtype, shape, dimension):
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got dimension={dimension} "
                         f"for shape {shape}")
    if any(d < 0 for d in shape):
        raise TypeError(f"iota shape must have non-negative dimensions, got {shape}")
    return core.ShapedArray(shape, dtype)


@def_lowering(iota_p)
def _iota_lower(*, dtype, shape, dimension):
    if dtype in base.LOW_FLOATS:
        return graph.iota(dtypes.float32, shape, dimension).cast(dtype)
    return graph.iota(dtype, shape, dimension)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
    """`lax.broadcasted_iota`: indices along `dimension`, broadcast to `shape`."""
    shape = tuple(int(core.concrete_or_error(d, "iota shape")) for d in shape)
    dimension = int(dimension) % len(shape) if shape and int(dimension) < 0 else int(dimension)
    return iota_p.bind(dtype=dtypes.canonicalize_dtype(dtype), shape=shape, dimension=dimension)


def iota(dtype: Any, size: int) -> Any:
    """`lax.iota`: [0, 1, ..., size - 1] as `dtype`."""
    return broadcasted_iota(dtype, (int(core.concrete_or_error(size, "iota size")),), 0)


# ---------------------------------------------------------------- wrappers
add = _nary_wrapper(add_p)
sub = _nary_wrapper(sub_p)
mul = _nary_wrapper(mul_p)
div = _nary_wrapper(div_p)
rem = _nary_wrapper(rem_p)
max = _nary_wrapper(max_p)  # noqa: A001  (lax.max, as in JAX)
min = _nary_wrapper(min_p)  # noqa: A001
nextafter = _nary_wrapper(nextafter_p)
eq, ne, lt, le, gt, ge = (_nary_wrapper(p) for p in (eq_p, ne_p, lt_p, le_p, gt_p, ge_p))
bitwise_and = _nary_wrapper(and_p, "bitwise_and")
bitwise_or = _nary_wrapper(or_p, "bitwise_or")
bitwise_xor = _nary_wrapper(xor_p, "bitwise_xor")
shift_left = _nary_wrapper(shift_left_p)
shift_right_logical = _nary_wrapper(shift_right_logical_p)
shift_right_arithmetic = _nary_wrapper(shift_right_arithmetic_p)
neg = _unary_wrapper(neg_p)
sign = _unary_wrapper(sign_p)
abs = _unary_wrapper(abs_p)  # noqa: A001
floor = _unary_wrapper(floor_p)
ceil = _unary_wrapper(ceil_p)
bitwise_not = _unary_wrapper(not_p, "bitwise_not")
population_count = _unary_wrapper(population_count_p)
clz = _unary_wrapper(clz_p)

# The math functions: defined after the helpers above, which their JVP rules use.
from .transcendental import *  # noqa: E402,F401,F403
from .transcendental import __all__ as _transcendental_all  # noqa: E402
from .transcendental import log  # noqa: E402  (pow's JVP)
from .structural import broadcast_in_dim, full, transpose
from .complex import conj, real

__all__ += _transcendental_all
