"""Elementwise numpy functions (`jnp.add`, `jnp.sin`, ...) over lax primitives."""
from __future__ import annotations

__all__ = ["add", "subtract", "multiply", "negative", "sin", "cos", "exp", "less"]

from typing import Any

from ..lax import elementwise as lax
from .util import promote_args, promote_args_inexact


def add(x: Any, y: Any, /) -> Any:
    x, y = promote_args("add", x, y)
    return lax.add_p.bind(x, y)


def subtract(x: Any, y: Any, /) -> Any:
    x, y = promote_args("subtract", x, y)
    return lax.sub_p.bind(x, y)


def multiply(x: Any, y: Any, /) -> Any:
    x, y = promote_args("multiply", x, y)
    return lax.mul_p.bind(x, y)


def negative(x: Any, /) -> Any:
    (x,) = promote_args("negative", x)
    return lax.neg_p.bind(x)


def sin(x: Any, /) -> Any:
    (x,) = promote_args_inexact("sin", x)
    return lax.sin_p.bind(x)


def cos(x: Any, /) -> Any:
    (x,) = promote_args_inexact("cos", x)
    return lax.cos_p.bind(x)


def exp(x: Any, /) -> Any:
    (x,) = promote_args_inexact("exp", x)
    return lax.exp_p.bind(x)


def less(x: Any, y: Any, /) -> Any:
    x, y = promote_args("less", x, y)
    return lax.lt_p.bind(x, y)
