#!/usr/bin/env python3
"""The compiler's benchmarks (issue 8): jaxweb vs jax-js 0.1.25, wasm devices, side by side
in one crossOriginIsolated headless-Chromium page, interleaved rounds, medians.

    python benchmarks/bench_compiler_browser.py [--reps 5] [--rounds 3]

Cases (benchmarks/browser/compiler_bench.py and compiler.mjs compute the same things on
the same input bytes):
- MNIST MLP training step (784-256-128-10, batch 1000, Adam), whole step jitted, and eager;
- hypot sqrt(a*a + b*b) on 2^20 float32, jitted and eager;
- eager `x = x + 1` x1000 on 100 floats then one readback: per op;
- a jitted `x + 1` on 16 floats called 1000 times: a jitted call's fixed cost;
plus kernel launches per jitted call, and the losses of 5 training steps on both sides.
"""
from __future__ import annotations

import argparse
import sys

import bench_wasm_browser as wasm_bench  # this script's folder is on sys.path

LABELS = {
    "mnist_jit": ("MNIST MLP step (Adam, B=1000), jit", "ms/step"),
    "mnist_eager": ("MNIST MLP step (Adam, B=1000), eager", "ms/step"),
    "hypot_jit": ("hypot, 2^20 f32, jit", "ms"),
    "hypot_eager": ("hypot, 2^20 f32, eager", "ms"),
    "add_eager": ("eager x = x + 1 (x1000, 100 f32)", "us/op"),
    "add_jit": ("jitted x + 1 call (16 f32)", "us/call"),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=1200)
    args = ap.parse_args(argv)
    res = wasm_bench.run_page("compiler.html", {"reps": args.reps, "rounds": args.rounds}, args.timeout)
    if wasm_bench.failed(res):
        return 1
    med = wasm_bench.median
    print(f"{wasm_bench.page_facts(res)}; medians of {args.rounds}x{args.reps} interleaved runs per side; ratio = jax-js time / jaxweb time")
    head = f"{'case':40s} {'unit':8s} {'jaxweb':>9s} {'jax-js':>9s} {'ratio':>7s} {'kernels/call':>12s}"
    wasm_bench.print_head(head)
    for row in res["rows"]:
        label, unit = LABELS[row["name"]]
        scale = 1e6 if unit.startswith("us") else 1e3
        w, j = med(row["jaxweb"]) * scale, med(row["jaxjs"]) * scale
        k = res.get("kernels", {}).get(row["name"], "")
        print(f"{label:40s} {unit:8s} {w:9.3f} {j:9.3f} {j / w:6.2f}x {k!s:>12s}")
    print(f"losses, 5 steps: jaxweb {[round(v, 5) for v in res['jaxwebLosses']]}")
    print(f"                 jax-js {[round(v, 5) for v in res['jaxjsLosses']]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
