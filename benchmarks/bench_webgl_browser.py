#!/usr/bin/env python3
"""jaxweb's webgl device vs jax-js 0.1.25's webgl backend, side by side in one headless-Chromium
page (WebGL2 on SwiftShader through ANGLE on a CPU machine), interleaved rounds, medians:

    python benchmarks/bench_webgl_browser.py [--sizes 256,512,1024] [--reps 3] [--rounds 2]

fp32 matmul n x n (GFLOP/s), jnp.hypot on 2^20 float32s and the MNIST MLP training step
(batch 1000, Adam, jitted): bench_webgpu_browser.py's page with `device=webgl`.
"""
from __future__ import annotations

import sys

import bench_webgpu_browser  # this script's folder is on sys.path

if __name__ == "__main__":
    sys.exit(bench_webgpu_browser.main(["--device", "webgl", "--hypot", *sys.argv[1:]]))
