"""What `import jaxweb` costs in plain Pyodide (Node 24): modules and milliseconds, then the
first device use, for this tree's wheel and, side by side, another wheel (e.g. main's).

    python benchmarks/bench_import_pyodide.py [--baseline WHEEL] [--rounds 3]

Each round starts a fresh Pyodide, installs the wheel as any Pyodide app does
(`micropip.install(wheel)`: unpacked into site-packages), then times `import jaxweb` and counts the modules it
loaded (jaxweb's own and all), and does the same for a first computation
(`(jnp.arange(3) * 2).tolist()`: the device starts, its runtime and code generator load).
For a wheel that predates jaxweb's self-registering shim (the baseline), the loader's
extra step after the import (`host.select_pyodide_runtimes()`, which imported the wasm
backend at once) is counted in the import, as every page paid it; "(import only)" is the
count without it. Medians of the rounds.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import assets  # noqa: E402  (what serve.py serves: the wheel, Pyodide, Node)

DRIVER = r"""
import { pathToFileURL } from 'node:url';
const [pyodideDir, wheel] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
await py.loadPackage('micropip');
await py.runPythonAsync(`import micropip; await micropip.install(${JSON.stringify(pathToFileURL(wheel).href)})`);
const out = JSON.parse(await py.runPythonAsync(`
import json, sys, time
def _count():
    return sum(m.startswith("jaxweb") for m in sys.modules), len(sys.modules)
_before = _count()
_t = time.perf_counter()
import jaxweb, jaxweb.numpy as jnp
from jaxweb._src import host as _host
_plain = _count()
if hasattr(_host, "select_pyodide_runtimes"):  # the old loader's step after the import
    _host.select_pyodide_runtimes()
_import = (time.perf_counter() - _t) * 1e3, _count()
_t = time.perf_counter()
try:
    _ok = (jnp.arange(3) * 2).tolist() == [0, 2, 4]
except Exception as e:
    _ok = f"{type(e).__name__}: {str(e)[:200]}"
_first = (time.perf_counter() - _t) * 1e3, _count()
json.dumps({"before": _before, "plain": _plain, "import_ms": _import[0], "import": _import[1],
            "first_ms": _first[0], "first": _first[1], "ok": _ok})
`));
console.log(JSON.stringify(out));
process.exit(0);
"""


def one_round(node: str, pyodide: Path, wheel: Path) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as f:
        f.write(DRIVER)
    try:
        r = subprocess.run([node, f.name, str(pyodide), str(wheel)], capture_output=True, text=True,
                           timeout=300, env={**os.environ, "XDG_RUNTIME_DIR": tempfile.gettempdir()})
    finally:
        os.unlink(f.name)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not lines:
        raise RuntimeError(f"node failed: {(r.stderr or r.stdout)[-2000:]}")
    return json.loads(lines[-1])


def summarize(name: str, rounds: list[dict]) -> dict:
    med = lambda key, i=None: statistics.median(r[key] if i is None else r[key][i] for r in rounds)  # noqa: E731
    return {"name": name, "import_mods": med("import", 0) - med("before", 0), "import_all": med("import", 1),
            "plain_mods": med("plain", 0) - med("before", 0),
            "import_ms": med("import_ms"), "first_mods": med("first", 0), "first_ms": med("first_ms"),
            "ok": rounds[-1]["ok"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", type=Path, help="another jaxweb wheel to measure side by side")
    ap.add_argument("--wheel", type=Path, help="this tree's wheel (default: built now)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    node, pyodide = assets.node_for_pyodide(), assets.ensure_pyodide(offline=True)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or assets.build_wheel(Path(tmp), offline=True)
        wheels = [("this tree", wheel)] + ([("baseline", args.baseline)] if args.baseline else [])
        results = {name: [] for name, _ in wheels}
        for _ in range(args.rounds):  # interleaved: both see the same machine
            for name, w in wheels:
                results[name].append(one_round(node, pyodide, w))
    rows = [summarize(name, rs) for name, rs in results.items()]
    print(f"{'wheel':10s} {'jaxweb modules':>15s} {'(import only)':>14s} {'all modules':>12s} {'import ms':>10s} "
          f"{'modules after 1st op':>21s} {'1st op ms':>10s}  first op")
    for r in rows:
        print(f"{r['name']:10s} {r['import_mods']:15.0f} {r['plain_mods']:14.0f} {r['import_all']:12.0f} {r['import_ms']:10.0f} "
              f"{r['first_mods']:21.0f} {r['first_ms']:10.0f}  {r['ok']}")
    if len(rows) == 2:
        a, b = rows
        print(f"ratio this/baseline: jaxweb modules at import {a['import_mods'] / b['import_mods']:.2f}x, "
              f"import time {a['import_ms'] / b['import_ms']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
