"""`stop_gradient`: the identity on values, a constant to differentiation.

A primitive (so it shows in jaxprs) with a zero JVP and identity batching; its
lowering returns its operand, so eagerly it costs no kernel.
"""
from __future__ import annotations

__all__ = ["stop_gradient"]

from typing import Any

from .. import core
from ..dispatch import def_lowering
from ..interpreters import rules as R
from ..tree_util import tree_map

stop_gradient_p = core.Primitive("stop_gradient")
core.def_abstract_eval(stop_gradient_p)(lambda x: x)
def_lowering(stop_gradient_p)(lambda x: x)
R.defvectorized(stop_gradient_p)
R.primitive_jvps[stop_gradient_p] = lambda primals, tangents: (
    stop_gradient_p.bind(*primals), R.Zero(core.get_aval(primals[0]).update(
        dtype=R.tangent_dtype(core.get_aval(primals[0]).dtype))))


def stop_gradient(x: Any) -> Any:
    """`lax.stop_gradient`: `x` (any pytree), with zero derivative everywhere."""

    def stop(leaf: Any) -> Any:
        if core.is_python_scalar(leaf) or core.get_aval(leaf).dtype.kind not in "fc":
            return leaf
        return stop_gradient_p.bind(leaf)
    return tree_map(stop, x)
