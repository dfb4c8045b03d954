"""`jax.ad_checkpoint.print_saved_residuals`: what reverse mode keeps from the forward pass.

The pullback `vjp` returns is a pytree whose leaves are the residuals; tracing
`vjp(f, *args)[1]` to a jaxpr shows where each comes from: an argument, a value named
with `checkpoint_name`, or the output of some primitive (looked up through `jit` and
`checkpoint` calls to the equation that made it).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from .jaxpr import ClosedJaxpr, Jaxpr, Literal
from .checkpoint import checkpoint_name_p
from .api import make_jaxpr, vjp
from .tree_util import tree_flatten


def _producer(jaxpr: Jaxpr, var: Any, arg_names: dict) -> str:
    """Where `var` of `jaxpr` comes from: an argument (by name), a named value, a
    primitive's output, found through jit/checkpoint equations."""
    if isinstance(var, Literal):
        return "from a literal"
    if id(var) in arg_names:
        return f"from the argument {arg_names[id(var)]}"
    for eqn in jaxpr.eqns:
        for k, out in enumerate(eqn.outvars):
            if out is not var:
                continue
            if eqn.primitive is checkpoint_name_p:
                return f"named {eqn.params['name']!r}"
            inner = eqn.params.get("jaxpr")
            inner_jaxpr = inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner
            if isinstance(inner_jaxpr, Jaxpr) and eqn.primitive.name in ("jit", "checkpoint"):
                src = inner_jaxpr.outvars[k]
                if any(src is v for v in inner_jaxpr.invars):  # passed through: look outside
                    i = next(i for i, v in enumerate(inner_jaxpr.invars) if v is src)
                    return _producer(jaxpr, eqn.invars[i], arg_names)
                return _producer(inner_jaxpr, src, {})
            return f"output of {eqn.primitive.name}"
    return "from a constant"


def saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> list[tuple[Any, str]]:
    """[(aval, description)] of the residuals `jax.vjp(f, *args)` keeps: arguments first,
    in argument order, then the rest in program order (as JAX lists them)."""
    try:
        names = [p.name for p in inspect.signature(f).parameters.values()]
    except (TypeError, ValueError):
        names = []
    closed = make_jaxpr(lambda *a: vjp(lambda *b: f(*b, **kwargs), *a)[1])(*args)
    jaxpr = closed.jaxpr
    arg_names, leaf, order = {}, 0, {}
    for i, a in enumerate(args):  # which argument each flat input belongs to
        for _ in range(len(tree_flatten(a)[0])):
            arg_names[id(jaxpr.invars[leaf])] = names[i] if i < len(names) else f"args[{i}]"
            order[id(jaxpr.invars[leaf])] = leaf
            leaf += 1
    rows = []
    for k, v in enumerate(jaxpr.outvars):
        desc = _producer(jaxpr, v, arg_names)
        arg_pos = next((order[id(u)] for u in jaxpr.invars if u is v), None)
        rows.append(((0, arg_pos) if arg_pos is not None else (1, k), v.aval, desc))
    return [(aval, desc) for _, aval, desc in sorted(rows, key=lambda r: r[0])]


def print_saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> None:
    """Print one line per residual: its type and where it comes from."""
    for aval, desc in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {desc}")
