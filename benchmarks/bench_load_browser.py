"""Load-to-ready of the pages in headless Chromium: navigation to a ready `import jaxweb`
in the page's Python worker, with the loader's stages, medians of several loads.

    python benchmarks/bench_load_browser.py --loads 5 [--page repl/] [--wheel PATH] [--no-baseline]

The wheel (and its Pyodide memory snapshot) is built from this tree into a temporary folder
(unless --wheel names one: then there is no snapshot). Each round loads the page booting
from the snapshot and, as the baseline side by side, with `?snapshot=0` (Python started
from scratch, the loader's path without a snapshot), alternating, so both see the same
machine. Round 1 is a first visit (fresh browser profile); the medians are over the
repeat visits (the browser's HTTP cache revalidates with 304s, as a person reloading the
page gets). Prints the machine's load average: the CI box's two cores are usually shared.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("jaxweb_pyodide_harness", ROOT / "tests" / "pyodide" / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)
serve = harness.serve
assets = harness.assets


def one_load(driver, url: str, timeout: float = 300) -> dict:
    driver.get(url)
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready = driver.execute_script("return window.__pageReady ?? null")
        if ready:
            if "error" in ready:
                raise RuntimeError(ready["error"])
            return ready
        time.sleep(0.05)
    raise TimeoutError(f"{url} not ready after {timeout} s")


def durations(ready: dict) -> dict[str, float]:
    """ms spent in each stage: the worker's start (navigation to its first stage), then each
    stage until the next began, and the reply's trip back to the page."""
    start = ready["ms"] - ready["workerLoadMs"]
    out = {"page + worker start": start}
    stages = ready["stages"]
    for (name, t), (_, t_next) in zip(stages, stages[1:]):
        out[name] = out.get(name, 0.0) + (t_next - t)
    out["reply to page"] = ready["workerLoadMs"] - stages[-1][1]
    out["total (load-to-ready)"] = ready["ms"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--page", default="repl/")
    ap.add_argument("--wheel", type=Path, help="serve this wheel instead of building one (no snapshot)")
    ap.add_argument("--no-baseline", action="store_true", help="only the default load (no ?snapshot=0 runs)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or assets.build_wheel(Path(tmp) / "wheels")
        wheels = wheel.parent
        if args.wheel:
            wheels = Path(tmp) / "wheels"
            wheels.mkdir()
            (wheels / wheel.name).write_bytes(wheel.read_bytes())
            (wheels / "index.json").write_text(f'{{"jaxweb": "{wheel.name}"}}\n')
        mounts = {"/": ROOT / "demos", "/js_shim/": ROOT / "js_shim", "/pyodide/": assets.ensure_pyodide(True),
                  "/wheels/": wheels, "/vendor/": assets.ensure_vendor(True), "/data/mnist/": assets.ensure_mnist(True)}
        wheel_kib = wheel.stat().st_size // 1024
        srv = serve.start("127.0.0.1", 0, mounts)
        sep = "&" if "?" in args.page else "?"
        variants = {"snapshot": args.page, "no snapshot": f"{args.page}{sep}snapshot=0"}
        if args.no_baseline:
            del variants["no snapshot"]
        driver = harness._chrome(1200, 900)
        runs: dict[str, list[dict]] = {v: [] for v in variants}
        try:
            for i in range(args.loads):
                for variant, page in variants.items():
                    la = os.getloadavg()[0]
                    ready = one_load(driver, srv.url + page)
                    d = durations(ready)
                    runs[variant].append(d)
                    print(f"load {i + 1}{' (first visit)' if i == 0 else ''} [{variant}; booted from a snapshot: "
                          f"{ready.get('snapshot', False)}]: {d['total (load-to-ready)'] / 1000:.2f} s "
                          f"(load average {la:.1f})  " + ", ".join(f"{k} {v:.0f}" for k, v in d.items()
                                                                 if not k.startswith("total")), flush=True)
        finally:
            driver.quit()
            srv.shutdown()
            srv.server_close()
    n = max(1, args.loads - 1)
    print(f"\n{args.page}: medians over {n} repeat visits each (ms), wheel {wheel.name} "
          f"({wheel_kib} KiB), load average now {os.getloadavg()[0]:.1f}")
    repeat = {v: r[1:] or r for v, r in runs.items()}
    names = list(dict.fromkeys(k for r in runs.values() for k in r[0]))
    print(f"  {'stage':28s}" + "".join(f"{v:>14s}" for v in variants))
    med = {v: {k: statistics.median(r.get(k, 0.0) for r in repeat[v]) for k in names} for v in variants}
    for k in names:
        print(f"  {k:28s}" + "".join(f"{med[v][k]:14.0f}" for v in variants))
    if len(variants) == 2:
        total = "total (load-to-ready)"
        print(f"  snapshot / no snapshot (load-to-ready): {med['snapshot'][total] / med['no snapshot'][total]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
