"""jaxweb in a plain Pyodide, as its users get it: `micropip.install`, then `import jaxweb`.

Run by pytest-pyodide in Chrome (WebGPU on SwiftShader) and Node 24 (Dawn), see conftest.py.
No loader of ours: the wheel's shim registers itself on first use, probes WebGPU, starts
wasm threads where the page is crossOriginIsolated, and chooses devices as the loader does.
"""
import json

import pytest
from pytest_pyodide import run_in_pyodide
from pytest_pyodide.copy_files_to_pyodide import copy_files_to_emscripten_fs

TEST_DIR = "jaxweb_tests"


@run_in_pyodide(packages=["micropip"])
async def _install(selenium, index_url):
    """micropip from an index, as from PyPI (the index is the test server's PEP 503 `simple/`)."""
    import micropip
    await micropip.install("jaxweb", index_urls=[index_url])


@pytest.fixture
def installed(selenium, urls):
    _install(selenium, urls["index"])
    return selenium


@run_in_pyodide
async def _compute(selenium):
    import sys

    import jaxweb as jax
    import jaxweb.numpy as jnp
    from jaxweb._src import host

    out = {"kind": host.kind(), "default": jax.default_backend(),
           "threads": int(host.shim().host.wasmThreads)}
    x = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    loss = jax.jit(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))
    for platform in ("wasm", "webgpu"):
        with jax.default_device(jax.devices(platform)[0]):
            w = jnp.array([0.1, -0.2, 0.3], dtype=jnp.float32)
            out[platform] = {"jit": float(loss(w)), "grad": jax.grad(loss)(w).tolist(),
                             "matmul": (x @ x.T).tolist(), "repr": str(x @ x.T)}
    out["modules"] = sum(m.startswith("jaxweb") for m in sys.modules)
    return out


def _expected():
    """The same values by hand (float64 Python: loose float32 tolerances below)."""
    import math
    x = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    w = [0.1, -0.2, 0.3]
    z = [sum(a * b for a, b in zip(row, w)) for row in x]
    loss = sum(math.tanh(v) ** 2 for v in z)
    grad = [sum(2 * math.tanh(z[i]) * (1 - math.tanh(z[i]) ** 2) * x[i][j] for i in range(2)) for j in range(3)]
    return loss, grad, [[5.0, 14.0], [14.0, 50.0]]


def test_micropip_install_then_jit_grad_matmul_on_wasm_and_webgpu(installed):
    out = _compute(installed)
    loss, grad, mm = _expected()
    assert out["default"] == "wasm"  # SwiftShader/Dawn here are software adapters: by name only
    for platform in ("wasm", "webgpu"):
        r = out[platform]
        assert r["jit"] == pytest.approx(loss, rel=1e-5), (platform, r)
        assert r["grad"] == pytest.approx(grad, rel=1e-4, abs=1e-6), (platform, r)
        assert r["matmul"] == mm and r["repr"] == "[[ 5. 14.]\n [14. 50.]]", (platform, r)
    if out["kind"] == "browser":  # crossOriginIsolated (COOP/COEP): a worker pool
        assert out["threads"] > 1, out


def test_import_loads_no_device_until_one_is_used(selenium_standalone, urls):
    """`import jaxweb` in a fresh Pyodide registers nothing and imports no backend; the first op does."""
    _install(selenium_standalone, urls["index"])
    counts = selenium_standalone.run("""
import json, sys
import jaxweb, jaxweb.numpy as jnp
_at_import = sorted(m for m in sys.modules if m.startswith("jaxweb"))
_shim = "_jaxweb_shim" in sys.modules
(jnp.arange(3) * 2).tolist()
json.dumps({"import": _at_import, "shim_at_import": _shim,
            "after": sum(m.startswith("jaxweb") for m in sys.modules)})
""")
    counts = json.loads(counts)
    assert not counts["shim_at_import"]
    assert not [m for m in counts["import"] if ".backends." in m], counts["import"]
    assert len(counts["import"]) < counts["after"]
    print(f"jaxweb modules after import: {len(counts['import'])}, after a first op: {counts['after']}")


def test_plain_runPython_print_wasm_works_webgpu_says_what_to_do(installed):
    """Under plain runPython (no JSPI) the wasm device computes and prints (its readback
    is synchronous); webgpu's readback must wait for the GPU, and the error says how."""
    text = installed.run("""
import jaxweb as jax, jaxweb.numpy as jnp
str(jnp.arange(3) * 2)
""")
    assert text == "[0 2 4]"
    with pytest.raises(installed.JavascriptException, match="runPythonAsync"):
        installed.run("""
import jaxweb as jax, jaxweb.numpy as jnp
with jax.default_device(jax.devices("webgpu")[0]):
    print(jnp.arange(3.0) * 2)
""")


def test_async_api_awaited_from_js_without_jspi(installed):
    """The async API from a coroutine that JS awaits (no JSPI suspender anywhere)."""
    r = installed.run_js("""
const coro = pyodide.runPython(`
import jaxweb.numpy as jnp
async def _check():
    x = jnp.asarray([1.0, 2.0, 3.0]) * 2
    assert (await x.async_block_until_ready()) is x
    return await x.async_value()
_check()
`);
const v = await coro;
return v.toJs();
""")
    assert r == [2.0, 4.0, 6.0]


@run_in_pyodide(packages=["micropip", "pytest"])
async def _pytest_inside(selenium, wheel_url, test_dir, args):
    import json
    import os
    import sys

    import micropip
    await micropip.install(wheel_url)
    import pytest
    os.chdir(test_dir)
    sys.path.insert(0, os.getcwd())
    rc = pytest.main(list(args))
    with open("results.json") as f:
        res = json.load(f)
    res["exitcode"] = int(rc)
    return res


@pytest.mark.driver_timeout(600)
def test_in_pyodide_subset(selenium, urls, jaxweb_manifest, tmp_path_factory):
    """tests/ marked `pyodide` and tests/pyodide/inside/check_*.py, by real pytest inside
    Pyodide (their plugin runs async tests through JSPI), jaxweb from micropip."""
    if hasattr(selenium, "p"):  # Node: pytest-pyodide waits for a result 60 s at most (its pexpect default)
        selenium.p.timeout = 600
    copy_files_to_emscripten_fs([(path, f"{TEST_DIR}/{name}") for path, name in jaxweb_manifest["files"]],
                                selenium, install_wheels=False)
    res = _pytest_inside(selenium, urls["wheel"], TEST_DIR, jaxweb_manifest["pytest_args"])
    tests = res["tests"]
    failed = [f"{t['nodeid']} ({t['when']}):\n{t['longrepr']}" for t in tests if t["outcome"] == "failed"]
    passed = sum(t["outcome"] == "passed" for t in tests)
    print(f"{selenium.browser}: {passed} passed, {len(failed)} failed in Pyodide")
    assert not failed and res["exitcode"] == 0, "\n\n".join(failed) or res
    assert passed >= 100


@run_in_pyodide(packages=["micropip"])
async def _run_cell(selenium, code, index_url):
    """`code` as a notebook cell (top-level await), micropip's default index pointed at ours."""
    import contextlib
    import io

    import micropip
    from pyodide.code import eval_code_async
    micropip.set_index_urls([index_url])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        await eval_code_async(code, {})
    return out.getvalue()


def test_readme_notebook_cell(selenium, urls, readme_block):
    """The README's cell for JupyterLite, marimo and `runPythonAsync`, as written."""
    text = _run_cell(selenium, readme_block("readme-pyodide", "python"), urls["index"])
    lines = text.splitlines()
    assert lines[0] == "[WasmDevice(id=0)]" and lines[-2:] == ["[[ 5. 14.]", " [14. 50.]]"], text
    loss, grad, _ = _expected()
    assert float(lines[1]) == pytest.approx(loss, rel=1e-5), text
