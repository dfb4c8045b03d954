"""serve.py: cross-origin isolation headers, MIME types, no path escape, loopback only."""
import http.client
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("jaxweb_serve", ROOT / "serve.py")
serve = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(serve)
assets = serve.assets


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server over two small folders (no fetching), plus a secret beside them."""
    base = tmp_path_factory.mktemp("site")
    (base / "secret.txt").write_text("do not serve")
    demos, shim = base / "demos", base / "shim"
    for d in (demos, shim, demos / "sub"):
        d.mkdir()
    (demos / "index.html").write_text("<!doctype html><title>x</title>")
    (demos / "sub" / "index.html").write_text("sub")
    (shim / "jaxweb.mjs").write_text("export const x = 1;")
    (shim / "k.wasm").write_bytes(b"\x00asm\x01\x00\x00\x00")
    (shim / "jaxweb-0.1.0-py3-none-any.whl").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    (shim / "a.json").write_text("{}")
    (shim / "escape").symlink_to(base / "secret.txt")
    srv = serve.start("127.0.0.1", 0, {"/": demos, "/js_shim/": shim})
    yield srv
    srv.shutdown()
    srv.server_close()


def get(srv, path, method="GET", timeout=10):
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    conn.request(method, path)  # sent verbatim: no client-side '..' normalisation
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def test_cross_origin_isolation_headers_on_every_response(site):
    for path in ("/", "/js_shim/jaxweb.mjs", "/missing"):
        _, headers, _ = get(site, path)
        assert headers["cross-origin-opener-policy"] == "same-origin"
        assert headers["cross-origin-embedder-policy"] == "require-corp"
        assert headers["cross-origin-resource-policy"] == "same-origin"


@pytest.mark.parametrize("path,mime", [
    ("/js_shim/jaxweb.mjs", "text/javascript"),
    ("/js_shim/k.wasm", "application/wasm"),
    ("/js_shim/jaxweb-0.1.0-py3-none-any.whl", "application/zip"),
    ("/js_shim/a.json", "application/json"),
    ("/", "text/html"),
])
def test_mime_types(site, path, mime):
    status, headers, body = get(site, path)
    assert status == 200 and headers["content-type"].split(";")[0] == mime
    assert int(headers["content-length"]) == len(body)


def test_head_has_no_body(site):
    status, headers, body = get(site, "/js_shim/k.wasm", "HEAD")
    assert status == 200 and body == b"" and headers["content-length"] == "8"


@pytest.mark.parametrize("path", [
    "/../secret.txt", "/js_shim/../../secret.txt", "/js_shim/%2e%2e/%2e%2e/secret.txt",
    "/js_shim/..%2f..%2fsecret.txt", "/js_shim/%2e%2e%5csecret.txt", "/js_shim/escape",
    "/js_shim/a.json%00.html",
])
def test_path_traversal_refused(site, path):
    status, _, body = get(site, path)
    assert status in (400, 403, 404) and b"do not serve" not in body


def test_missing_file_404_and_directory_redirect(site):
    assert get(site, "/nope.html")[0] == 404
    status, headers, _ = get(site, "/sub")
    assert status == 301 and headers["location"] == "/sub/"
    assert get(site, "/sub/")[2] == b"sub"


def test_binds_loopback_only(site):
    assert site.server_address[0] == "127.0.0.1"
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("::1") and serve.is_loopback("localhost")
    assert not serve.is_loopback("0.0.0.0") and not serve.is_loopback("192.168.1.2")
    with pytest.raises(PermissionError):
        serve.start("0.0.0.0", 0, {"/": ROOT})


def test_cli_refuses_non_loopback_without_flag(capsys):
    assert serve.main(["--host", "0.0.0.0", "--port", "0"]) == 2
    assert "--allow-remote" in capsys.readouterr().err



def test_missing_npm_is_a_clear_fetch_error(tmp_path, monkeypatch):
    monkeypatch.setattr(assets, "CACHE", tmp_path)
    monkeypatch.setattr(assets.shutil, "which", lambda name: None)
    with pytest.raises(assets.FetchError, match="npm"):
        assets.ensure_pyodide()


def test_wheel_is_pure_python_and_indexed(tmp_path, monkeypatch):
    import json
    import zipfile
    monkeypatch.setattr(assets, "CACHE", tmp_path)
    wheel = assets.build_wheel(tmp_path / "wheels")
    assert wheel.name.endswith("-py3-none-any.whl")
    assert json.loads((tmp_path / "wheels" / "index.json").read_text()) == {"jaxweb": wheel.name}
    names = zipfile.ZipFile(wheel).namelist()
    assert "jaxweb/__init__.py" in names and "jaxweb/_src/host.py" in names
    assert "jaxweb/_src/backends/wasm/runtime_pyodide.py" in names
    assert not any(n.endswith(".pyc") for n in names)  # no Pyodide in this empty cache: no bytecode
    shim = sorted(n.removeprefix("jaxweb/js_shim/") for n in names if n.startswith("jaxweb/js_shim/"))
    assert shim == sorted(p.name for p in (ROOT / "js_shim").iterdir() if p.suffix in (".mjs", ".py"))
    # a PEP 503 index of it (micropip.install("jaxweb", index_urls=...)), its sha256 in the link
    import hashlib
    page = (tmp_path / "wheels" / "simple" / "jaxweb" / "index.html").read_text()
    assert f'href="../../{wheel.name}#sha256={hashlib.sha256(wheel.read_bytes()).hexdigest()}"' in page
    assert 'href="jaxweb/"' in (tmp_path / "wheels" / "simple" / "index.html").read_text()


def test_wheel_carries_pyodide_bytecode_and_a_snapshot(tmp_path):
    """With Node and Pyodide cached, every module has a .pyc beside it (zipimport's layout,
    what the loader imports from) and one in __pycache__ (what an unpacked install, micropip's,
    imports from), compiled by Pyodide's Python 3.14, hash-based and unchecked; and a memory
    snapshot after `import jaxweb` is made beside the wheel and indexed."""
    import importlib.util
    import zipfile
    if assets.node_for_pyodide() is None or not (assets.CACHE / f"pyodide-{assets.PYODIDE_VERSION}" / ".complete").exists():
        pytest.skip("Node or Pyodide not cached (bash scripts/setup_browser.sh)")
    wheel = zipfile.ZipFile(assets.build_wheel(tmp_path / "wheels"))
    names = set(wheel.namelist())
    sources = [n for n in names if n.endswith(".py")]
    assert sources and all(n + "c" in names for n in sources)
    cached = [n.rsplit("/", 1) for n in sources]
    assert all(f"{d}/__pycache__/{f[:-3]}.cpython-314.pyc" in names for d, f in cached)
    assert b"/lib/python3.14/site-packages/jaxweb/__init__.py" in wheel.read("jaxweb/__pycache__/__init__.cpython-314.pyc")
    pyc = wheel.read("jaxweb/__init__.pyc")
    if sys.version_info[:2] == (3, 14):
        assert pyc[:4] == importlib.util.MAGIC_NUMBER
    assert pyc[:4] != importlib.util.MAGIC_NUMBER or sys.version_info[:2] == (3, 14)  # not this CPython's
    assert int.from_bytes(pyc[4:8], "little") == 0b01  # hash-based, source not checked
    record = wheel.read(next(n for n in names if n.endswith("RECORD"))).decode()
    assert "jaxweb/__init__.pyc,sha256=" in record
    # ... and a Pyodide memory snapshot of it beside it, indexed with what the loader checks
    import hashlib
    import json
    snap = json.loads((tmp_path / "wheels" / "index.json").read_text())["snapshot"]
    data = (tmp_path / "wheels" / snap["file"]).read_bytes()
    assert data[:4] == (0x706E7300).to_bytes(4, "little")  # Pyodide's snapshot magic
    assert snap["pyodide"] == assets.PYODIDE_VERSION and snap["bytes"] == len(data)
    assert snap["wheel_sha256"] == hashlib.sha256(Path(wheel.filename).read_bytes()).hexdigest()
    assert snap["wheel_path"] == f"/lib/jaxweb_wheels/{Path(wheel.filename).name}"


def test_cli_serves_demos_and_prints_urls():
    """`python serve.py` end to end (offline: from the cache the setup script filled)."""
    import subprocess
    import sys
    import time
    if not (assets.CACHE / f"pyodide-{assets.PYODIDE_VERSION}" / ".complete").exists():
        pytest.skip("Pyodide not cached yet (bash scripts/setup_browser.sh)")
    proc = subprocess.Popen([sys.executable, str(ROOT / "serve.py"), "--port", "0", "--offline", "--no-build"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith("jaxweb demos:") and "http://127.0.0.1:" in first, first
        url = first.split()[-1]
        host, port = url[len("http://"):].rstrip("/").split(":")
        srv = type("S", (), {"server_address": (host, int(port))})
        deadline = time.time() + 10
        while True:
            try:
                status, headers, body = get(srv, "/")
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        assert status == 200 and b"/snippet.html" in body  # the front page shows the snippet page
        assert b"loadJaxweb" in get(srv, "/snippet.html")[2]
        assert get(srv, "/vendor/codemirror.mjs", "HEAD")[0] == 200
        assert get(srv, "/pyodide/pyodide.asm.wasm", "HEAD")[1]["content-type"] == "application/wasm"
        assert get(srv, "/js_shim/jaxweb.mjs", "HEAD")[1]["content-type"].startswith("text/javascript")
        # the first wheel request builds the wheel when a source is newer than it (minutes on a loaded machine)
        assert get(srv, "/wheels/index.json", timeout=600)[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# ---------------------------------------------------------------- edges (issue 9)
SECURITY_HEADERS = ("cross-origin-opener-policy", "cross-origin-embedder-policy",
                    "cross-origin-resource-policy", "x-content-type-options")


def raw_request(srv, data: bytes) -> tuple[int, dict, bytes]:
    """Send bytes verbatim (malformed requests http.client refuses to build)."""
    import socket
    host, port = srv.server_address[:2]
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(data)
        resp = http.client.HTTPResponse(s)
        resp.begin()
        body = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


@pytest.mark.parametrize("path,status", [
    ("/" + "a" * 300, 404),                      # one segment over NAME_MAX
    ("/js_shim/" + "b" * 256 + ".wasm", 404),
    ("/js_shim/" + "%41" * 300, 404),           # long only once decoded
    ("/" + "/".join(["c" * 200] * 25), 414),     # the path over PATH_MAX
    ("/js_shim/" + "d/" * 2100, 414),
])
def test_over_long_paths_answer_instead_of_a_traceback(site, path, status, capsys):
    got, headers, _ = get(site, path)
    assert got == status
    assert all(h in headers for h in SECURITY_HEADERS)
    assert "Traceback" not in capsys.readouterr().err
    assert get(site, "/js_shim/a.json")[0] == 200  # and the server still serves


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH"])
def test_unsupported_methods_carry_the_headers(site, method):
    status, headers, _ = get(site, "/", method)
    assert status == 501
    for h in SECURITY_HEADERS:
        assert h in headers, (method, h)
    assert headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("data,status", [
    (b"GET /" + b"x" * 70000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414),   # request line too long
    (b"GET / HTTP/1.1\r\nHost: a\r\n" + b"X-A: b\r\n" * 120 + b"\r\n", 431),  # too many headers
    (b"GET / HTTP/1.1\r\nHost: a\r\nX-Long: " + b"v" * 70000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
    (b"GET / HTTP/x\r\n\r\n", 400),
])
def test_stdlib_error_responses_carry_the_headers(site, data, status):
    got, headers, _ = raw_request(site, data)
    assert got == status
    for h in SECURITY_HEADERS:
        assert h in headers, (status, h)


@pytest.fixture(scope="module")
def big_site(tmp_path_factory):
    base = tmp_path_factory.mktemp("big")
    data = bytes(range(256)) * 12289  # ~3 MB: several streaming chunks
    (base / "w.bin").write_bytes(data)
    srv = serve.start("127.0.0.1", 0, {"/": base})
    yield srv, data, base
    srv.shutdown()
    srv.server_close()


def request(srv, path, headers, method="GET"):
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request(method, path, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def test_full_file_streams_with_etag_and_accept_ranges(big_site):
    srv, data, _ = big_site
    status, headers, body = request(srv, "/w.bin", {})
    assert status == 200 and body == data
    assert headers["accept-ranges"] == "bytes" and headers["etag"].startswith('"')


@pytest.mark.parametrize("spec,lo,hi", [
    ("bytes=0-99", 0, 100), ("bytes=1000-", 1000, None), ("bytes=-500", -500, None),
    ("bytes=3145000-99999999", 3145000, None), ("bytes=5-5", 5, 6),
])
def test_range_requests(big_site, spec, lo, hi):
    srv, data, _ = big_site
    status, headers, body = request(srv, "/w.bin", {"Range": spec})
    want = data[lo:hi]
    assert status == 206 and body == want
    start = lo if lo >= 0 else len(data) + lo
    assert headers["content-range"] == f"bytes {start}-{start + len(want) - 1}/{len(data)}"
    assert int(headers["content-length"]) == len(want)
    assert "cross-origin-embedder-policy" in headers


@pytest.mark.parametrize("spec", ["bytes=9999999-", "bytes=-0"])
def test_unsatisfiable_range_is_416(big_site, spec):
    srv, data, _ = big_site
    status, headers, _ = request(srv, "/w.bin", {"Range": spec})
    assert status == 416 and headers["content-range"] == f"bytes */{len(data)}"


@pytest.mark.parametrize("spec", ["bytes=0-1,5-6", "items=0-4", "bytes=9-3", "bytes=abc"])
def test_ranges_it_does_not_honour_give_the_whole_file(big_site, spec):
    srv, data, _ = big_site
    status, _, body = request(srv, "/w.bin", {"Range": spec})
    assert status == 200 and body == data


def test_if_none_match_gives_304_until_the_file_changes(big_site):
    import os
    srv, data, base = big_site
    (base / "e.txt").write_text("one")
    tag = request(srv, "/e.txt", {})[1]["etag"]
    status, headers, body = request(srv, "/e.txt", {"If-None-Match": tag})
    assert status == 304 and body == b"" and headers["etag"] == tag
    assert "cross-origin-opener-policy" in headers
    assert request(srv, "/e.txt", {"If-None-Match": f'"x", W/{tag}'})[0] == 304
    assert request(srv, "/e.txt", {"If-None-Match": '"other"'})[0] == 200
    (base / "e.txt").write_text("two!")
    st = (base / "e.txt").stat()
    os.utime(base / "e.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    status, headers, body = request(srv, "/e.txt", {"If-None-Match": tag})
    assert status == 200 and body == b"two!" and headers["etag"] != tag


def test_if_range_with_a_stale_tag_sends_the_whole_file(big_site):
    srv, data, _ = big_site
    tag = request(srv, "/w.bin", {}, "HEAD")[1]["etag"]
    assert request(srv, "/w.bin", {"Range": "bytes=0-9", "If-Range": tag})[0] == 206
    status, _, body = request(srv, "/w.bin", {"Range": "bytes=0-9", "If-Range": '"stale"'})
    assert status == 200 and body == data


def test_snapshot_is_gzipped_for_remote_clients_only(big_site, monkeypatch):
    """A `.snapshot` with a `.gz` beside it goes out gzip-encoded to a client across a network
    that accepts gzip (30 MiB -> 8 MiB); loopback clients, ranges and gzip-refusers get it raw."""
    import gzip
    srv, data, base = big_site
    (base / "m.snapshot").write_bytes(data)
    (base / "m.snapshot.gz").write_bytes(gzip.compress(data, 1))
    status, headers, body = request(srv, "/m.snapshot", {"Accept-Encoding": "gzip"})
    assert status == 200 and body == data and "content-encoding" not in headers  # loopback: raw
    monkeypatch.setattr(serve, "is_loopback", lambda host: False)
    status, headers, body = request(srv, "/m.snapshot", {"Accept-Encoding": "br, gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == data
    assert headers["vary"] == "Accept-Encoding" and "accept-ranges" not in headers
    status, headers, _ = request(srv, "/m.snapshot", {"Accept-Encoding": "gzip", "If-None-Match": headers["etag"]})
    assert status == 304
    for refused in ({"Accept-Encoding": "gzip;q=0"}, {}, {"Accept-Encoding": "gzip", "Range": "bytes=0-9"}):
        status, headers, body = request(srv, "/m.snapshot", refused)
        assert "content-encoding" not in headers and body == data[:len(body)] and body, refused


def test_a_snapshot_that_cannot_be_made_is_a_warning(tmp_path, capsys):
    """The snapshot only speeds pages up: when it cannot be made (here: not a wheel), the
    build goes on without it and says so."""
    if assets.node_for_pyodide() is None or not (assets.CACHE / f"pyodide-{assets.PYODIDE_VERSION}" / ".complete").exists():
        pytest.skip("Node or Pyodide not cached (bash scripts/setup_browser.sh)")
    broken = tmp_path / "jaxweb-0.1.0-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    assert assets.build_snapshot(broken) is None
    assert "no Pyodide memory snapshot" in capsys.readouterr().err
