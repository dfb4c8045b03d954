"""Detecting escaped tracers: a tracer used after its transformation has finished.

Traces are created on demand from a MainTrace; if that main is no longer on the
interpreter stack, a tracer of it leaked out (stored in a global, returned through
a side channel), and computing with it would silently give wrong results.
"""
from __future__ import annotations

from .. import core


def ensure_live(trace: core.Trace) -> None:
    main = trace.main
    stack = core.trace_stack
    if main.level >= len(stack) or stack[main.level] is not main:
        raise core.UnexpectedTracerError(
            f"Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
            f"allowing for a reference to an intermediate value wrapped in a "
            f"{main.trace_type.__name__} to escape the scope of the transformation. JAX "
            "transformations require that functions explicitly return their outputs, and disallow "
            "saving intermediate values to global state.")
