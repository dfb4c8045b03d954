#!/usr/bin/env python3
"""all-MiniLM-L6-v2 sentence embeddings in headless Chromium: jaxweb (demos/embed/minilm.py) vs
onnxruntime-web 1.30 on the same model (scripts/export_minilm_onnx.py: torch.onnx.export of the
same weights), side by side in one crossOriginIsolated page, on each device:

- wasm: jaxweb's generated Wasm (its worker threads) vs ORT's wasm execution provider (SIMD,
  threads = navigator.hardwareConcurrency);
- webgpu: jaxweb's WGSL vs ORT's webgpu execution provider (SwiftShader on a CPU machine).

    python benchmarks/bench_embed_browser.py [--devices wasm,webgpu] [--batch 32] [--tokens 128]
        [--query 16] [--rounds 3] [--reps 1] [--load]

Prints, per device, sentences/s for a batch of `batch` sentences of `tokens` tokens and the
latency of one `query`-token query (medians of interleaved rounds; both sides get the same ids
and read their output back), the ratios jaxweb/ORT (higher is better for jaxweb), and the
outputs' max |difference|. With --load, also the /embed/ page's load, navigation to the first
query answered: cold (fresh browser profile, weights from the network folder) and warm (a
reload: weights from OPFS, wheel and snapshot from the HTTP cache).
Needs `npm` once (onnxruntime-web into .cache) and the ONNX export in .cache/minilm-onnx.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import bench_wasm_browser as wasm_bench  # this script's folder is on sys.path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ORT_SPEC = "onnxruntime-web@1.30.0"
serve, assets = wasm_bench.serve, wasm_bench.assets


def ensure_ort() -> Path:
    """onnxruntime-web's dist folder (`npm pack`, once; the folder bench_onnx_browser.py uses)."""
    return assets.npm_fetch(ORT_SPEC, assets.CACHE / "onnxruntime-web-1.30.0", offline=False) / "dist"


def ensure_onnx() -> Path:
    d = assets.CACHE / "minilm-onnx"
    if not (d / "sentence_embedding.onnx").exists():
        sys.exit(f"no ONNX export in {d}: run `python scripts/export_minilm_onnx.py` (needs torch) first")
    return d


def throughput(batch: int, ts: list[float]) -> float:
    return batch / wasm_bench.median(ts)


def report(res: dict) -> None:
    print(f"headless Chromium, crossOriginIsolated={res['crossOriginIsolated']}, hardwareConcurrency="
          f"{res['hardwareConcurrency']}, jaxweb wasm threads={res['jaxwebThreads']}, onnxruntime-web "
          f"{res['ortVersion']} wasm threads={res['ortThreads']}; medians of interleaved rounds, both read back")
    head = (f"{'device':7s} {'case':22s} {'jaxweb':>12s} {'onnxruntime-web':>16s} {'jaxweb/ORT':>10s} "
            f"{'max|diff|':>9s}")
    wasm_bench.print_head(head)
    med = wasm_bench.median
    for device, row in res["devices"].items():
        b = row["batch"]
        w, o = throughput(b["batch"], b["jaxweb"]), throughput(b["batch"], b["ort"])
        case = f"{b['batch']}x{b['tokens']} sentences/s"
        print(f"{device:7s} {case:22s} {w:12.2f} {o:16.2f} {w / o:9.2f}x "
              f"{b['maxDiff']:9.1e}")
        qr = row["query"]
        w, o = med(qr["jaxweb"]) * 1e3, med(qr["ort"]) * 1e3
        case = f"query 1x{qr['tokens']} ms"
        print(f"{device:7s} {case:22s} {w:12.1f} {o:16.1f} {o / w:9.2f}x {qr['maxDiff']:9.1e}")
        print(f"{device:7s} {'query end-to-end ms':22s} {med(row['queryEndToEnd']) * 1e3:12.1f} "
              f"{'(tokenize+embed+read)':>16s}")


def load_times(timeout: float) -> dict:
    """The /embed/ page's navigation-to-first-answer on its default device, cold (fresh browser
    profile: weights from the network folder) then warm (a second visit: weights from OPFS)."""
    import tempfile
    import zlib
    wheel = assets.build_wheel(Path(tempfile.gettempdir()) / f"jaxweb-wheels-{zlib.crc32(str(ROOT).encode())}",
                              offline=True)
    mounts = {"/": ROOT / "demos", "/js_shim/": ROOT / "js_shim", "/pyodide/": assets.ensure_pyodide(),
              "/wheels/": wheel.parent, "/vendor/": assets.ensure_vendor(), "/models/minilm/": assets.ensure_minilm()}
    srv = serve.start("127.0.0.1", 0, mounts)
    driver = wasm_bench.harness._chrome(1200, 1000)
    out = {}
    try:
        for kind in ("cold", "warm"):
            driver.get(f"{srv.url}embed/")
            deadline, got = time.time() + timeout, None
            while time.time() < deadline and not got:
                got = driver.execute_script("const s = window.__embed; return s && (s.loadMs || s.error) "
                                            "? {loadMs: s.loadMs, error: s.error, download: s.download, "
                                            "stats: s.stats, ready: window.__pageReady} : null")
                time.sleep(0.25)
            out[kind] = got or {"error": "timed out"}
    finally:
        driver.quit()
        srv.shutdown()
        srv.server_close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--devices", default="wasm,webgpu")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--query", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--qreps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=3000)
    ap.add_argument("--load", action="store_true", help="also the /embed/ page's cold and warm load")
    ap.add_argument("--json", help="also write the raw result here")
    args = ap.parse_args(argv)
    res = wasm_bench.run_page("embed.html", {"devices": args.devices, "batch": args.batch, "tokens": args.tokens,
                                             "query": args.query, "rounds": args.rounds, "reps": args.reps,
                                             "qreps": args.qreps},
                              args.timeout, extra_mounts={"/ort/": ensure_ort(), "/onnx/": ensure_onnx(),
                                                          "/demos/": ROOT / "demos",
                                                          "/models/minilm/": assets.ensure_minilm()})
    if wasm_bench.failed(res):
        return 1
    report(res)
    if args.load:
        loads = load_times(args.timeout)
        for kind, r in loads.items():
            if r.get("error"):
                print(f"/embed/ load {kind}: {r['error']}")
                continue
            dl = r["download"] or {}
            print(f"/embed/ load {kind}: first answer {r['loadMs'] / 1e3:.1f} s after navigation (Python ready "
                  f"{r['ready']['ms'] / 1e3:.1f} s, weights {dl.get('s', float('nan')):.1f} s, corpus of "
                  f"{r['stats']['sentences']} embedded in {r['stats']['embed_s']:.1f} s on {r['stats']['device']})")
        res["load"] = loads
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
