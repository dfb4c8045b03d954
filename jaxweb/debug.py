"""`jax.debug`: printing and callbacks that work inside jit, vmap and grad.

`print(fmt, *args, **kwargs)` formats the runtime values with `str.format`; `callback`
calls any Python function with them; `log` goes to the `logging` module; `breakpoint`
enters pdb. Under vmap they run once per batch element; under grad on primal values.
"""
from jaxweb._src.callbacks import debug_breakpoint as breakpoint  # noqa: A001
from jaxweb._src.callbacks import debug_callback as callback
from jaxweb._src.callbacks import debug_log as log
from jaxweb._src.callbacks import debug_print as print  # noqa: A001


class DebugEffect:
    """The effect of an unordered debug callback (for type checks against JAX's names)."""

    def __repr__(self) -> str:
        return "Debug"


class OrderedDebugEffect(DebugEffect):
    """The effect of an ordered debug callback."""

    def __repr__(self) -> str:
        return "OrderedDebug"


__all__ = ["DebugEffect", "OrderedDebugEffect", "breakpoint", "callback", "log", "print"]
