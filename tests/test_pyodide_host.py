"""The in-Pyodide subset of the suite, in Node 24 and headless Chromium (offline).

One Pyodide start per host runs every selected test (see tests/pyodide/harness.py).
The hosts come from `bash scripts/setup_browser.sh`; a host that is genuinely
missing skips with the reason, anything else that goes wrong fails.
"""
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "jaxweb_pyodide_harness", Path(__file__).resolve().parent / "pyodide" / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

HOSTS = ["node", "chromium"]


@pytest.fixture(scope="module")
def assets():
    try:
        return harness.prepare()
    except (harness.HarnessUnavailable, harness.assets.FetchError) as e:
        pytest.skip(str(e))


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


def test_suite_passes_inside_pyodide(result):
    host, r = result
    problems = [p for p in harness.failures(r) if not p.startswith("host check")]
    assert not problems, f"{harness.summary(host, r)}\n\n" + "\n\n".join(problems)
    passed = [t for t in r["pytest"]["tests"] if t["outcome"] == "passed"]
    assert len(passed) >= 10, harness.summary(host, r)
    print(harness.summary(host, r))


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
    host.select_pyodide_runtimes()  # a no-op outside Pyodide
    import jaxweb
    with jaxweb.default_device(jaxweb.devices("cpu")[0]):  # the oracle: independent of wasm work
        x = jnp.arange(3) * 2
        assert asyncio.run(host.async_value(x)) == [0, 2, 4]
        assert asyncio.run(host.async_value(jnp.zeros((2,)))) == [0.0, 0.0]
        assert asyncio.run(host.async_block_until_ready([x])) == [x]
