"""The interpreter core, after Autodidax: primitives, abstract values, traces.

`Primitive.bind` finds the innermost active trace among its arguments (or the
dynamic trace) and lets it process the primitive. The bottom of the stack is the
eval trace, which runs `impl_rules[prim]`: lower to the kernel IR and execute on a
device. Transformations (jvp, batching, jaxpr tracing) are traces pushed on top.
Rules live in plain dicts keyed by primitive; interpreters never name primitives.
"""
from __future__ import annotations

import contextlib
import operator
from typing import Any, Callable, Iterator, Sequence

from . import dtypes
from .dtypes import DType


class ConcretizationTypeError(TypeError):
    """A traced value was used where Python needs a concrete one (bool, int, index)."""


class TracerBoolConversionError(ConcretizationTypeError):
    pass


class TracerIntegerConversionError(ConcretizationTypeError):
    pass


class TracerArrayConversionError(TypeError):
    pass


class UnexpectedTracerError(Exception):
    pass


# ---------------------------------------------------------------- abstract values
class ShapedArray:
    """The abstract value of an array: shape, dtype and JAX's weak_type flag."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash")
    array_abstraction_level = 1

    def __init__(self, shape: Sequence[int], dtype: Any, weak_type: bool = False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype: DType = dtypes.dtype(dtype)
        self.weak_type = bool(weak_type)
        self._hash = None

    ndim = property(lambda self: len(self.shape))

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def update(self, shape=None, dtype=None, weak_type=None) -> "ShapedArray":
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def strip_weak_type(self) -> "ShapedArray":
        return self.update(weak_type=False) if self.weak_type else self

    def __eq__(self, other: Any) -> bool:
        return (type(self) is type(other) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self) -> int:  # computed once: a jitted call hashes every argument's aval
        h = self._hash
        if h is None:
            h = self._hash = hash((self.shape, self.dtype, self.weak_type))
        return h

    def str_short(self, short_dtypes: bool = False) -> str:
        name = _SHORT.get(self.dtype.name, self.dtype.name) if short_dtypes else self.dtype.name
        return f"{name}[{','.join(str(d) for d in self.shape)}]"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(False)}{weak})"

    def __str__(self) -> str:
        return self.str_short()


_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
          "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
          "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "bool",
          "complex64": "c64", "complex128": "c128", "float0": "float0"}


def raise_to_shaped(aval: ShapedArray, weak_type: bool | None = None) -> ShapedArray:
    return aval if weak_type is None else aval.update(weak_type=weak_type)


# ---------------------------------------------------------------- primitives
class Primitive:
    """A named operation; `bind` applies it under the current interpreter stack."""

    multiple_results = False

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args: Any, **params: Any) -> Any:
        if dynamic_trace is None and not any(isinstance(a, Tracer) for a in args):
            # concrete operands, nothing staged: the eval trace, without building it
            rule = impl_rules.get(self)
            if rule is None:
                raise NotImplementedError(f"no implementation for primitive '{self.name}'")
            return rule(*args, **params)
        trace = find_top_trace(args)
        tracers = [trace.full_raise(a) for a in args]
        out = trace.process_primitive(self, tracers, params)
        if self.multiple_results:
            return [full_lower(o) for o in out]
        return full_lower(out)

    def abstract_eval(self, *avals: ShapedArray, **params: Any):
        rule = abstract_eval_rules.get(self)
        if rule is None:
            raise NotImplementedError(f"abstract evaluation for '{self.name}' is not implemented")
        return rule(*avals, **params)


# Rule tables (the transformation tables live in interpreters/: ad, batching).
abstract_eval_rules: dict[Primitive, Callable[..., Any]] = {}
impl_rules: dict[Primitive, Callable[..., Any]] = {}
#: Primitives with side effects (host callbacks): dead-code elimination keeps their
#: equations even when nothing reads their outputs.
effectful_primitives: set[Primitive] = set()


def def_abstract_eval(prim: Primitive):
    """Decorator registering `prim`'s shape/dtype rule."""
    def register(fn):
        abstract_eval_rules[prim] = fn
        return fn
    return register


# ---------------------------------------------------------------- traces
class MainTrace:
    def __init__(self, level: int, trace_type: type, global_data: Any):
        self.level, self.trace_type, self.global_data = level, trace_type, global_data

    def __repr__(self) -> str:
        return f"MainTrace({self.level}, {self.trace_type.__name__})"


class Trace:
    """One interpreter. Subclasses define pure, lift and process_primitive."""

    def __init__(self, main: MainTrace):
        self.main = main

    def pure(self, val: Any) -> Any:
        raise NotImplementedError

    lift = pure

    def full_raise(self, val: Any) -> Any:
        if not isinstance(val, Tracer):
            return self.pure(val)
        level = self.main.level
        if val._trace.main is self.main:
            return val
        if val._trace.main.level < level:
            return self.lift(val)
        if val._trace.main.level > level:
            raise UnexpectedTracerError(
                f"Can't lift level {val._trace.main.level} to {level}: a tracer escaped its "
                "transformation (was it stored in a global or returned through a side channel?)")
        raise UnexpectedTracerError(f"Different traces at the same level {level}")

    def process_primitive(self, primitive: Primitive, tracers: list, params: dict) -> Any:
        raise NotImplementedError

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, **params):
        raise NotImplementedError(f"{type(self).__name__} does not handle custom_jvp")

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, **params):
        raise NotImplementedError(f"{type(self).__name__} does not handle custom_vjp")


class EvalTrace(Trace):
    """The bottom interpreter: run each primitive on concrete arrays."""

    pure = lift = staticmethod(lambda x: x)

    def process_primitive(self, primitive, tracers, params):
        rule = impl_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"no implementation for primitive '{primitive.name}'")
        return rule(*tracers, **params)


trace_stack: list[MainTrace] = [MainTrace(0, EvalTrace, None)]
dynamic_trace: MainTrace | None = None


@contextlib.contextmanager
def new_main(trace_type: type, global_data: Any = None) -> Iterator[MainTrace]:
    level = len(trace_stack)
    main = MainTrace(level, trace_type, global_data)
    trace_stack.append(main)
    try:
        yield main
    finally:
        trace_stack.pop()


@contextlib.contextmanager
def new_dynamic(main: MainTrace) -> Iterator[None]:
    """Make `main` catch every bind, even those with no tracer arguments (for staging)."""
    global dynamic_trace
    prev, dynamic_trace = dynamic_trace, main
    try:
        yield
    finally:
        dynamic_trace = prev


def find_top_trace(xs: Sequence[Any]) -> Trace:
    top = max((x._trace.main for x in xs if isinstance(x, Tracer)),
              default=trace_stack[0], key=operator.attrgetter("level"))
    if dynamic_trace is not None and dynamic_trace.level > top.level:
        top = dynamic_trace
    return top.trace_type(top)


def full_lower(val: Any) -> Any:
    return val.full_lower() if isinstance(val, Tracer) else val


def cur_level() -> int:
    return len(trace_stack) - 1


class Tracer:
    """A value inside a transformation. Array operators come from ArrayMethods."""

    __array_priority__ = 1000
    _trace: Trace

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    def full_lower(self) -> Any:
        return self

    def to_concrete_value(self) -> Any:
        """The concrete Array behind this tracer, if there is one (jvp of concrete values)."""
        return None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def _concrete(self, what: str, err: type) -> Any:
        v = self.to_concrete_value()
        if v is None:
            raise err(concretization_message(self, what))
        return v

    def __bool__(self) -> bool:
        return bool(self._concrete("bool()", TracerBoolConversionError))

    def __int__(self) -> int:
        return int(self._concrete("int()", TracerIntegerConversionError))

    def __float__(self) -> float:
        return float(self._concrete("float()", ConcretizationTypeError))

    def __index__(self) -> int:
        return operator.index(self._concrete("__index__()", TracerIntegerConversionError))

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        # Without this, Python would iterate via __getitem__ with growing indices, which
        # never raises IndexError on a tracer (indices clamp), so `sum(x)` would not end.
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))  # type: ignore[index]

    def __array__(self, *args, **kwargs):
        raise TracerArrayConversionError(
            f"The numpy.ndarray conversion method __array__() was called on traced array "
            f"with shape {self.aval.str_short()}. A traced value cannot be converted to a "
            "NumPy array inside a transformation.")

    def tolist(self):
        raise ConcretizationTypeError(concretization_message(self, "tolist()"))

    def item(self, *args):
        return self._concrete("item()", ConcretizationTypeError).item(*args)

    def __repr__(self) -> str:
        return f"Traced<{self.aval}>with<{type(self._trace).__name__}>"

    def __hash__(self):
        raise TypeError(f"unhashable type: {type(self).__name__}")


def concretization_message(tracer: Tracer, what: str) -> str:
    line = _user_frame()
    where = f"\nThe problem arose at {line}." if line else ""
    return (f"Abstract tracer value encountered where concrete value is expected: "
            f"{tracer.aval.str_short()} used in {what}.{where}\n"
            "This happens when a value that depends on a transformed function's arguments is "
            "used for Python control flow or as a static value. Use lax.cond/jnp.where, or mark "
            "the argument static (static_argnums).")


def _user_frame() -> str:
    """File and line of the innermost frame outside jaxweb, to name the user's line."""
    import sys
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if "jaxweb" not in fn.replace("\\", "/").split("/")[-3:-1] and "jaxweb/" not in fn:
            return f"{fn}:{f.f_lineno} ({f.f_code.co_name})"
        f = f.f_back
    return ""


def get_aval(x: Any) -> ShapedArray:
    """Abstract value of an Array, Tracer or Python/numpy scalar or array."""
    if isinstance(x, Tracer):
        return x.aval
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    t = type(x)
    if t in _PY_SCALAR_KINDS:
        return ShapedArray((), _PY_SCALAR_KINDS[t](), weak_type=t is not bool)
    if hasattr(x, "shape") and hasattr(x, "dtype"):  # numpy arrays and scalars
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))
    raise TypeError(f"Value {x!r} of type {t.__name__} is not a valid JAX type")


_PY_SCALAR_KINDS = {bool: lambda: dtypes.bool_, int: dtypes.default_int,
                    float: dtypes.default_float, complex: dtypes.default_complex}


def is_python_scalar(x: Any) -> bool:
    return type(x) in _PY_SCALAR_KINDS


def python_scalar_dtype(x: Any) -> DType:
    """`get_aval(x).dtype` of a Python scalar without making the aval (`jnp.asarray(0.5)`)."""
    return _PY_SCALAR_KINDS[type(x)]()


def valid_jaxtype(x: Any) -> bool:
    try:
        get_aval(x)
        return True
    except TypeError:
        return False


def concrete_or_error(x: Any, what: str = "") -> Any:
    """The concrete value of `x`, or ConcretizationTypeError naming `what`."""
    if isinstance(x, Tracer):
        v = x.to_concrete_value()
        if v is None:
            raise ConcretizationTypeError(concretization_message(x, what or "a static value"))
        return v
    return x


def canonicalize_shape(shape: Any, context: str = "") -> tuple[int, ...]:
    """A shape as a tuple of Python ints, or JAX's TypeError: "Shapes must be 1D sequences
    of concrete values of integer type" (traced sizes, floats, strings, None)."""
    seq = shape if isinstance(shape, (tuple, list)) else None
    if seq is None:
        aval = getattr(shape, "aval", None)
        if aval is not None and aval.ndim == 1 and not isinstance(shape, Tracer):
            seq = list(shape)
        else:
            seq = (shape,)
    out = []
    for d in seq:
        if isinstance(d, Tracer) and d.to_concrete_value() is not None:
            d = d.to_concrete_value()
        try:
            if isinstance(d, float) or isinstance(d, Tracer) or \
                    getattr(getattr(d, "dtype", None), "kind", "i") not in "iub":
                raise TypeError
            out.append(operator.index(d))
        except TypeError:
            shown = shape if isinstance(shape, (tuple, list)) else (shape,)
            msg = f"Shapes must be 1D sequences of concrete values of integer type, got {shown}."
            if any(isinstance(v, Tracer) for v in seq):
                msg += ("\nIf using `jit`, try using `static_argnums` or applying `jit` to smaller "
                        "subfunctions.")
            if context:
                msg += f"\nThe error occurred in {context}."
            raise TypeError(msg) from None
    return tuple(out)
