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


def _producer(jaxpr: Jaxpr, var: Any) -> str:
    """A description of where `var` (an output or inner variable of `jaxpr`) comes from."""
    from .checkpoint import checkpoint_name_p
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
                if isinstance(src, Literal):
                    return "from a literal"
                if src in inner_jaxpr.invars:
                    i = inner_jaxpr.invars.index(src)
                    outer = eqn.invars[i]
                    return _producer(jaxpr, outer) if outer not in jaxpr.invars else ""
                return _producer(inner_jaxpr, src)
            return f"output of {eqn.primitive.name}"
    return "from a constant"


def saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> list[tuple[Any, str]]:
    """[(aval, description)] of the residuals `jax.vjp(f, *args)` keeps."""
    from .api import make_jaxpr, vjp
    from .tree_util import tree_flatten
    try:
        names = [p.name for p in inspect.signature(f).parameters.values()]
    except (TypeError, ValueError):
        names = []
    flat_args, _ = tree_flatten(args)
    closed = make_jaxpr(lambda *a: vjp(lambda *b: f(*b, **kwargs), *a)[1])(*args)
    jaxpr = closed.jaxpr
    arg_of_var = {}
    leaf = 0
    for i, a in enumerate(args):  # which argument each flat input belongs to
        for _ in range(len(tree_flatten(a)[0])):
            arg_of_var[id(jaxpr.invars[leaf])] = names[i] if i < len(names) else f"args[{i}]"
            leaf += 1
    out = []
    for v in jaxpr.outvars:
        if isinstance(v, Literal):
            out.append((v.aval, "from a literal"))
        elif id(v) in arg_of_var:
            out.append((v.aval, f"from the argument {arg_of_var[id(v)]}"))
        elif v in jaxpr.constvars:
            out.append((v.aval, "from a constant"))
        else:
            desc = _producer(jaxpr, v)
            out.append((v.aval, desc or "from an argument"))
    del flat_args
    return out


def print_saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> None:
    """Print one line per residual: its type and where it comes from."""
    for aval, desc in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {desc}")
