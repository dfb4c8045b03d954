"""Control flow: `cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `map` and
`associative_scan`, with the `cond`, `while` and `scan` primitives and all their
transformation rules (see each module)."""
from .conditionals import cond, switch, cond_p  # noqa: F401
from .loops import while_loop, fori_loop, while_p  # noqa: F401
from .scan import scan, map, scan_p  # noqa: F401
from .associative import associative_scan  # noqa: F401

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan",
           "cond_p", "while_p", "scan_p"]
