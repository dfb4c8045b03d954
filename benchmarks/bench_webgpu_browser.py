#!/usr/bin/env python3
"""jaxweb's webgpu device vs jax-js 0.1.25's webgpu backend, side by side in one
headless-Chromium page (WebGPU on SwiftShader on a CPU machine), interleaved rounds, medians.

    python benchmarks/bench_webgpu_browser.py [--sizes 256,512,1024] [--reps 5] [--rounds 3] [--no-mnist]

Cases (benchmarks/browser/webgpu_bench.py and webgpu.mjs compute the same things on the
same input bytes): a jitted fp32 matmul n x n with the result waited for every call
(GFLOP/s), and the MNIST MLP training step (784-256-128-10, batch 1000, Adam), jitted.
The jaxweb side runs Python in Pyodide: its figures include tracing-cache lookups, the
Python scheduler's replay and one JSPI wait per call, as a user's code pays them.
"""
from __future__ import annotations

import argparse
import sys

import bench_wasm_browser as wasm_bench  # this script's folder is on sys.path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="256,512,1024")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-mnist", action="store_true")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--device", default="webgpu", help="webgpu, or webgl (both sides' WebGL2 backends)")
    ap.add_argument("--hypot", action="store_true", help="also jnp.hypot on 2^20 float32s")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    query = {"sizes": ",".join(map(str, sizes)), "reps": args.reps, "rounds": args.rounds, "device": args.device,
             "hypot": int(args.hypot)}
    if args.no_mnist:
        query["mnist"] = 0
    res = wasm_bench.run_page("webgpu.html", query, args.timeout)
    if wasm_bench.failed(res):
        return 1
    med = wasm_bench.median
    ad = res["adapter"]
    print(f"headless Chromium {args.device}: {ad['vendor']} {ad['architecture']} {ad['description']} "
          f"(software={ad['software']}), jaxweb GEMM tiling {ad['tiling']}; "
          f"medians of {args.rounds}x{args.reps} interleaved runs per side")
    head = f"{'case':34s} {'unit':8s} {'jaxweb':>9s} {'jax-js':>9s} {'ratio':>7s}"
    wasm_bench.print_head(head)
    for row in res["rows"]:
        w, j = med(row["jaxweb"]), med(row["jaxjs"])
        if row["name"] == "matmul":
            n = row["n"]
            fw, fj = 2 * n ** 3 / w / 1e9, 2 * n ** 3 / j / 1e9
            print(f"{'matmul n=' + str(n) + ' (max err ' + format(row['maxErr'], '.1e') + ')':34s} "
                  f"{'GFLOP/s':8s} {fw:9.2f} {fj:9.2f} {fw / fj:6.2f}x")
        elif row["name"] == "hypot":
            print(f"{'hypot, 2^20 float32s, jit':34s} {'ms':8s} {w * 1e3:9.2f} {j * 1e3:9.2f} {j / w:6.2f}x")
        else:
            print(f"{'MNIST MLP step (Adam, B=1000), jit':34s} {'ms/step':8s} {w * 1e3:9.1f} {j * 1e3:9.1f} "
                  f"{j / w:6.2f}x")
    if "jaxwebLosses" in res:
        print(f"jaxweb losses, 3 steps: {[round(v, 5) for v in res['jaxwebLosses']]}")
    print("ratio: jaxweb's speed over jax-js's (higher is better for jaxweb)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
