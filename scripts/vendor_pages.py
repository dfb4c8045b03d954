#!/usr/bin/env python3
"""Front-end dependencies of the demo pages, from npm, bundled once into `.cache/vendor/`.

    python scripts/vendor_pages.py [--offline]      (serve.py and setup_browser.sh call it)

The pages import only files under `/vendor/` (served from `.cache/vendor/`), never a
CDN: CodeMirror 6 ships as many small ES modules that import each other by bare
name, so esbuild (also from npm) bundles them into one `codemirror.mjs`; uPlot
ships one ES module and its CSS, copied as they are. Versions are pinned; a
`.complete` stamp naming them makes later runs a no-op (quiet, offline).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("JAXWEB_CACHE", ROOT / ".cache"))
PACKAGES = {
    "esbuild": "0.24.2",
    "codemirror": "6.0.1",
    "@codemirror/lang-python": "6.1.6",
    "uplot": "1.6.31",
}
#: What the pages import from the CodeMirror bundle (one module, re-exported names).
CODEMIRROR_ENTRY = """\
export { EditorView, basicSetup } from "codemirror";
export { keymap, placeholder } from "@codemirror/view";
export { EditorState, Prec } from "@codemirror/state";
export { indentWithTab } from "@codemirror/commands";
export { python } from "@codemirror/lang-python";
export { syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
"""


class VendorError(RuntimeError):
    """npm or esbuild failed; the message says which step and why."""


def stamp() -> str:
    """What a finished vendor folder was built from: a change to either rebuilds it."""
    return json.dumps({"packages": PACKAGES, "codemirror_entry": CODEMIRROR_ENTRY}, sort_keys=True)


def ensure_vendor(offline: bool = False, cache: Path = CACHE) -> Path:
    """`cache/vendor` with codemirror.mjs, uplot.mjs and uplot.min.css (built once)."""
    out = cache / "vendor"
    done = out / ".complete"
    if done.exists() and done.read_text() == stamp():
        return out
    npm = shutil.which("npm")
    if npm is None:
        raise VendorError("npm is not installed: it fetches the pages' editor and chart libraries once")
    work = cache / "pages-npm"
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "package.json").exists():
        (work / "package.json").write_text('{"private": true}\n')
    specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
    cmd = [npm, "install", "--silent", "--no-audit", "--no-fund", "--no-save", *specs]
    if offline:
        cmd.append("--offline")
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        raise VendorError(f"`npm install {' '.join(specs)}` failed: {r.stderr.strip()[-600:]}")
    (work / "codemirror_entry.mjs").write_text(CODEMIRROR_ENTRY)
    tmp = cache / "vendor.part"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    esbuild = work / "node_modules" / ".bin" / "esbuild"
    r = subprocess.run([str(esbuild), "codemirror_entry.mjs", "--bundle", "--format=esm", "--minify",
                        "--log-level=warning", f"--outfile={tmp / 'codemirror.mjs'}"],
                       cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        raise VendorError(f"esbuild (bundling CodeMirror) failed: {(r.stderr or r.stdout).strip()[-600:]}")
    dist = work / "node_modules" / "uplot" / "dist"
    shutil.copy2(dist / "uPlot.esm.js", tmp / "uplot.mjs")
    shutil.copy2(dist / "uPlot.min.css", tmp / "uplot.min.css")
    for lic, name in ((work / "node_modules" / "uplot" / "LICENSE", "uplot.LICENSE"),
                      (work / "node_modules" / "codemirror" / "LICENSE", "codemirror.LICENSE")):
        if lic.exists():
            shutil.copy2(lic, tmp / name)
    (tmp / ".complete").write_text(stamp())
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--offline", action="store_true", help="npm's cache only")
    args = ap.parse_args(argv)
    try:
        ensure_vendor(args.offline)
    except VendorError as e:
        print(f"vendor_pages: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
