"""Helpers that define primitives in a few lines each (like JAX's `standard_*op`).

An elementwise primitive is a name, the dtype kinds it accepts and an IR op:
`unop`/`binop` build the Primitive, its shape/dtype rule (JAX's error messages),
its lowering to the kernel IR, and return it; the caller registers its jvp,
transpose and batching rules on the next lines.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import core, dtypes
from ..compiler import graph
from ..compiler.graph import Node
from ..dispatch import def_lowering
from ..dtypes import DType
from ..array import Array
from ..device import default_device
from ..hostdata import coerce_scalar

FLOAT = "f"
INEXACT = "fc"
INT = "iu"
SIGNED = "i"
BOOL = "b"
NUM = "iufc"
REAL_NUM = "iuf"
ANY = "biuf"
ORDERED = "biufc"  # max/min (complex numbers in numpy's lexicographic order)
INT_OR_BOOL = "biu"

#: float dtypes computed in float32 by lowerings (IR math sees f32/f64 only)
LOW_FLOATS = (dtypes.float16, dtypes.bfloat16)


def _category_names(kinds: str) -> str:
    names = []
    if "i" in kinds and "u" in kinds:
        names.append("integer")
    else:
        names += [n for k, n in (("i", "signedinteger"), ("u", "unsignedinteger")) if k in kinds]
    if "f" in kinds:
        names.append("floating")
    if "c" in kinds:
        names.append("complexfloating")
    if "b" in kinds:
        names.append("bool")
    return ", ".join(names)


def check_dtype(name: str, aval: core.ShapedArray, kinds: str, position: int | None = None) -> None:
    """JAX's message: 'add does not accept dtype bool at position 0. Accepted dtypes ...'."""
    if aval.dtype.kind not in kinds or aval.dtype is dtypes.float0:
        at = "" if position is None else f" at position {position}"
        raise TypeError(f"{name} does not accept dtype {aval.dtype.name}{at}. "
                        f"Accepted dtypes{at} are subtypes of {_category_names(kinds)}.")


#: jnp functions that promote, named in lax's dtype-mismatch tip
_JNP_NAMES = {"sub": "subtract", "mul": "multiply", "div": "divide", "rem": "remainder",
              "pow": "power", "max": "maximum", "min": "minimum", "and": "bitwise_and",
              "or": "bitwise_or", "xor": "bitwise_xor", "lt": "less", "le": "less_equal",
              "gt": "greater", "ge": "greater_equal", "eq": "equal", "ne": "not_equal"}


def check_same(name: str, avals: Sequence[core.ShapedArray]) -> None:
    if len({a.dtype for a in avals}) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(a.dtype.name for a in avals)}. (Tip: jnp.{_JNP_NAMES.get(name, name)} "
                        "is a similar function that does automatic type promotion on inputs).")
    shapes = [a.shape for a in avals]
    if len(set(shapes)) > 1:
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        f"{', '.join(str(s) for s in shapes)}.")


def in_f32(fn: Callable[..., Node]) -> Callable[..., Node]:
    """Wrap an elementwise lowering so float16/bfloat16 inputs compute in float32."""
    def lowered(*xs: Node, **params: Any) -> Node:
        dt = xs[0].dtype
        if dt in LOW_FLOATS:
            out = fn(*[x.cast(dtypes.float32) if x.dtype is dt else x for x in xs], **params)
            return out.cast(dt) if out.dtype is dtypes.float32 else out
        return fn(*xs, **params)
    return lowered


def unop(name: str, kinds: str, ir_op: str | Callable[..., Node] | None = None,
         result_dtype: DType | None = None, complex_to_real: bool = False) -> core.Primitive:
    """A unary elementwise primitive. `ir_op` is an IR op name or a lowering fn;
    `complex_to_real`: complex operands give the real dtype of their parts (abs)."""
    prim = core.Primitive(name)

    @core.def_abstract_eval(prim)
    def _abstract(x, **params):
        check_dtype(name, x, kinds)
        dt = result_dtype or (dtypes.real_part_dtype(x.dtype) if complex_to_real else x.dtype)
        return x.update(dtype=dt, weak_type=x.weak_type)  # JAX's standard rule: even is_finite's bool

    op = ir_op or name
    lower = op if callable(op) else (lambda x, **p: graph.alu(op, x))
    def_lowering(prim)(in_f32(lower))
    return prim


def binop(name: str, kinds: str, ir_op: str | Callable[..., Node] | None = None,
          result_dtype: DType | None = None) -> core.Primitive:
    """A binary elementwise primitive on same-shape, same-dtype operands."""
    prim = core.Primitive(name)

    @core.def_abstract_eval(prim)
    def _abstract(x, y, **params):
        check_dtype(name, x, kinds, 0)
        check_dtype(name, y, kinds, 1)
        check_same(name, [x, y])
        return x.update(dtype=result_dtype or x.dtype, weak_type=x.weak_type and y.weak_type)

    op = ir_op or name
    lower = op if callable(op) else (lambda x, y, **p: graph.alu(op, x, y))
    def_lowering(prim)(in_f32(lower) if result_dtype is None else lower)
    return prim


def naryop_dtype_rule(name: str, avals, kinds: str) -> None:
    for a in avals:
        check_dtype(name, a, kinds)
    check_same(name, avals)


# ---------------------------------------------------------------- operand helpers
def aval_of(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def constant(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """A constant array of a host scalar (no device memory until it is needed): `lax.full`
    for a fill value known on the host. A traced or non-scalar fill value needs
    `broadcast_in_dim`, so `lax.full` itself lives with it in `structural`."""
    shape = core.canonicalize_shape(shape)
    if any(d < 0 for d in shape):
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got {shape}.")
    if isinstance(fill_value, Array):
        fill_value = fill_value.item()
    weak = dtype is None and core.is_python_scalar(fill_value) and not isinstance(fill_value, bool)
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else core.get_aval(fill_value).dtype
    if dt is dtypes.float0:
        return Array.constant(core.ShapedArray(shape, dt), default_device(), False)
    return Array.constant(core.ShapedArray(shape, dt, weak), default_device(), coerce_scalar(fill_value, dt))


def canonical_axes(axes: Sequence[int], ndim: int, name: str = "axis") -> tuple[int, ...]:
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{name} {a} is out of bounds for array of dimension {ndim}")
        out.append(a % ndim if ndim else 0)
    return tuple(out)
