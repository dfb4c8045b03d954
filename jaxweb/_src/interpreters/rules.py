"""Transformation rule tables and the helpers primitives register with.

These dicts are keyed by Primitive; the interpreters (ad.py, batching.py) read them
and never name primitives. Each primitive module registers its rules right beside
the primitive, in a line or two, with the helpers below (as JAX's lax.py does).

Conventions:
- `primitive_jvps[p](primals, tangents, **params) -> (primal_out, tangent_out)`.
  Tangents may be `Zero(aval)` (symbolic zero); outputs may be Zero too.
- `primitive_transposes[p](ct, *args, **params) -> list of cotangents`, one per arg;
  linear arguments are `UndefinedPrimal(aval)`, others concrete/traced values; give
  None (or Zero) for a non-linear argument. `ct` may be Zero.
- `primitive_batchers[p](batched_args, batch_dims, **params) -> (out, out_dim)`;
  a dim is an int or `not_mapped` (None). For multiple_results, lists of both.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import core, dtypes

primitive_jvps: dict[core.Primitive, Callable] = {}
primitive_transposes: dict[core.Primitive, Callable] = {}
primitive_batchers: dict[core.Primitive, Callable] = {}
not_mapped = None

#: The few array operations the interpreters apply themselves: `add` (summing tangents),
#: `full` (instantiating a symbolic zero), `transpose` and `broadcast_in_dim` (moving and
#: adding batch axes), and `broadcast_in_dim_p` (staging a splatted constant). They are lax's:
#: each lax module fills in its own when it loads, so the interpreters stay below lax (the seam
#: JAX's ad_util keeps with `aval_zeros_likers`).
array_ops: dict[str, Callable] = {}


class Zero:
    """A symbolic zero tangent/cotangent of abstract value `aval`."""

    __slots__ = ("aval",)

    def __init__(self, aval: core.ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"

    @staticmethod
    def from_value(x: Any) -> "Zero":
        return Zero(core.get_aval(x))


class UndefinedPrimal:
    """Placeholder for the linear input of a primitive being transposed."""

    __slots__ = ("aval",)

    def __init__(self, aval: core.ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined_primal(x: Any) -> bool:
    return isinstance(x, UndefinedPrimal)


def instantiate_zeros(t: Any) -> Any:
    """A concrete (or traced) zero array for a symbolic Zero; anything else unchanged."""
    if isinstance(t, Zero):
        z = array_ops["full"](t.aval.shape, 0, tangent_dtype(t.aval.dtype))
        if t.aval.weak_type and not z.weak_type:  # keep JAX's weak type on zero tangents
            z.aval = z.aval.update(weak_type=True)
        return z
    return t


def tangent_dtype(dtype: Any) -> Any:
    """Tangent dtype of a primal dtype: float0 for integers and bools, as in JAX."""
    return dtype if dtypes.dtype(dtype).kind in "fc" else dtypes.float0


def _add_tangents(a: Any, b: Any) -> Any:
    if isinstance(a, Zero):
        return b
    if isinstance(b, Zero):
        return a
    return a + b


def defjvp(prim: core.Primitive, *jvp_fns: Callable | None) -> None:
    """JVP from one function per argument: `fn(tangent_i, *primals, **params)`.

    None means the output does not depend differentiably on that argument."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        t_out: Any = Zero(core.get_aval(out).update(dtype=tangent_dtype(core.get_aval(out).dtype)))
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and not isinstance(t, Zero):
                t_out = _add_tangents(t_out, fn(t, *primals, **params))
        return out, t_out
    primitive_jvps[prim] = rule


def defjvp2(prim: core.Primitive, *jvp_fns: Callable | None) -> None:
    """Like defjvp, but each fn also gets the primal output: `fn(t, ans, *primals, **params)`."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        t_out: Any = Zero(core.get_aval(out).update(dtype=tangent_dtype(core.get_aval(out).dtype)))
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and not isinstance(t, Zero):
                t_out = _add_tangents(t_out, fn(t, out, *primals, **params))
        return out, t_out
    primitive_jvps[prim] = rule


def deflinear(prim: core.Primitive, transpose_rule: Callable) -> None:
    """`prim` is linear in all its arguments: JVP applies prim to the tangents.

    `transpose_rule(ct, *args, **params)` returns one cotangent per argument."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(isinstance(t, Zero) for t in tangents):
            aval = core.get_aval(out)
            return out, Zero(aval.update(dtype=tangent_dtype(aval.dtype)))
        return out, prim.bind(*[instantiate_zeros(t) for t in tangents], **params)
    primitive_jvps[prim] = jvp
    primitive_transposes[prim] = transpose_rule


def defbilinear(prim: core.Primitive, lhs_rule: Callable, rhs_rule: Callable) -> None:
    """`prim(x, y)` is linear in each argument separately (mul, dot_general, conv).

    `lhs_rule(ct, x, y, **params)` is the cotangent of x (x undefined), `rhs_rule` of y."""
    def jvp(primals, tangents, **params):
        x, y = primals
        tx, ty = tangents
        out = prim.bind(x, y, **params)
        t: Any = Zero(core.get_aval(out))
        if not isinstance(tx, Zero):
            t = _add_tangents(t, prim.bind(tx, y, **params))
        if not isinstance(ty, Zero):
            t = _add_tangents(t, prim.bind(x, ty, **params))
        return out, t

    def transpose(ct, x, y, **params):
        cx = lhs_rule(ct, x, y, **params) if is_undefined_primal(x) else None
        cy = rhs_rule(ct, x, y, **params) if is_undefined_primal(y) else None
        return [cx, cy]
    primitive_jvps[prim] = jvp
    primitive_transposes[prim] = transpose


def defvectorized(prim: core.Primitive) -> None:
    """Batching for unary elementwise ops: apply to the batched array as is."""
    primitive_batchers[prim] = lambda args, dims, **params: (prim.bind(*args, **params), dims[0])


def defbroadcasting(prim: core.Primitive) -> None:
    """Batching for n-ary elementwise ops of equal-shaped operands: align batch dims first."""
    def rule(args, dims, **params):
        from .batching import broadcast_batched  # late: needs lax
        args, d = broadcast_batched(args, dims)
        return prim.bind(*args, **params), d
    primitive_batchers[prim] = rule


def defnondifferentiable(prim: core.Primitive) -> None:
    """Outputs are integer/boolean (comparisons, argmax, population_count): zero tangents."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        outs = out if prim.multiple_results else [out]
        zs = [Zero(core.get_aval(o).update(dtype=tangent_dtype(core.get_aval(o).dtype))) for o in outs]
        return out, (zs if prim.multiple_results else zs[0])
    primitive_jvps[prim] = rule
