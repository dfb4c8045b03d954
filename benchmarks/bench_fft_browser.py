#!/usr/bin/env python3
"""FFT (issue 14): jaxweb vs jax-js 0.1.25, wasm devices, side by side in one
crossOriginIsolated headless-Chromium page, interleaved rounds, medians; numpy.fft in
this CPython as the ceiling.

    python benchmarks/bench_fft_browser.py [--powers 10,12,14,16,18,20] [--reps 3] [--rounds 3]

Case (benchmarks/browser/fft_bench.py and fft.mjs compute it on the same input bytes):
`jnp.fft.fft` of 2^p complex64 points, jitted in jaxweb; jax-js 0.1.25 runs its fft
routine eagerly (it cannot jit it). Milliseconds from medians, ratio = jax-js / jaxweb
(> 1: jaxweb is faster), the results' relative difference, jaxweb's kernel launches per
call and its first (compiling) call. The machine may be shared: read the ratios.
"""
from __future__ import annotations

import sys

import bench_wasm_browser as wasm_bench  # this script's folder is on sys.path


def numpy_times(powers: list[int], reps: int) -> dict:
    """numpy.fft (pocketfft, one core) in this CPython: the ceiling."""
    import numpy as np
    out = {}
    for p in powers:
        j = np.arange(2 ** p, dtype=np.float32)
        x = (np.sin(j * 0.7) + 1j * np.cos(j * 0.3)).astype(np.complex64)
        out[p] = wasm_bench.host_median(lambda: np.fft.fft(x), reps)
    return out


def main(argv=None) -> int:
    ap = wasm_bench.page_parser(__doc__)
    ap.add_argument("--powers", default="10,12,14,16,18,20")
    args = ap.parse_args(argv)
    powers = [int(s) for s in args.powers.split(",")]
    got = wasm_bench.run_rounds("fft.html", {"powers": ",".join(map(str, powers))}, args,
                                lambda reps: numpy_times(powers, reps))
    if got is None:
        return 1
    (res, nps), med = got, wasm_bench.median
    wasm_bench.print_table_head(res, args, "medians", f"{'case':10s} {'ms jaxweb':>10s} {'ms jax-js':>10s} "
                                f"{'ratio':>7s} {'ms numpy':>9s} {'rel.err':>8s} {'kernels':>8s} {'compile s':>9s}")
    for row in res["rows"]:
        tw, tj = med(row["jaxweb"]), med(row["jaxjs"])
        print(f"{'fft 2^' + str(row['p']):10s} {tw * 1e3:10.2f} {tj * 1e3:10.2f} {tj / tw:6.2f}x "
              f"{nps[row['p']] * 1e3:9.2f} {row['relErr']:8.1e} {row['kernels']!s:>8s} {row['compileS']:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
