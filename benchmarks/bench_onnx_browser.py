#!/usr/bin/env python3
"""jaxweb.onnx vs onnxruntime-web 1.30 on the same ONNX files, side by side in one headless-
Chromium page: the wasm EP (threads + SIMD, crossOriginIsolated) against jaxweb's wasm device,
the webgpu EP against jaxweb's webgpu device (SwiftShader on a CPU machine); interleaved
rounds, medians, outputs compared.

    python scripts/export_onnx_models.py --full          # once: .cache/onnx/{resnet18,minilm}.onnx (torch)
    python benchmarks/bench_onnx_browser.py [--cases resnet18:8:224,minilm:32:128] [--devices wasm,webgpu]
    python benchmarks/bench_onnx_browser.py --small      # tiny check: tests/data/onnx models, 2x64x64

Each side's setup and first call (where the compiles are) are printed apart from the steady
calls; every round is `--warm` warm-up calls and `--reps` timed ones per side.

Cases are model:batch:size (size = image side, or tokens for minilm). jaxweb's side is
`jit(model.apply)` in Pyodide with the result waited for each call (tracing-cache lookups and
the JSPI wait included, as a page pays them); onnxruntime-web's is `session.run` with its
outputs read back."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import bench_wasm_browser as wasm_bench  # this script's folder is on sys.path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import assets  # noqa: E402

ORT_SPEC = "onnxruntime-web@1.30.0"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="resnet18:8:224,minilm:32:128")
    ap.add_argument("--devices", default="wasm,webgpu")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--warm", type=int, default=1, help="warm-up calls per round, after each side's first call")
    ap.add_argument("--small", action="store_true", help="the committed small models, tiny sizes")
    ap.add_argument("--timeout", type=float, default=3600)
    args = ap.parse_args(argv)
    models = ROOT / "tests" / "data" / "onnx" if args.small else ROOT / ".cache" / "onnx"
    cases = "resnet18:2:64,mobilenet:2:64" if args.small else args.cases
    for c in cases.split(","):
        if not (models / f"{c.split(':')[0]}.onnx").exists():
            sys.exit(f"{models}/{c.split(':')[0]}.onnx is missing: run scripts/export_onnx_models.py --full")
    ort_dir = assets.npm_fetch(ORT_SPEC, assets.CACHE / "onnxruntime-web-1.30.0", offline=False)
    query = {"cases": cases, "devices": args.devices, "reps": args.reps, "rounds": args.rounds, "warm": args.warm}
    res = wasm_bench.run_page("onnx.html", query, args.timeout,
                              extra_mounts={"/ort/": ort_dir / "dist", "/models/": models})
    if wasm_bench.failed(res):
        return 1
    med = wasm_bench.median
    print(f"headless Chromium, crossOriginIsolated={res['crossOriginIsolated']}, "
          f"onnxruntime-web wasm threads {res['ortThreads']}, jaxweb wasm threads {res['jaxwebThreads']}; "
          f"medians of {args.rounds}x{args.reps} interleaved runs per side")
    head = (f"{'case':24s} {'device':7s} {'jaxweb ms':>10s} {'ort-web ms':>11s} {'ratio':>7s} {'max |diff|':>10s}"
            f" {'setup s j/o':>12s} {'1st call s j/o':>15s}")
    wasm_bench.print_head(head)
    for r in res["rows"]:
        w, o = med(r["jaxweb"]), med(r["ort"])
        label = f"{r['name']} {r['a']}x{r['b']}"
        setup = f"{r['setup']['jaxweb']:.1f}/{r['setup']['ort']:.1f}"
        first = f"{r['first']['jaxweb']:.1f}/{r['first']['ort']:.1f}"
        print(f"{label:24s} {r['device']:7s} {w * 1e3:10.1f} {o * 1e3:11.1f} {o / w:6.2f}x {r['maxErr']:10.1e}"
              f" {setup:>12s} {first:>15s}")
    print("ratio: onnxruntime-web's time over jaxweb's (higher is better for jaxweb); setup: jaxweb.onnx.load +\n"
          "device_put / ort InferenceSession.create; 1st call: the first run with its compiles (jaxweb/ort)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
