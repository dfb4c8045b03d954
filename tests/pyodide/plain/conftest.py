"""pytest-pyodide's set-up for jaxweb in a plain Pyodide (no jaxweb loader, no page of ours).

tests/pyodide/harness.py (`run_plain`) runs this folder with pytest-pyodide:

    .cache/pytest-pyodide-venv/bin/python -m pytest -c tests/pyodide/plain/pytest.ini \\
        --dist-dir DIST --rt node,chrome tests/pyodide/plain

DIST is a Pyodide distribution as any Pyodide app gets from Pyodide's CDN (assets.ensure_pyodide:
the core files, micropip and pytest in its lock), plus the jaxweb wheel, its PEP 503 index
(`simple/`) and `jaxweb.json` (the harness's instructions: the wheel, Dawn's npm folder for
Node, the test files and pytest arguments of the in-Pyodide subset). jaxweb gets into Pyodide
only by `micropip.install`; its shim registers itself.

Chrome gets the harness's WebGPU flags (SwiftShader), the server sends COOP/COEP (crossOriginIsolated:
wasm threads), and Node gets `navigator.gpu` from Dawn's `webgpu` package, as Node 24 hosts do.
"""
import importlib.util
import json
import re
from pathlib import Path

import pytest
from pytest_pyodide import get_global_config, spawn_web_server
from pytest_pyodide.runner import _BrowserBaseRunner

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("jaxweb_pyodide_harness_plain", HERE.parent / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

ISOLATION = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}
#: Node: pytest-pyodide's driver runs Pyodide in a vm context holding only a few of Node's
#: globals; JS that Python evaluates (the shim) runs there too, so it gets the Node globals the
#: shim uses (a Node program running Pyodide has them all), and Dawn's WebGPU globals and
#: navigator.gpu, as js_shim/node_run.mjs installs them.
NODE_GLOBALS = ["console", "navigator", "URL", "Blob", "performance"]
NODE_LOAD = """
{webgpu}
let pyodide = await loadPyodide({{ fullStdLib: false, jsglobals: self }});
"""
NODE_WEBGPU = """
{{
  const {{ create, globals }} = require({path});
  Object.assign(globalThis, globals);
  Object.defineProperty(navigator, 'gpu', {{ value: create([]), configurable: true }});
}}
"""


def manifest(config) -> dict:
    return json.loads((Path(config.option.dist_dir) / "jaxweb.json").read_text())


def pytest_configure(config):
    # Starting Pyodide may take longer than pytest-pyodide's 20 s on the CI's two shared cores.
    _BrowserBaseRunner.script_timeout = 180
    cfg = get_global_config()
    cfg.set_flags("chrome", ["--js-flags=--expose-gc",
                             *[f for f in harness.CHROME_FLAGS if f not in ("--headless=new", "--no-sandbox")]])
    dawn = manifest(config).get("webgpu_npm")
    webgpu = NODE_WEBGPU.format(path=json.dumps(str(Path(dawn) / "index.js"))) if dawn else ""
    cfg.set_load_pyodide_script("node", NODE_LOAD.format(webgpu=webgpu))
    cfg.add_node_extra_globals(NODE_GLOBALS)


@pytest.fixture(scope="session")
def web_server_main(request):
    """The dist folder, served cross-origin isolated (pytest-pyodide's server, its test pages)."""
    with spawn_web_server(request.config.option.dist_dir, extra_headers=ISOLATION) as server:
        yield server


@pytest.fixture(scope="session")
def jaxweb_manifest(request) -> dict:
    return manifest(request.config)


@pytest.fixture(scope="session")
def readme_block():
    """The README's code block after the marker `<!-- NAME ...-->`, of language `lang`."""
    text = (harness.ROOT / "README.md").read_text()

    def block(name: str, lang: str) -> str:
        return re.search(rf"<!-- {name}[^>]*-->\n```{lang}\n(.*?)```", text, re.S).group(1)
    return block


@pytest.fixture(scope="session")
def urls(web_server_main, jaxweb_manifest) -> dict:
    """Where the runtimes reach the wheel and the index (the test server's own URLs)."""
    hostname, port, _ = web_server_main
    base = f"http://{hostname}:{port}"
    return {"wheel": f"{base}/{jaxweb_manifest['wheel']}", "index": f"{base}/simple"}
