"""Kernels and schedules: what every backend consumes.

A `Kernel` computes one or more output buffers over one index space. Loop indices
`g0..gN` span the output shape (every output is written row-major over it). If the
kernel has a top-level reduction, indices `r0..rM` span `reduce_shape`, `body` is
combined over them with `reduce_op`, and each output's stored expression (`outs`)
is an expression over `acc` (the reduced value) and the `g` indices: its epilogue.
Without a reduction the outputs are expressions over the `g` indices. Any stored
expression may also hold `reduce` nodes of its own (a row sum inside an elementwise
softmax kernel): a backend computes such a node once per iteration of the loops
its free indices belong to. Inputs are buffers by slot number, read only through
`load` nodes. `key` is the kernel's full text: the cache key for compiled programs.

A `Schedule` is the straight-line program of a jitted function or an eager flush:
`Alloc`, `Run` and `Free` steps over schedule-local buffer ids.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..dtypes import DType
from . import expr as E
from .expr import REDUCE_IDENTITY, identity  # noqa: F401  (re-exported: reductions use them)
from .shapetracker import ShapeTracker, prod


@dataclass(frozen=True, eq=False)
class Kernel:
    """`Kernel(shape, body, out_dtype, in_dtypes, reduce_shape, reduce_op, epilogue)` is a
    one-output kernel; pass `outs` (the stored expressions) for several outputs."""

    shape: tuple[int, ...]
    body: E.Expr | None
    out_dtype: DType | None
    in_dtypes: tuple[DType, ...]
    reduce_shape: tuple[int, ...] = ()
    reduce_op: str | None = None
    epilogue: E.Expr | None = None
    name: str = "kernel"
    outs: tuple[E.Expr, ...] = ()
    key: str = field(init=False, repr=False)

    def __post_init__(self):
        assert self.reduce_op is None or self.reduce_op in E.REDUCE_OPS
        shape = tuple(self.shape)
        object.__setattr__(self, "shape", shape)
        if not self.outs:
            value = (self.epilogue if self.epilogue is not None else E.acc(self.body.dtype)) \
                if self.reduce_op else self.body
            object.__setattr__(self, "outs", (value,))
        outs = tuple(self.outs)
        object.__setattr__(self, "outs", outs)
        if not self.reduce_op:
            object.__setattr__(self, "body", outs[0])
        elif len(outs) == 1 and self.epilogue is None and outs[0] is not E.acc(self.body.dtype):
            object.__setattr__(self, "epilogue", outs[0])
        object.__setattr__(self, "out_dtype", outs[0].dtype)
        roots = list(outs) + ([self.body] if self.reduce_op else [])
        red = f"reduce {self.reduce_op}{list(self.reduce_shape)} " if self.reduce_op else ""
        ins = ",".join(d.name for d in self.in_dtypes)
        object.__setattr__(self, "key", f"{list(shape)}({ins}){red}{E.key_of(roots)}")

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def out_dtypes(self) -> tuple[DType, ...]:
        return tuple(o.dtype for o in self.outs)

    @property
    def value(self) -> E.Expr:
        """The stored expression of the first output (its epilogue when reducing)."""
        return self.outs[0]

    def text(self) -> str:
        """Readable pseudo-code: the loop nest, the reduction, each output."""
        loops = " ".join(f"g{i}<{n}" for i, n in enumerate(self.shape)) or "()"
        lines = [f"kernel {self.name} over [{loops}] "
                 f"({', '.join(f'in{i}: {d.name}' for i, d in enumerate(self.in_dtypes))})"]
        if self.reduce_op:
            rs = " ".join(f"r{i}<{n}" for i, n in enumerate(self.reduce_shape))
            lines.append(f"  acc = reduce_{self.reduce_op}[{rs}] {E.render([self.body])}")
        for i, o in enumerate(self.outs):
            lines.append(f"  out{i}: {o.dtype.name} = {E.render([o])}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Kernel<{self.name}: {self.key}>"


@dataclass(frozen=True, eq=False)
class Routine:
    """A launch of a backend's own compute program (a tiled GEMM) on staged operands:
    `spec` (a frozen dataclass) is all the backend's builder reads; `size` is the
    number of outputs it writes (0: nothing to run)."""

    routine: str
    spec: Any
    in_dtypes: tuple[DType, ...]
    out_dtypes: tuple[DType, ...]
    size: int
    name: str = "routine"
    key: str = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "key", f"{self.routine}:{self.spec!r}")

    def text(self) -> str:
        return f"routine {self.name} = {self.routine}({self.spec})"

    def __repr__(self) -> str:
        return f"Routine<{self.name}: {self.key}>"


class Call:
    """A step run by the host between kernels: `kind` "cond" (graphs: the branches),
    "while" (the predicate, the body), "scan" (the body), each sub-program a list of
    lazy-graph output nodes over `graph.Input` placeholders numbered in the order the
    executor passes arguments (`backends/control.py`), with the effectful steps it must
    run although nothing reads them (`effects`, per graph); or "host" (no graphs: a Python
    callback, `params["run"]`); or "routine" (no graphs: the scheduler runs the backend
    Routine `params["routine"]` in its place, `linalg_routines`). `params` holds what the executor needs (counts, trip
    count). Scheduling turns the graphs into `Schedule`s (`schedules`)."""

    def __init__(self, kind: str, graphs: list, params: dict, name: str, effects: list | None = None):
        self.kind, self.graphs, self.params, self.name = kind, graphs, params, name
        self.effects = effects if effects is not None else [[] for _ in graphs]
        self.outs: list = []
        self.node = None
        self.schedules: list = []
        self.key = f"call:{id(self)}"

    @property
    def size(self) -> int:
        return 1

    def text(self) -> str:
        parts = [f"{self.kind} {self.name} {self.params}"]
        for i, s in enumerate(self.schedules):
            parts.append(f"  program {i}:")
            parts.extend("    " + line for k in s.launches for line in k.text().splitlines())
        return "\n".join(parts)


def gidx(shape: tuple[int, ...]) -> list[E.Expr]:
    return [E.idx(f"g{i}", n) for i, n in enumerate(shape)]


def ridx(shape: tuple[int, ...]) -> list[E.Expr]:
    return [E.idx(f"r{i}", n) for i, n in enumerate(shape)]


# ---------------------------------------------------------------- schedules
@dataclass(frozen=True)
class Alloc:
    buf: int
    nbytes: int
    what: str = ""  # dtype[shape] and the kernel writing it (for out-of-memory errors)
    reuse: int | None = None  # a donated input whose memory this buffer takes over


@dataclass(frozen=True)
class Run:
    kernel: Kernel | Routine
    outs: tuple[int, ...]
    inputs: tuple[int, ...]


@dataclass(frozen=True)
class Free:
    buf: int


Step = Alloc | Run | Free


@dataclass(frozen=True)
class Capabilities:
    """What a backend's code generator supports, as data (the scheduler reads only this).

    nested_reduce: reductions computed inside another kernel's loops (a softmax's row sum
    inside its elementwise kernel), once per iteration of the loops they depend on; a GPU
    generator without it gets them as kernels, but for short ones: inline_reduce, the most
    terms of a reduction that each invocation reading it computes itself (recomputing it per
    output: allowed only if each of its values is computed at most that many times; 0: never);
    on a GPU, a launch costs more than a short row recomputed (`lower.KernelLowering._not_inlined`).
    multi_output: kernels writing several buffers.
    max_buffers: storage buffers one kernel may bind (inputs + outputs), None if unbounded.
    gemm: the backend's GEMM routine (`gemm.GemmCaps`), or None: matmul kernels then stay
    ordinary kernels.
    linalg: the backend's factorization routines (`linalg_routines.LinalgCaps`), or None:
    lax.linalg's primitives then run their blocked algorithms of ordinary kernels.
    max_kernel_nodes: the most IR expression nodes one kernel should have (`kernel_size`:
    a fused kernel past it is split in several), None if unbounded; for a backend whose
    shader compiler slows down steeply with a shader's length. node_weights: what one node
    of an op counts for (a mapping op -> nodes, e.g. the statements a math expansion
    becomes), None: 1 each.
    share_transcendentals: a large transcendental value (exp, tanh, ...) that a reduction sums
    and something else reads too (a softmax's exp(x - max): its row sum and the division) is
    computed once into a buffer instead of at each reader: where a transcendental costs more
    than its memory round trip (wasm's polynomials; a GPU's exp costs less than the read).
    """

    nested_reduce: bool = True
    inline_reduce: int = 0
    multi_output: bool = True
    max_buffers: int | None = None
    gemm: Any = None  # a gemm.GemmCaps when the backend has a GEMM routine
    linalg: Any = None  # a linalg_routines.LinalgCaps when it has factorization routines
    max_kernel_nodes: int | None = None
    node_weights: Any = None  # a mapping op -> nodes, read with .get(op, 1)
    share_transcendentals: bool = False


DEFAULT_CAPS = Capabilities()


@dataclass
class OutSpec:
    """Where a program output of `shape` and `dtype` lives: schedule buffer `buf` (of
    `buf_size` elements) read through `st` (None: contiguous), or the constant `const`."""

    shape: tuple[int, ...]
    dtype: DType
    buf: int | None
    buf_size: int = 0
    st: ShapeTracker | None = None
    const: Any = None

    def view(self) -> ShapeTracker:
        """How the output reads its buffer (made once: every call of a program needs it)."""
        if self.st is None:
            self.st = ShapeTracker.from_shape((self.buf_size,)).reshape(self.shape)
        return self.st


@dataclass
class Schedule:
    steps: list
    inputs: list                # graph buffer leaves; schedule buffer id i is inputs[i]
    outputs: list[OutSpec]
    nbytes: dict[int, int]      # schedule buffer id -> bytes (allocated ones)
    kernels: list = field(default_factory=list)  # the program's fused kernels (before routines)
    reused: set = field(default_factory=set)     # donated inputs whose memory the program takes
    complex_outputs: dict = field(default_factory=dict)  # output position -> complex dtype (interleaved)

    @property
    def launches(self) -> list:
        """Every kernel and routine the program runs, in order."""
        return [s.kernel for s in self.steps if isinstance(s, Run)]
