#!/usr/bin/env python3
"""MNIST MLP training (784-256-128-10, Adam): the /mnist/ page's trainer vs jax-js 0.1.25,
side by side in one crossOriginIsolated headless-Chromium page, both on wasm (default) or
both on webgpu (SwiftShader on a CPU machine), real MNIST.

    python benchmarks/bench_mnist_browser.py [--batch 1000] [--epochs 5] [--chunk 10] [--device webgpu]

Prints ms per training step (median over the run, the first chunk with its compile left
out), test accuracy after each epoch, and training seconds until 97 % test accuracy (at
epoch granularity) for both, and the step-time ratio. benchmarks/browser/mnist.mjs says
what exactly is timed on each side.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import bench_wasm_browser as wasm_bench  # this script's folder is on sys.path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def run(batch: int, epochs: int, chunk: int, timeout: float, device: str = "wasm") -> dict:
    return wasm_bench.run_page("mnist.html", {"batch": batch, "epochs": epochs, "chunk": chunk, "device": device},
                               timeout,
                               extra_mounts={"/demos/": ROOT / "demos", "/data/mnist/": wasm_bench.assets.ensure_mnist()})


def seconds_to(acc: list[float], train_s: list[float], target: float = 0.97):
    for a, s in zip(acc, train_s):
        if a >= target:
            return s
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--device", choices=("wasm", "webgpu"), default="wasm")
    args = ap.parse_args(argv)
    res = run(args.batch, args.epochs, args.chunk, args.timeout, args.device)
    if wasm_bench.failed(res):
        return 1
    med = wasm_bench.median
    w, j = med(res["jaxweb"]["ms"]), med(res["jaxjs"]["ms"])
    print(f"headless Chromium, device {res['device']}, crossOriginIsolated={res['crossOriginIsolated']}, hardwareConcurrency="
          f"{res['hardwareConcurrency']}, jaxweb wasm threads={res['jaxwebThreads']}; batch {res['batch']}, "
          f"{res['epochs']} epochs, interleaved chunks of {args.chunk} steps")
    print(f"ms/step (median): jaxweb {w:.1f}, jax-js {j:.1f}; jaxweb/jax-js = {w / j:.2f}x")
    for name in ("jaxweb", "jaxjs"):
        r = res[name]
        accs = ", ".join(f"{a * 100:.2f}" for a in r["acc"])
        t97 = seconds_to(r["acc"], r["trainS"])
        print(f"{name:7s} test accuracy per epoch (%): {accs}; training s to 97 %: "
              f"{'not reached' if t97 is None else f'{t97:.1f}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
