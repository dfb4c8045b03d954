"""The MLP step's kernels (dispatches) under a hardware adapter's GEMM plan, each attributed to
the GEMM stage that made it (compiler/gemm.py: stage A, pack B, the routine, the epilogue or
split-sum pass) — issue 22: the JS call's host time is ~7-8 us per dispatch on the H200, so
every launch a product makes counts.

The compiler's schedule is the same on every webgpu adapter except the plan's choices, so this
runs on the local one (wgpu-py, a software adapter is fine: nothing is timed) with the hardware
kernels (128 x 128 tiles, the routine applying epilogues) and a plan forced on it:

    PYTHONPATH=$PWD python benchmarks/gemm_launches.py [--plan h200|rule|off|timed] [--batch 1000] [--native]

`h200` takes the H200's timed choices (/work/notes/s34/lead_h200_5.txt, "GEMM plan timings"),
`rule` the rule of thumb at the H200's want (256 workgroups), `off` 128 x 128 tiles, no splits,
`timed` a Planner timing here; `--native`: this adapter's own kernels, nothing forced.
It prints the step's dispatches in order, the products with their specs, and the counts.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import os

import jaxweb as jax
from jaxweb._src.compiler import gemm, schedule
from jaxweb._src.compiler.kernel import Routine
from kernel_trace import kernel_events  # beside this file (a script's folder is on sys.path)
from mlp_step import adam_step, bcs, mlp_state

#: the H200's timed plan of the MLP step at B=1000: (M, N, K) -> (nr, splits)
H200 = {(1000, 256, 784): (64, 8), (1000, 128, 256): (64, 4), (1000, 256, 128): (64, 2),
        (256, 128, 1000): (64, 15), (784, 256, 1000): (64, 8)}
WANT = 256  # the H200's tune_splits: 16 small tiles x 16 splits


def plan_of(name: str, rt):
    """GemmCaps.plan for `name` (None: plan off); "timed": a Planner timing on this adapter,
    counting the candidate pipelines it compiles (`Planner.compiled`)."""
    from jaxweb._src.backends.webgpu import matmul, tuner
    if name == "off":
        return None
    if name == "timed":
        compiled = []
        planner = tuner.Planner(rt, matmul.HARDWARE, WANT, pipelines=lambda codes: (
            compiled.extend(codes), [rt.pipeline(c) for c in codes])[1])
        planner.compiled = compiled
        return planner

    def plan(spec, after=1):
        rule = tuner.heuristic(matmul.HARDWARE, WANT, spec.B, spec.M, spec.N, spec.K)
        return H200.get((spec.M, spec.N, spec.K), rule) if name == "h200" else rule
    return plan


def as_hardware(be, plan: str = "h200") -> None:
    """Make `be` choose kernels as a hardware adapter with the H200's GEMM capabilities does (the
    shared-memory GEMM kernel, its tile width, epilogues and prologues, split sums folded into their
    readers, a GPU's short rows reduced inline) under GEMM plan `plan`, so that a step here launches
    what it launches on the H200."""
    from jaxweb._src.backends.webgpu import codegen, matmul, tuner
    be.tiling = matmul.HARDWARE
    gemm = be.capabilities.gemm
    want = dict(nr=matmul.HARDWARE.BN, thin_dim=16, pack_min_bytes=1 << 62, epilogue=True,
                prologue=os.environ.get("JAXWEB_GEMM_PROLOGUE", "1") != "0", epilogue_outs=4,
                plan=plan_of(plan, be.rt),
                fold_bytes=0 if os.environ.get("JAXWEB_GEMM_FOLD", "1") == "0" or not hasattr(tuner, "fold_bytes")
                else tuner.fold_bytes(WANT))
    # fields an older jaxweb lacks are left out (bench_host_call.py compares with older wheels)
    have = {f.name for f in dataclasses.fields(gemm)}
    caps = {"inline_reduce": codegen.INLINE_REDUCE} if hasattr(codegen, "INLINE_REDUCE") else {}
    be.capabilities = dataclasses.replace(be.capabilities, gemm=dataclasses.replace(
        gemm, **{k: v for k, v in want.items() if k in have}), **caps)


def stage(kernel_name: str) -> str:
    """Which GEMM stage made a launch, by the suffix gemm.expand names it with."""
    for suffix in ("stage_a", "pack_b", "gemm", "epilogue", "split_sum"):
        if kernel_name.endswith("_" + suffix):
            return suffix
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", default="h200", choices=("h200", "rule", "off", "timed"))
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--native", action="store_true", help="this adapter's own kernels and plan, nothing forced")
    args = ap.parse_args()
    gpu = jax.devices("webgpu")[0]
    be = gpu.backend
    if not args.native:
        as_hardware(be, args.plan)
    products = []
    expand = gemm.expand

    def recording(kernel, ins, outs, gcaps):
        got = expand(kernel, ins, outs, gcaps)
        if got is not None:
            products.append((kernel.name, got))
        return got
    schedule.gemm.expand = recording
    names: list = []
    traced = be._submit_traced
    be._submit_traced = lambda trace, cmds, labels: (
        names.extend(labels.get(i, "?") for i, c in enumerate(cmds) if c[0] == "dispatch"),
        traced(trace, cmds, labels))[1]
    try:
        with jax.default_device(gpu):
            p, mu, nu, x, y = mlp_state(args.batch)
            step = jax.jit(adam_step)
            jax.block_until_ready(step(p, mu, nu, x, y, *bcs(1)))
            kernel_events(lambda: step(p, mu, nu, x, y, *bcs(2)))  # traced: _submit_traced gets the labels
    finally:
        schedule.gemm.expand = expand
        be._submit_traced = traced
    if args.native:
        args.plan = f"native ({be.tiling.kind} kernel)"
    print(f"MLP step B={args.batch}, plan {args.plan}: the GEMM products")
    for name, launches in products:
        spec = next(k.spec for k, _, _ in launches if isinstance(k, Routine))
        kinds = " + ".join(stage(k.name) for k, _, _ in launches)
        staged = {stage(k.name) for k, _, _ in launches}
        a = "staged" if "stage_a" in staged else "computed as loaded" if getattr(spec, "a_expr", None) else "in place"
        b = "packed" if spec.packed else "computed as loaded" if getattr(spec, "b_expr", None) else "in place"
        print(f"  {spec.B}x{spec.M}x{spec.N}x{spec.K} nr {spec.nr} splits {spec.splits} A {a}, B {b}, "
              f"epilogue {'in the routine' if spec.epilogue else '-'}: "
              f"{len(launches)} launches ({kinds})  [{name[:40]}]")
    print(f"MLP step B={args.batch}, plan {args.plan}: dispatches of one step, in order")
    for i, n in enumerate(names):
        print(f"  {i + 1:3d} {stage(n):10s} {n}")
    plan = be.capabilities.gemm.plan
    if args.plan == "timed" and not args.native:
        print(f"MLP step B={args.batch}, plan timed: {plan.spent['products']} products timed, "
              f"{len(plan.compiled)} candidate pipelines compiled ({len(set(plan.compiled))} distinct); "
              + ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in plan.spent.items() if k != "products"))
        for k, times in plan.timings.items():
            print(f"  {k[0]}x{k[1]}x{k[2]}x{k[3]}: " + "  ".join(
                f"{'big' if nr == 128 else f's{sp}'} {t * 1e6:.0f}" for (nr, sp), t in times.items())
                + " us -> " + ", ".join(f"{c}" for (kk, _), c in plan.chosen.items() if kk == k))
    counts = collections.Counter(stage(n) for n in names)
    print(f"MLP step B={args.batch}, plan {args.plan}: {len(names)} dispatches per step: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
