"""`jaxweb.stages`: the stages of a jitted call (`jit(f).lower(...)` -> Lowered, `.compile()`
-> Compiled), as `jax.stages` names them."""
from jaxweb._src.stages import Compiled, Lowered  # noqa: F401

__all__ = ["Compiled", "Lowered"]
