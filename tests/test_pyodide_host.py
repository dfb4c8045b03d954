"""jaxweb inside Pyodide, in Node 24 and headless Chromium (offline): see tests/pyodide/harness.py.

- any Pyodide: pytest-pyodide runs tests/pyodide/plain (jaxweb from `micropip.install`, the
  in-Pyodide subset of the suite by pytest inside Pyodide) once for both hosts; each of its
  tests is reported here per host;
- the loader (`loadJaxweb`): its own checks, one Pyodide start per host.

The hosts come from `bash scripts/setup_browser.sh`; a host that is genuinely
missing skips with the reason, anything else that goes wrong fails.
"""
import ast
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "jaxweb_pyodide_harness", Path(__file__).resolve().parent / "pyodide" / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

HOSTS = ["node", "chromium"]
#: tests/pyodide/plain's tests, each reported per host
PLAIN_TESTS = [f.name for f in ast.parse((harness.PLAIN / "test_any_pyodide.py").read_text()).body
               if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")]


@pytest.fixture(scope="module")
def assets():
    try:
        return harness.prepare()
    except (harness.HarnessUnavailable, harness.assets.FetchError) as e:
        pytest.skip(str(e))


def _host_missing(host: str) -> str | None:
    if host == "chromium":
        return harness.chromium_available()
    try:
        harness.node_binary()
    except harness.HarnessUnavailable as e:
        return str(e)
    return None


@pytest.fixture(scope="module")
def plain(assets):
    """pytest-pyodide's run over tests/pyodide/plain, in every host that is here."""
    hosts = [h for h in HOSTS if not _host_missing(h)]
    if not hosts:
        pytest.skip("; ".join(f"{h}: {_host_missing(h)}" for h in HOSTS))
    try:
        return harness.run_plain(assets[1], hosts)
    except harness.HarnessUnavailable as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("name", PLAIN_TESTS)
def test_any_pyodide(plain, host, name):
    """jaxweb micropip-installed into a plain Pyodide (tests/pyodide/plain/test_any_pyodide.py)."""
    if _host_missing(host):
        pytest.skip(f"{host} unavailable: {_host_missing(host)}")
    outcome, text = plain.get(f"{name}[{harness.RUNTIMES[host]}]", ("missing", plain["_output"][-4000:]))
    if outcome == "skipped":
        pytest.skip(text)
    assert outcome == "passed", text
    print(text.strip()[-300:])


_results: dict = {}


@pytest.fixture(params=HOSTS)
def result(request, assets):
    host = request.param
    if host not in _results:
        try:
            _results[host] = harness.HOSTS[host](*assets)
        except harness.HarnessUnavailable as e:
            _results[host] = e
    r = _results[host]
    if isinstance(r, harness.HarnessUnavailable):
        pytest.skip(f"{host} unavailable: {r}")
    return host, r


def _check(r, name):
    if "error" in r:
        pytest.fail(r["error"])
    for n, ok, detail in r["checks"]:
        if n == name:
            if ok == "skipped":
                pytest.skip(detail)
            return ok, detail
    pytest.fail(f"check {name} did not run")


def test_plain_runPython_readback_says_use_runPythonAsync(result):
    ok, detail = _check(result[1], "plain_runPython_wait_errors")
    assert ok, detail


def test_async_api_awaited_from_js_without_jspi(result):
    ok, detail = _check(result[1], "async_api_from_js")
    assert ok, detail


def test_host_facts(result):
    host, r = result
    if "error" in r:
        pytest.fail(r["error"])
    assert r["host"]["kind"] == ("node" if host == "node" else "browser")
    if host == "chromium":
        assert r["crossOriginIsolated"] is True  # serve.py's COOP/COEP headers work
        assert r["host"]["webgpu"] is True  # SwiftShader adapter with the harness's flags


@pytest.mark.parametrize("name", ["missing_pyodide_file_named", "missing_wheel_named"])
def test_loader_error_names_the_missing_url(result, name):
    ok, detail = _check(result[1], name)
    assert ok, detail


def test_without_webgpu_loader_notes_wasm_fallback(result):
    ok, detail = _check(result[1], "no_webgpu_console_note")
    assert ok, detail


def test_demo_page_end_to_end(assets):
    """demos/index.html as a person sees it; the screenshot lands in .cache/screenshots/."""
    shot = harness.assets.CACHE / "screenshots" / "demo_index.png"
    try:
        r = harness.run_demo(*assets, screenshot=shot)
    except harness.HarnessUnavailable as e:
        pytest.skip(f"chromium unavailable: {e}")
    assert r["snippet"] and "[0 2 4]" in r["snippet"], r
    assert r["repl"] == "[4.5 4.5]", r
    assert r["status"].startswith("ready"), r
    assert shot.exists() and shot.stat().st_size > 10_000


def test_host_module_in_cpython():
    """The same host API in CPython: no shim, nothing to wait on, async readback still works."""
    import asyncio

    import jaxweb.numpy as jnp
    from jaxweb._src import host

    assert host.kind() == "cpython" and not host.in_pyodide() and not host.can_wait()
    assert not host.webgpu_available()
    with pytest.raises(host.HostError, match="Pyodide"):
        host.shim()
    with pytest.raises(host.HostError):
        host.wait(None)
    assert not host.platform_available("webgpu")  # CPython backends find their devices themselves
    import jaxweb
    with jaxweb.default_device(jaxweb.devices("cpu")[0]):  # the oracle: independent of wasm work
        x = jnp.arange(3) * 2
        assert asyncio.run(host.async_value(x)) == [0, 2, 4]
        assert asyncio.run(host.async_value(jnp.zeros((2,)))) == [0.0, 0.0]
        assert asyncio.run(host.async_block_until_ready([x])) == [x]
        assert asyncio.run(x.async_value()) == [0, 2, 4]  # the public spelling
        assert asyncio.run(jnp.float32(2.5).async_value()) == 2.5
        assert asyncio.run(x.async_block_until_ready()) is x


def test_uninitialized_bytearrays_for_readbacks():
    """host.uninitialized: a writable bytearray of the size asked for (contents unspecified),
    small ones cleared as bytearray(n) does; sizes the allocator refuses raise MemoryError."""
    from jaxweb._src import host

    for n in (0, 5, 1 << 16, (3 << 20) + 1):
        b = host.uninitialized(n)
        assert type(b) is bytearray and len(b) == n
        b[-1:] = b"\x07" if n else b""
        assert b[-1:] == (b"\x07" if n else b"")
    assert host.uninitialized(100) == bytearray(100)
    with pytest.raises(MemoryError):
        host.uninitialized(1 << 62)


def test_shim_modules_become_function_bodies_with_the_same_exports(tmp_path):
    """What jaxweb evaluates when it registers its shim from the wheel (shim_loader): every
    module host.mjs lists, and host.mjs, as a function body returning exactly the names the
    ES module exports (checked against Node's own import of the module)."""
    import json
    import re
    import subprocess

    from jaxweb._src import shim_loader
    try:
        node = harness.node_binary()
    except harness.HarnessUnavailable as e:
        pytest.skip(str(e))
    shim = harness.ROOT / "js_shim"
    listed = re.search(r"SHIM_MODULES = \[([^\]]*)\]", (shim / "host.mjs").read_text()).group(1)
    names = ["host", *re.findall(r"'(\w+)'", listed)]
    script = ["const out = {};"]
    for name in names:
        body = shim_loader.module_function((shim / f"{name}.mjs").read_text(), name)
        script.append(f"out[{name!r}] = [Object.keys(({body})('file:///x/{name}.mjs')).sort(), "
                      f"Object.keys(await import({(shim / f'{name}.mjs').as_uri()!r})).sort()];")
    script.append("console.log(JSON.stringify(out));")
    (tmp_path / "check.mjs").write_text("\n".join(script))
    r = subprocess.run([str(node), str(tmp_path / "check.mjs")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for name, (as_function, as_module) in json.loads(r.stdout).items():
        assert as_function == as_module and as_module, name
    with pytest.raises(shim_loader.ShimSourceError, match="only `export` before declarations"):
        shim_loader.module_function("import { x } from './gpu.mjs';\nexport const y = x;\n", "bad")
