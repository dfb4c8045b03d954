"""Counting the kernels programs run: wraps the default device's `submit` and records
each schedule's kernels (eager flushes and jitted calls alike)."""
import contextlib

from jaxweb._src import execution
from jaxweb._src.compiler import expr as E
from jaxweb._src.device import default_device


@contextlib.contextmanager
def count_kernels():
    """Yields a list that collects the Kernel objects of every schedule submitted (work
    queued before the block is computed first, so it is not counted)."""
    execution.flush(default_device())
    backend = default_device().backend
    orig = backend.submit
    kernels = []

    def submit(prepared, *args, **kwargs):
        kernels.extend(prepared.schedule.kernels)
        return orig(prepared, *args, **kwargs)
    backend.submit = submit
    try:
        yield kernels
    finally:
        del backend.submit


def reduction_extents(kernel) -> list[int]:
    """The number of elements each reduction of a kernel combines (top-level first)."""
    out = []
    if kernel.reduce_op:
        n = 1
        for d in kernel.reduce_shape:
            n *= d
        out.append(n)
    roots = list(kernel.outs) + ([kernel.body] if kernel.reduce_op else [])
    for e in E.walk_all(roots):
        if e.op == "reduce":
            n = 1
            for _, d in e.arg[1]:
                n *= d
            out.append(n)
    return out


@contextlib.contextmanager
def count_compiles(device=None):
    """Yields a list that collects the kernels and routines `device`'s backend compiles
    (a program cache miss: what a new value must never cause)."""
    device = device or default_device()
    execution.flush(device)
    backend = device.backend
    orig = backend.compile
    made = []

    def compile(kernel):
        made.append(kernel)
        return orig(kernel)
    backend.compile = compile
    try:
        yield made
    finally:
        del backend.compile
