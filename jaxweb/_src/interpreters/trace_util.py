"""Helpers shared by the trace classes of the interpreters.

- `ensure_live`: a tracer used after its transformation has finished. Traces are
  created on demand from a MainTrace; if that main is no longer on the interpreter
  stack, a tracer of it leaked out (stored in a global, returned through a side
  channel), and computing with it would silently give wrong results.
"""
from __future__ import annotations

from .. import core


def is_live(main: core.MainTrace) -> bool:
    """Whether `main`'s transformation is still running (on the interpreter stack)."""
    stack = core.trace_stack
    return main.level < len(stack) and stack[main.level] is main


def ensure_live(trace: core.Trace) -> None:
    """UnexpectedTracerError if `trace` belongs to a finished transformation."""
    main = trace.main
    if not is_live(main):
        raise core.UnexpectedTracerError(
            f"Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
            f"allowing for a reference to an intermediate value wrapped in a "
            f"{main.trace_type.__name__} to escape the scope of the transformation. JAX "
            "transformations require that functions explicitly return their outputs, and disallow "
            "saving intermediate values to global state.")
