"""Jaxprs: the staged-out program form, how to trace into one, print it and run it.

A Jaxpr is a list of equations `outvars = primitive[params] invars` over typed
variables, with constant inputs (`constvars`) kept apart from the real inputs so a
ClosedJaxpr can carry the captured arrays. Tracing follows Autodidax: a JaxprTrace
on a new main, made dynamic so that even binds without tracer arguments (constants
created inside the function) are recorded. `eval_jaxpr` re-binds every equation
under whatever interpreters are active, which is how transformations of staged
code (jit, checkpoint) work.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from . import core
from .core import ShapedArray
from .interpreters.rules import array_ops
from .interpreters.trace_util import ensure_live


# ---------------------------------------------------------------- data structures
class Var:
    """A jaxpr variable: identity plus an abstract value (named when printed)."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var({self.aval.str_short()})"


class Literal:
    """A scalar constant inlined into an equation (Python scalars and 0-d constants)."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: ShapedArray):
        self.val, self.aval = val, aval

    def __repr__(self) -> str:
        return f"Literal({_literal_str(self)})"


Atom = Var | Literal


class JaxprEqn:
    """`outvars = primitive[params] invars`."""

    __slots__ = ("primitive", "invars", "params", "outvars")

    def __init__(self, primitive: core.Primitive, invars: list, params: dict, outvars: list):
        self.primitive, self.invars, self.params, self.outvars = primitive, invars, params, outvars

    def __repr__(self) -> str:
        return pp_eqn(self, _Namer(), 0)


class Jaxpr:
    """`{ lambda constvars ; invars . let eqns in outvars }`."""

    def __init__(self, constvars: list[Var], invars: list[Var], outvars: list, eqns: list[JaxprEqn]):
        self.constvars, self.invars, self.outvars, self.eqns = constvars, invars, outvars, eqns

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])

    def __str__(self) -> str:
        return pp_jaxpr(self)

    __repr__ = __str__

    def pretty_print(self, **_: Any) -> str:
        return pp_jaxpr(self)


class ClosedJaxpr:
    """A Jaxpr together with the values of its constvars (what `make_jaxpr` returns)."""

    def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]):
        self.jaxpr, self.consts = jaxpr, list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)
    literals = property(lambda self: self.consts)

    def __str__(self) -> str:
        return pp_jaxpr(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, **_: Any) -> str:
        return pp_jaxpr(self.jaxpr)


# ---------------------------------------------------------------- evaluation
def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list:
    """Run `jaxpr` by binding each equation under the current interpreters."""
    env: dict[Var, Any] = {}

    def read(a: Any) -> Any:
        return a.val if isinstance(a, Literal) else env[a]

    if len(args) != len(jaxpr.invars):
        raise TypeError(f"jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        out = eqn.primitive.bind(*[read(v) for v in eqn.invars], **eqn.params)
        env.update(zip(eqn.outvars, out if eqn.primitive.multiple_results else [out]))
    return [read(v) for v in jaxpr.outvars]


def typecheck(jaxpr: Jaxpr) -> None:
    """Check that every variable is defined before use and every equation's outputs have
    the shapes and dtypes its primitive gives its inputs (a compiler's precondition)."""
    defined = {id(v) for v in (*jaxpr.constvars, *jaxpr.invars)}

    def check_in(a: Any, eqn: Any) -> ShapedArray:
        if not isinstance(a, Literal) and id(a) not in defined:
            raise TypeError(f"jaxpr typecheck: variable {a} used before it is defined in {eqn}")
        return a.aval
    for eqn in jaxpr.eqns:
        avals = [check_in(a, eqn) for a in eqn.invars]
        if eqn.primitive in core.abstract_eval_rules:
            out = eqn.primitive.abstract_eval(*avals, **eqn.params)
            outs = out if eqn.primitive.multiple_results else [out]
            for v, a in zip(eqn.outvars, outs):
                if v.aval.shape != a.shape or v.aval.dtype != a.dtype:
                    raise TypeError(f"jaxpr typecheck: {eqn.primitive.name} gives {a.str_short()} "
                                    f"where the jaxpr says {v.aval.str_short()}")
        defined.update(id(v) for v in eqn.outvars)
    for a in jaxpr.outvars:
        check_in(a, "the outputs")


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list]:
    """A flat function (args -> list of outputs) running `closed`."""
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ---------------------------------------------------------------- tracing
class JaxprTracer(core.Tracer):
    """A value being staged: only its abstract value is known."""

    __slots__ = ("_trace", "_aval")

    def __init__(self, trace: "JaxprTrace", aval: ShapedArray):
        self._trace, self._aval = trace, aval

    @property
    def aval(self) -> ShapedArray:
        return self._aval


class JaxprBuilder:
    """Collects the equations, inputs and captured constants of one trace."""

    def __init__(self):
        self.eqns: list[JaxprEqn] = []
        self.tracer_to_var: dict[int, Var] = {}
        self.const_tracers: dict[int, JaxprTracer] = {}
        self.constvals: dict[int, tuple[Var, Any]] = {}  # var id -> (var, value)
        self.tracers: list[Any] = []  # tracers and captured values: keeps their ids unique

    def new_tracer(self, trace: "JaxprTrace", aval: ShapedArray) -> JaxprTracer:
        t = JaxprTracer(trace, aval)
        self.tracers.append(t)
        return t

    def add_var(self, tracer: JaxprTracer) -> Var:
        v = self.tracer_to_var[id(tracer)] = Var(tracer.aval)
        return v

    def getvar(self, tracer: JaxprTracer) -> Var:
        return self.tracer_to_var[id(tracer)]

    def add_const(self, tracer: JaxprTracer, val: Any) -> Var:
        var = self.add_var(tracer)
        self.constvals[id(var)] = (var, val)
        return var

    def build(self, in_tracers: list, out_tracers: list) -> tuple[Jaxpr, list]:
        """The Jaxpr and its constant values; scalar constants become Literals."""
        pairs = list(self.constvals.values())
        literals = {id(v): Literal(val, v.aval) for v, val in pairs if _is_literalable(val)}
        consts = [(v, val) for v, val in pairs if id(v) not in literals]

        def sub(a: Any) -> Any:
            return literals.get(id(a), a)

        eqns = [JaxprEqn(e.primitive, [sub(v) for v in e.invars], e.params, e.outvars) for e in self.eqns]
        jaxpr = Jaxpr([v for v, _ in consts], [self.getvar(t) for t in in_tracers],
                      [sub(self.getvar(t)) for t in out_tracers], eqns)
        return jaxpr, [val for _, val in consts]


def _is_literalable(val: Any) -> bool:
    if core.is_python_scalar(val):
        return True
    aval = getattr(val, "aval", None)
    return not isinstance(val, core.Tracer) and isinstance(aval, ShapedArray) and aval.ndim == 0 \
        and getattr(val, "is_const", lambda: False)()


class JaxprTrace(core.Trace):
    """Records each primitive as an equation instead of running it."""

    @property
    def builder(self) -> JaxprBuilder:
        return self.main.global_data

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        t = self.builder.new_tracer(self, aval)
        self.builder.add_var(t)
        return t

    def get_or_make_const_tracer(self, val: Any) -> JaxprTracer:
        t = self.builder.const_tracers.get(id(val))
        if t is None:
            t = self._splat(val)
            if t is None:
                t = self.builder.new_tracer(self, core.get_aval(val))
                self.builder.add_const(t, val)
            self.builder.const_tracers[id(val)] = t
            self.builder.tracers.append(val)  # keep val alive so its id stays unique
        return t

    def _splat(self, val: Any) -> JaxprTracer | None:
        """A constant-filled array (zeros, ones, full) staged as a broadcast of a scalar
        literal, as JAX does, instead of being captured as a constant buffer."""
        splat = getattr(type(val), "constant_scalar", None)  # Arrays: the value they are filled with
        scalar = splat(val) if splat is not None else None
        if scalar is None:
            return None
        return self.process_primitive(array_ops["broadcast_in_dim_p"], [self.get_or_make_const_tracer(scalar)],
                                      dict(shape=val.shape, broadcast_dimensions=()))

    pure = lift = get_or_make_const_tracer

    def process_primitive(self, primitive, tracers, params):
        ensure_live(self)
        out_avals = primitive.abstract_eval(*[t.aval for t in tracers], **params)
        outs_avals = out_avals if primitive.multiple_results else [out_avals]
        out_tracers = [self.builder.new_tracer(self, a) for a in outs_avals]
        invars = [self.builder.getvar(t) for t in tracers]
        outvars = [self.builder.add_var(t) for t in out_tracers]
        self.builder.eqns.append(JaxprEqn(primitive, invars, params, outvars))
        return out_tracers if primitive.multiple_results else out_tracers[0]

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, **params):
        return stage_custom_jvp(self, primitive, fun, jvp, tracers, **params)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, **params):
        return stage_custom_vjp(self, primitive, fun, fwd, bwd, tracers, **params)


def trace_to_jaxpr_flat(fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
                        ) -> tuple[Jaxpr, list]:
    """Trace a flat function (args -> sequence of outputs) at `in_avals`."""
    builder = JaxprBuilder()
    with core.new_main(JaxprTrace, builder) as main:
        with core.new_dynamic(main):
            trace = JaxprTrace(main)
            in_tracers = [trace.new_arg(a) for a in in_avals]
            outs = fun(*in_tracers)
            out_tracers = [trace.full_raise(o) for o in outs]
            return builder.build(in_tracers, out_tracers)


def trace_to_closed_jaxpr(fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
                          ) -> ClosedJaxpr:
    """Like trace_to_jaxpr_flat, with the constants attached."""
    jaxpr, consts = trace_to_jaxpr_flat(fun, in_avals)
    return ClosedJaxpr(jaxpr, consts)


def convert_constvars_jaxpr(closed: ClosedJaxpr) -> tuple[Jaxpr, list]:
    """An open jaxpr taking the constants as leading inputs, and those constants."""
    j = closed.jaxpr
    return Jaxpr([], j.constvars + j.invars, j.outvars, j.eqns), list(closed.consts)


# ---------------------------------------------------------------- pretty-printing
_WIDTH = 80


class _Namer:
    """Names variables a, b, ..., z, ba, bb, ... in order of first appearance."""

    def __init__(self):
        self.names: dict[int, str] = {}

    def __call__(self, v: Var) -> str:
        n = self.names.get(id(v))
        if n is None:
            n = self.names[id(v)] = _alpha(len(self.names))
        return n


def _alpha(i: int) -> str:
    s = ""
    while True:
        s = chr(ord("a") + i % 26) + s
        i //= 26
        if i == 0:
            return s


def _literal_str(lit: Literal) -> str:
    v = lit.val
    v = v.item() if hasattr(v, "item") and not core.is_python_scalar(v) else v
    return f"{v!r}:{lit.aval.str_short()}"


def _atom(a: Any, names: _Namer) -> str:
    return _literal_str(a) if isinstance(a, Literal) else names(a)


def _binder(v: Var, names: _Namer, used: set | None = None) -> str:
    if used is not None and id(v) not in used:
        return f"_:{v.aval.str_short()}"
    return f"{names(v)}:{v.aval.str_short()}"


def _param_str(v: Any, names: _Namer, indent: int, prefix: int = 0) -> str:
    """A parameter's text; `prefix` is the width of `key=` before it on its line."""
    if isinstance(v, ClosedJaxpr):
        v = v.jaxpr
    if isinstance(v, Jaxpr):
        return pp_jaxpr(v, names, indent, prefix)
    if callable(v) and hasattr(v, "__name__"):
        return v.__name__
    if isinstance(v, (tuple, list)) and v and all(isinstance(x, ClosedJaxpr) for x in v):
        # a tuple of jaxprs (cond's branches) prints one jaxpr per line, as in JAX
        pad = " " * (indent + 2)
        body = "\n".join(pad + _param_str(x, names, indent + 2) for x in v)
        return f"(\n{body}\n{' ' * indent})"
    return str(v)


def pp_eqn(eqn: JaxprEqn, names: _Namer, indent: int, used: set | None = None) -> str:
    """One equation; parameters go on their own lines when it does not fit."""
    lhs = " ".join(_binder(v, names, used) for v in eqn.outvars)
    args = " ".join(_atom(a, names) for a in eqn.invars)
    params = [(k, _param_str(v, names, indent + 2, len(k) + 1)) for k, v in sorted(eqn.params.items())]
    one = " ".join(f"{k}={v}" for k, v in params)
    head = f"{lhs} = {eqn.primitive.name}"
    line = f"{head}[{one}] {args}" if params else f"{head} {args}"
    if len(line) + indent <= _WIDTH and "\n" not in line:
        return line
    pad = " " * (indent + 2)
    body = "\n".join(f"{pad}{k}={v}" for k, v in params)
    return f"{head}[\n{body}\n{' ' * indent}] {args}"


def pp_jaxpr(jaxpr: Jaxpr, names: _Namer | None = None, indent: int = 0, prefix: int = 0) -> str:
    """JAX's jaxpr text: one line when it fits (after `prefix` columns of its line), else
    one equation per line."""
    names = names or _Namer()
    used = {id(a) for e in jaxpr.eqns for a in e.invars} | {id(a) for a in jaxpr.outvars}
    consts = " ".join(_binder(v, names) for v in jaxpr.constvars)
    ins = " ".join(_binder(v, names) for v in jaxpr.invars)
    head = f"{{ lambda {consts}; {ins}. let"
    eqns = [pp_eqn(e, names, indent + 4, used) for e in jaxpr.eqns]
    outs = ", ".join(_atom(a, names) for a in jaxpr.outvars)
    tail = f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}"
    flat = f"{head} {'; '.join(eqns)} {tail}" if eqns else f"{head}  {tail}"
    if len(flat) + indent + prefix <= _WIDTH and "\n" not in flat:
        return flat
    pad = " " * (indent + 4)
    body = "\n".join(pad + e for e in eqns)
    return f"{head}\n{body}\n{' ' * (indent + 2)}{tail}"


# ---------------------------------------------------------------- custom_jvp / custom_vjp calls staged into a jaxpr
def _stage(trace, fun: Callable, tracers: Sequence[Any]) -> ClosedJaxpr | None:
    """The traced function, or None when it closes over traced values (then it is inlined)."""
    closed = trace_to_closed_jaxpr(fun, [t.aval for t in tracers])
    if any(isinstance(c, core.Tracer) for c in closed.consts):
        return None
    return closed


def stage_custom_jvp(trace, primitive, fun, jvp, tracers, *, symbolic_zeros=False):
    """Jaxpr tracing of a custom_jvp call: a `custom_jvp_call` equation keeping the rule."""
    closed = _stage(trace, fun, tracers)
    if closed is None:
        return fun(*tracers)
    return _emit(trace, primitive, tracers, closed, dict(call_jaxpr=closed, jvp=jvp,
                                                         symbolic_zeros=symbolic_zeros))


def stage_custom_vjp(trace, primitive, fun, fwd, bwd, tracers, *, symbolic_zeros=False):
    """Jaxpr tracing of a custom_vjp call: a `custom_vjp_call` equation keeping fwd/bwd."""
    closed = _stage(trace, fun, tracers)
    if closed is None:
        return fun(*tracers)
    return _emit(trace, primitive, tracers, closed, dict(call_jaxpr=closed, fwd=fwd, bwd=bwd,
                                                         symbolic_zeros=symbolic_zeros))


def _emit(trace, primitive, tracers, closed: ClosedJaxpr, params: dict) -> list:
    b = trace.builder
    outs = [b.new_tracer(trace, a) for a in closed.out_avals]
    b.eqns.append(JaxprEqn(primitive, [b.getvar(t) for t in tracers], params, [b.add_var(o) for o in outs]))
    return outs
