#!/usr/bin/env python3
"""Linear algebra (issue 14): jaxweb vs jax-js 0.1.25, wasm devices, side by side in one
crossOriginIsolated headless-Chromium page, interleaved rounds, medians; numpy/LAPACK in
this CPython as the ceiling.

    python benchmarks/bench_linalg_browser.py [--sizes 256,512,1024] [--reps 3] [--rounds 3]

Cases (benchmarks/browser/linalg_bench.py and linalg.mjs compute the same things on the
same input bytes): jitted `jnp.linalg.cholesky` of an n x n float32 SPD matrix (n³/3
flops) and jitted `jnp.linalg.solve` with one right-hand side (LU + two triangular
solves, 2n³/3 flops; jax-js 0.1.25 cannot jit its solve, so its solve is eager); GFLOP/s from medians, ratio = jaxweb / jax-js, the results'
relative difference, jaxweb's kernel launches per call and its first (compiling) call.
"""
from __future__ import annotations

import sys
import zlib
from pathlib import Path

import bench_wasm_browser as wasm_bench  # this script's folder is on sys.path

HERE = Path(__file__).resolve().parent
ROOT_ID = zlib.crc32(str(HERE.parent).encode())
harness, serve = wasm_bench.harness, wasm_bench.serve
FLOPS = {"cholesky": lambda n: n ** 3 / 3, "solve": lambda n: 2 * n ** 3 / 3 + 2 * n ** 2,
         "lu": lambda n: 2 * n ** 3 / 3, "triangular_solve": lambda n: n ** 2}  # the last two: jaxweb only


def numpy_times(sizes: list[int], reps: int) -> dict:
    """numpy's LAPACK (OpenBLAS, all cores) in this CPython: the ceiling."""
    import numpy as np
    out = {}
    for n in sizes:
        x = np.sin(np.arange(n * n, dtype=np.float32) * 0.7).reshape(n, n)
        a = x @ x.T / n + np.eye(n, dtype=np.float32)
        b = np.cos(np.arange(n, dtype=np.float32) * 0.3).reshape(n, 1)
        for op, fn in (("cholesky", lambda: np.linalg.cholesky(a)), ("solve", lambda: np.linalg.solve(a, b))):
            out[(op, n)] = wasm_bench.host_median(fn, reps)
    return out


def main(argv=None) -> int:
    ap = wasm_bench.page_parser(__doc__)
    ap.add_argument("--sizes", default="256,512,1024")
    ap.add_argument("--ops", default="cholesky,solve")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    # a factorization's first call compiles on the page's main thread: the long timeout covers it
    got = wasm_bench.run_rounds("linalg.html", {"sizes": ",".join(map(str, sizes)), "ops": args.ops}, args,
                                lambda reps: numpy_times(sizes, reps))
    if got is None:
        return 1
    (res, nps), med = got, wasm_bench.median
    wasm_bench.print_table_head(res, args, "GFLOP/s from medians", f"{'case':16s} {'jaxweb':>8s} {'jax-js':>8s} "
                                f"{'ratio':>7s} {'numpy':>8s} {'ms jaxweb':>10s} {'ms jax-js':>10s} {'rel.err':>8s} "
                                f"{'kernels':>8s} {'compile s':>9s}")
    for row in res["rows"]:
        op, n = row["op"], row["n"]
        f = FLOPS[op](n)
        tw = med(row["jaxweb"])
        tj = med(row["jaxjs"]) if row["jaxjs"] else float("nan")
        ceiling = f"{f / nps[(op, n)] / 1e9:8.2f}" if (op, n) in nps else f"{'-':>8s}"
        print(f"{op + ' ' + str(n):16s} {f / tw / 1e9:8.2f} {f / tj / 1e9:8.2f} {tj / tw:6.2f}x "
              f"{ceiling} {tw * 1e3:10.1f} {tj * 1e3:10.1f} {row['relErr']:8.1e} "
              f"{row['kernels']!s:>8s} {row['compileS']:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
