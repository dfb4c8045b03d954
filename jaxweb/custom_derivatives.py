"""`jax.custom_derivatives`: custom JVP/VJP rules and their helpers."""
from jaxweb._src.api import closure_convert
from jaxweb._src.api_extra import custom_gradient
from jaxweb._src.custom_derivatives import (SymbolicZero, custom_jvp, custom_jvp_call_p, custom_vjp,
                                            custom_vjp_call_p)
from jaxweb._src.linear_call import linear_call
from jaxweb.tree_util import tree_map
from jaxweb._src import core
from jaxweb._src.interpreters import rules as R

__all__ = ["CustomVJPPrimal", "SymbolicZero", "closure_convert", "custom_gradient", "custom_jvp",
           "custom_jvp_call_p", "custom_vjp", "custom_vjp_call_p", "custom_vjp_primal_tree_values", "linear_call",
           "zero_from_primal"]


class CustomVJPPrimal:
    """A primal value passed to a `custom_vjp` forward rule with `optimize_remat`-style
    annotations: the value and whether it is perturbed (differentiated)."""

    def __init__(self, value, perturbed: bool):
        self.value, self.perturbed = value, perturbed

    def __repr__(self) -> str:
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def custom_vjp_primal_tree_values(tree):
    """The `.value` of every CustomVJPPrimal in `tree`."""
    return tree_map(lambda x: x.value if isinstance(x, CustomVJPPrimal) else x, tree,
                    is_leaf=lambda x: isinstance(x, CustomVJPPrimal))


def zero_from_primal(val, symbolic_zeros: bool = False):
    """Zero tangents shaped like the primal pytree `val` (SymbolicZeros if asked)."""

    def zero(x):
        aval = core.get_aval(x)
        aval = aval.update(dtype=R.tangent_dtype(aval.dtype))
        return SymbolicZero(aval) if symbolic_zeros else R.instantiate_zeros(R.Zero(aval))
    return tree_map(zero, val)
