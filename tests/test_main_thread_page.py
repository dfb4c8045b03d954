"""Python on a page's main thread with the wasm thread pool on, in headless Chromium
(issue 14: a jitted `solve` froze the benchmark page there). The page runs
tests/pyodide/main_thread_checks.py: solve (eager and jitted, 8 and 100) and `cost_analysis()`
of a jitted solve, batched Cholesky/solve and a while_loop whose kernels are split over
the workers, QR and eigh, and last a terminated worker: the launch must raise naming
the kernel within the stall bound, and the device keep working."""
import importlib.util
import tempfile
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "jaxweb_pyodide_harness", Path(__file__).resolve().parent / "pyodide" / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)
serve = harness.serve
assets = harness.assets
TIMEOUT_S = 300  # generous: the CI machine's two cores are shared


@pytest.fixture(scope="module")
def result():
    try:
        driver = harness._chrome()
    except harness.HarnessUnavailable as e:
        pytest.skip(f"chromium unavailable: {e}")
    driver.set_script_timeout(TIMEOUT_S)
    try:
        with tempfile.TemporaryDirectory() as tmp:  # this tree's wheel, not the shared cache's
            wheel = assets.build_wheel(Path(tmp) / "wheels")
            mounts = {"/": harness.HERE, "/js_shim/": harness.ROOT / "js_shim",
                      "/pyodide/": assets.ensure_pyodide(), "/wheels/": wheel.parent}
            srv = serve.start("127.0.0.1", 0, mounts)
            try:
                driver.get(srv.url + "main_thread.html")
                yield harness.page_result(driver, "__mainThreadResult", TIMEOUT_S, poll=0.5)
            finally:
                srv.shutdown()
                srv.server_close()
    except assets.FetchError as e:
        pytest.skip(str(e))
    finally:
        driver.quit()


def test_page_is_isolated_with_a_pool(result):
    assert "error" not in result, result
    assert result["isolated"] is True and result["threads"] == 3, result
    print("\n" + "\n".join(f"  {name}: {detail}" for name, _, detail in result["checks"]))


@pytest.mark.parametrize("name", ["solve_8", "solve_100_cost_analysis", "batched_cholesky_solve_split", "qr_eigh", "while_loop_split",
                                  "stalled_pool_raises"])
def test_check(result, name):
    assert "error" not in result, result
    checks = {c[0]: c for c in result["checks"]}
    _, ok, detail = checks[name]
    assert ok, f"{name}: {detail}\nconsole:\n" + "\n".join(result.get("console", [])[-20:])
