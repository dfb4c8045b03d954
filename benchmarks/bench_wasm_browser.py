#!/usr/bin/env python3
"""jaxweb's wasm device vs jax-js 0.1.25's wasm backend, side by side in one
crossOriginIsolated page in headless Chromium; native numpy as the ceiling.

    python benchmarks/bench_wasm_browser.py [--sizes 256,512,1024,2048] [--reps 5] [--rounds 3]

1. installs `@jax-js/jax@0.1.25` into `.cache/jaxjs` (npm, once; offline after),
2. builds the jaxweb wheel and serves benchmarks/browser/, js_shim/, Pyodide, the
   wheel and jax-js's dist with serve.py's handler (COOP/COEP headers),
3. opens benchmarks/browser/index.html in headless Chromium (the test harness's
   flags): jaxweb through js_shim/jaxweb.mjs (wasm device, worker pool on) and
   jax-js (`init('wasm')`) in the same page, interleaved rounds of runs after a
   warm-up call that compiles; jaxweb timed in Python as a user runs it
   (`op(...).block_until_ready()` via runPythonAsync), jax-js as
   `await op(...).blockUntilReady()` (no readback),
4. prints medians: matmul GFLOP/s, conv2d GFLOP/s, elementwise chain / sum /
   copy in GB/s, the ratio jaxweb / jax-js, and numpy in this CPython.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
JAXJS_SPEC = "@jax-js/jax@0.1.25"
VEC = 1 << 22


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, mod)
    spec.loader.exec_module(mod)
    return mod


harness = _load("jaxweb_harness", ROOT / "tests" / "pyodide" / "harness.py")
serve = harness.serve
assets = harness.assets


def ensure_jaxjs() -> Path:
    """jax-js's dist folder, npm-installed into .cache/jaxjs once."""
    d = assets.CACHE / "jaxjs"
    dist = d / "node_modules" / "@jax-js" / "jax" / "dist"
    pkg = d / "node_modules" / "@jax-js" / "jax" / "package.json"
    if pkg.exists() and json.loads(pkg.read_text()).get("version") == JAXJS_SPEC.rsplit("@", 1)[1]:
        return dist
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed once to install " + JAXJS_SPEC)
    d.mkdir(parents=True, exist_ok=True)
    if not (d / "package.json").exists():
        (d / "package.json").write_text('{"private": true}\n')
    subprocess.run([npm, "install", "--no-audit", "--no-fund", "--silent", "--prefer-offline", JAXJS_SPEC],
                   cwd=d, check=True)
    return dist


def run_page(page: str, query: dict, timeout: float, extra_mounts: dict | None = None,
             poll: float = 0.5) -> dict:
    """Serve benchmarks/browser/ (with js_shim, Pyodide, this checkout's wheel and jax-js)
    crossOriginIsolated, open `page?query` in headless Chromium and return what it posts
    as `__benchResult`. Every browser benchmark runs through here. The wheel is built into
    a folder of this checkout's own (.cache is shared by every worktree of a machine); the
    WebDriver command timeout is `timeout`, since a first call that compiles on the page's
    main thread can outlast Selenium's default."""
    dist = ensure_jaxjs()
    pyodide_dir = assets.ensure_pyodide(offline=False)
    wheel = assets.build_wheel(Path(tempfile.gettempdir()) / f"jaxweb-wheels-{zlib.crc32(str(ROOT).encode())}",
                              offline=True)
    mounts = {"/": HERE / "browser", "/js_shim/": ROOT / "js_shim", "/pyodide/": pyodide_dir,
              "/wheels/": wheel.parent, "/jaxjs/": dist, **(extra_mounts or {})}
    driver = harness._chrome()
    driver.command_executor._client_config.timeout = timeout
    driver.set_script_timeout(timeout)  # a poll waits while the page's main thread computes
    srv = serve.start("127.0.0.1", 0, mounts)
    try:
        driver.get(f"{srv.url}{page}?{urllib.parse.urlencode(query, safe=',')}")
        return harness.page_result(driver, "__benchResult", timeout, poll=poll)
    finally:
        driver.quit()
        srv.shutdown()
        srv.server_close()


def failed(res: dict) -> bool:
    """Whether a `run_page` result is an error; if so, print it and the page console's end."""
    if "error" not in res:
        return False
    print(res["error"])
    print("\n".join(res.get("console", [])[-20:]))
    return True


def print_head(head: str) -> None:
    """A table's header line and its rule."""
    print(head)
    print("-" * len(head))


def numpy_times(sizes: list[int], reps: int) -> dict:
    """Native numpy (OpenBLAS, all cores) in this CPython: the ceiling."""
    import numpy as np

    def med(fn, r=reps):
        fn()
        ts = []
        for _ in range(r):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
        return sorted(ts)[len(ts) // 2]
    rng = np.random.default_rng(0)
    out = {}
    for n in sizes:
        a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
        out[("matmul", n)] = med(lambda: a @ b)
    x = rng.standard_normal((64, 58, 58)).astype(np.float32)  # pre-padded input
    w = rng.standard_normal((64, 64 * 9)).astype(np.float32)

    def conv():  # im2col + one GEMM: how numpy users do it
        cols = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))  # 64,56,56,3,3
        return w @ cols.transpose(0, 3, 4, 1, 2).reshape(64 * 9, 56 * 56)
    out[("conv", 0)] = med(conv)
    v = rng.standard_normal(VEC).astype(np.float32)
    out[("chain", VEC)] = med(lambda: np.tanh(v * 1.5 + 0.5) * 2.0)
    out[("sum", VEC)] = med(lambda: v.sum())
    out[("copy", VEC)] = med(lambda: np.negative(v))
    return out


def figure(op: str, n: int, t: float) -> tuple[float, str]:
    """(value, unit) for one median time."""
    if op == "matmul":
        return 2 * n ** 3 / t / 1e9, "GFLOP/s"
    if op == "conv":
        return 2 * 64 * 56 * 56 * 64 * 9 / t / 1e9, "GFLOP/s"
    nbytes = {"chain": 8, "sum": 4, "copy": 8}[op] * n
    return nbytes / t / 1e9, "GB/s"


def label(op: str, n: int) -> str:
    return {"matmul": f"matmul n={n}", "conv": "conv2d 1x64x56x56, 64x3x3 SAME",
            "chain": "tanh(x*a+b)*c, 2^22 f32", "sum": "sum, 2^22 f32", "copy": "copy-like (-x), 2^22 f32"}[op]


def median(ts):
    s = sorted(ts)
    return s[len(s) // 2]


def host_median(fn, reps: int) -> float:
    """The median seconds of `fn` in this CPython (after one warm-up call, at least 5 runs):
    the numpy ceilings the browser benchmarks print beside their pages' times."""
    fn()
    ts = []
    for _ in range(max(reps, 5)):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return median(ts)


def page_parser(doc: str, timeout: float = 1800) -> argparse.ArgumentParser:
    """The options of an interleaved page benchmark: --reps, --rounds (3 each), --timeout."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=timeout)
    return ap


def run_rounds(page: str, query: dict, args: argparse.Namespace, ceiling) -> tuple[dict, dict] | None:
    """Run a page's interleaved rounds (`query` plus --reps/--rounds), then `ceiling(reps)`,
    the host library's times, after the page (so the two never share the cores); None when
    the page failed (its error already printed)."""
    res = run_page(page, {**query, "reps": args.reps, "rounds": args.rounds}, args.timeout, poll=2.0)
    if failed(res):
        return None
    return res, ceiling(args.reps)


def print_table_head(res: dict, args: argparse.Namespace, what: str, head: str) -> None:
    """The facts line (page facts; `what` over the medians of rounds x reps) and the header."""
    print(f"{page_facts(res)}; {what} of {args.rounds}x{args.reps} interleaved runs per side; "
          f"rel.err = max|jaxweb - jax-js| / max|jax-js|")
    print_head(head)


def page_facts(res: dict) -> str:
    """What a page's numbers depend on: isolation, cores, and jaxweb's wasm threads."""
    return (f"headless Chromium, crossOriginIsolated={res['crossOriginIsolated']}, "
            f"hardwareConcurrency={res['hardwareConcurrency']}, jaxweb wasm threads={res['jaxwebThreads']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="256,512,1024,2048")
    ap.add_argument("--reps", type=int, default=3, help="timed runs per side per round")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (jaxweb, jax-js, ...)")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--json", help="also write the raw result here")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    res = run_page("index.html", {"sizes": ",".join(map(str, sizes)), "reps": args.reps, "rounds": args.rounds},
                   args.timeout)
    if failed(res):
        return 1
    nps = numpy_times(sizes, args.reps)
    print(f"headless Chromium, crossOriginIsolated={res['crossOriginIsolated']}, "
          f"hardwareConcurrency={res['hardwareConcurrency']}, jaxweb wasm threads={res['jaxwebThreads']} "
          f"{res.get('jaxwebInfo')}; medians (and best) of {args.rounds}x{args.reps} runs per side, "
          f"interleaved; rel.err = max|jaxweb - jax-js| / max|jax-js|")
    head = (f"{'case':34s} {'unit':8s} {'jaxweb':>8s} {'jax-js':>8s} {'ratio':>6s} {'numpy':>8s}"
            f"  {'best: jaxweb':>12s} {'jax-js':>7s} {'ratio':>6s}  {'rel.err':>7s}")
    print_head(head)
    for row in res["rows"]:
        op, n = row["op"], row["n"]
        w, unit = figure(op, n, median(row["jaxweb"]))
        j, _ = figure(op, n, median(row["jaxjs"]))
        p, _ = figure(op, n, nps[(op, n)])
        bw, _ = figure(op, n, min(row["jaxweb"]))
        bj, _ = figure(op, n, min(row["jaxjs"]))
        print(f"{label(op, n):34s} {unit:8s} {w:8.1f} {j:8.1f} {w / j:5.2f}x {p:8.1f}"
              f"  {bw:12.1f} {bj:7.1f} {bw / bj:5.2f}x  {row.get('relErr', float('nan')):7.1e}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
