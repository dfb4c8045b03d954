"""jaxweb in JupyterLite, offline: a site built by `jupyter lite build` (jupyterlite-core and
jupyterlite-pyodide-kernel from PyPI, in .cache/jupyterlite-venv) whose Pyodide kernel runs on
serve.py's Pyodide distribution, with the jaxweb wheel in its piplite index. Its REPL app runs a
cell, in headless Chromium, that installs jaxweb with `%pip install` and computes with it: the
kernel (a Web Worker) enters Python through JSPI, so printing arrays works as in a notebook."""
import importlib.util
import tempfile
import time
import urllib.parse
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "jaxweb_pyodide_harness_jl", Path(__file__).resolve().parent / "pyodide" / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)
assets = harness.assets

CELL = """%pip install jaxweb
import jaxweb as jax, jaxweb.numpy as jnp
x = jnp.arange(6.0).reshape(2, 3)
f = lambda w: jnp.sum(jnp.tanh(x @ w) ** 2)
print(jax.devices(), jax.jit(f)(jnp.ones(3)), jax.grad(f)(jnp.ones(3)), x @ x.T, "done", sep="\\n")
"""


@pytest.mark.slow
def test_jupyterlite_cell_installs_and_uses_jaxweb():
    if harness.chromium_available():
        pytest.skip(harness.chromium_available())
    if not (assets.JUPYTERLITE_VENV / "bin" / "jupyter").exists():
        pytest.skip("no JupyterLite builder (run: bash scripts/setup_browser.sh)")
    with tempfile.TemporaryDirectory(dir=assets.CACHE) as tmp:
        wheel = assets.build_wheel(Path(tmp) / "wheels", bytecode=False)
        site = assets.build_jupyterlite(wheel, Path(tmp) / "site")
        srv = harness.serve.start("127.0.0.1", 0, {"/": site})
        driver = harness._chrome(1200, 900)
        try:
            driver.get(f"{srv.url}repl/index.html?kernel=python&code={urllib.parse.quote(CELL)}")
            deadline, text = time.time() + 300, ""
            while time.time() < deadline and "done" not in text and "Error" not in text:
                time.sleep(1)
                text = driver.execute_script(
                    "return [...document.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText).join('\\n')")
            shot = assets.CACHE / "screenshots" / "jupyterlite.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(shot))
        finally:
            driver.quit()
            srv.shutdown()
            srv.server_close()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert "done" in lines, text
    # sum(tanh(x @ 1)**2) = tanh(3)**2 + tanh(12)**2; its gradient is x's rows weighted by 2 tanh tanh'
    assert lines[lines.index("done") - 5:lines.index("done")] == [
        "[WasmDevice(id=0)]", "1.990134", "[0.         0.01963442 0.03926884]", "[[ 5. 14.]", " [14. 50.]]"], text
