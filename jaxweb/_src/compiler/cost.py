"""Static cost of a schedule, for `jit(f).lower(...).compile().cost_analysis()`.

Counts what the kernels do per call: floating-point operations (every float ALU
node evaluated, a reduction's combine included; transcendental functions count
one each and are also reported on their own, as XLA does), bytes read and written
by kernels (each input buffer once per kernel, each output once), and kernel
launches.
"""
from __future__ import annotations

from . import expr as E
from .kernel import Call, Kernel, Routine, Run, Schedule
from .shapetracker import prod

TRANSCENDENTAL = frozenset("""exp exp2 log log1p expm1 sqrt rsqrt cbrt sin cos tan asin acos atan sinh
cosh tanh asinh acosh atanh erf erfc erf_inv lgamma digamma logistic pow atan2""".split())
_NOT_FLOPS = frozenset(("const", "idx", "load", "acc", "cast", "bitcast", "where", "reduce"))


def _flops(roots, memo: dict) -> tuple[int, int]:
    """(flops, transcendentals) of evaluating `roots` once. A reduction costs its extent
    times (its body once, plus the combine), and its body is walked on its own: an
    outer walk that also went through the bodies of nested reductions would revisit each
    of them once per enclosing reduction, which is exponential in the nesting depth (a
    blocked triangular solve's kernels nest dozens deep). `memo` (reduce node id ->
    cost) makes every distinct reduction cost one walk per kernel."""
    flops = trans = 0
    for e in E.walk_all(roots, stop=lambda n: n.op == "reduce"):
        if e.op == "reduce":
            f, t = _reduce_cost(e, memo)
            flops += f
            trans += t
        elif e.dtype.kind == "f" and e.op not in _NOT_FLOPS:
            flops += 1
            trans += e.op in TRANSCENDENTAL
    return flops, trans


def _reduce_cost(e, memo: dict) -> tuple[int, int]:
    if id(e) not in memo:
        n = prod(extent for _, extent in e.arg[1])
        f, t = _flops([e.src[0]], memo)
        memo[id(e)] = (n * (f + (1 if e.dtype.kind == "f" else 0)), n * t)
    return memo[id(e)]


def kernel_cost(k: Kernel) -> tuple[int, int]:
    """Per call: the stored expressions once per output element; a top-level
    reduction's body once per element of the reduced space too."""
    memo: dict = {}
    f, t = _flops(list(k.outs), memo)
    flops, trans = k.size * f, k.size * t
    if k.reduce_op:
        r = k.size * prod(k.reduce_shape)
        f, t = _flops([k.body], memo)
        flops += r * (f + (1 if k.body.dtype.kind == "f" else 0))
        trans += r * t
    return flops, trans


def schedule_cost(s: Schedule) -> dict[str, float]:
    """Per call; a scan counts its body `length` times, a while loop's body and a cond's
    costliest branch once (their trip counts and branches are only known at run time)."""
    nbytes = dict(s.nbytes)
    for i, leaf in enumerate(s.inputs):
        nbytes[i] = leaf.shape[0] * leaf.dtype.itemsize
    total = {"flops": 0.0, "transcendentals": 0.0, "bytes accessed": 0.0, "kernels": 0.0}
    for step in s.steps:
        if not isinstance(step, Run):
            continue
        k = step.kernel
        if isinstance(k, Call):
            subs = [schedule_cost(sub) for sub in k.schedules]
            times = k.params.get("length", 1) if k.kind == "scan" else 1
            part = subs if k.kind != "cond" else [max(subs, key=lambda c: c["flops"])]
            for c in part:
                for key in total:
                    total[key] += times * c[key]
            continue
        total["kernels"] += 1
        f, t = (k.spec.flops, 0) if isinstance(k, Routine) else kernel_cost(k)
        total["flops"] += f
        total["transcendentals"] += t
        total["bytes accessed"] += sum(nbytes[b] for b in set(step.inputs)) + sum(nbytes[b] for b in step.outs)
    return total
