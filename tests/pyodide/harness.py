"""jaxweb inside Pyodide, in Node 24 and headless Chromium: the in-Pyodide tests.

    python tests/pyodide/harness.py [--host node,chromium] [-v]

Two runs per host, local and offline after the first (`.cache/`, filled by
scripts/setup_browser.sh), the jaxweb wheel built from the work tree:

- any Pyodide (`run_plain`): pytest-pyodide (tests/pyodide/plain) starts a plain Pyodide,
  `micropip.install`s jaxweb and runs, with pytest inside Pyodide, the tests of
  tests/test_*.py marked `pyodide` and tests/pyodide/inside/check_*.py, plus the checks
  of tests/pyodide/plain itself (jit, grad, matmul on wasm and webgpu; plain runPython);
- the loader (`run_node`, `run_chromium`: suite.mjs): what only `loadJaxweb` does (missing
  files named, the no-WebGPU note) and its registered shim's readback paths.

`tests/test_pyodide_host.py` drives both from the normal CPython test run.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MARK = "@@JAXWEB_RESULT@@"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SWIFTSHADER_ICD = "/usr/lib/chromium/vk_swiftshader_icd.json"
CHROME_FLAGS = ("--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", "--enable-features=Vulkan",
                "--use-webgpu-adapter=swiftshader", "--use-angle=swiftshader", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run")


def _serve_module():
    spec = importlib.util.spec_from_file_location("jaxweb_serve", ROOT / "serve.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("jaxweb_serve", mod)
    spec.loader.exec_module(mod)
    return mod


serve = _serve_module()
assets = serve.assets


class HarnessUnavailable(RuntimeError):
    """A host (Node 24, Chromium) is genuinely missing here."""


# ---------------------------------------------------------------- assets
def node_binary() -> Path:
    for p in (assets.CACHE / "node24" / "bin" / "node",):
        if p.exists():
            return p
    raise HarnessUnavailable("Node 24 not found in .cache/node24 (run: bash scripts/setup_browser.sh)")


def webgpu_package() -> Path | None:
    p = assets.CACHE / "npm" / "node_modules" / "webgpu"
    return p if (p / "index.js").exists() else None


def select_files() -> list[tuple[Path, str]]:
    """(file, path inside Pyodide) of every test file the in-Pyodide run needs."""
    files = [(p, p.name) for p in sorted((HERE / "inside").glob("*.py"))]
    numpy_import = re.compile(r"^\s*(import numpy|from numpy)", re.M)
    for p in sorted((ROOT / "tests").glob("test_*.py")):
        text = p.read_text()
        if "mark.pyodide" in text and not numpy_import.search(text):
            files.append((p, p.name))
    return files


def pytest_args(files: list[tuple[Path, str]], verbose: bool = False) -> list[str]:
    args = ["-q" if not verbose else "-v", "-p", "pyodide_plugin", "-p", "no:cacheprovider",
            "-o", "python_files=check_*.py test_*.py", "-o", "addopts=", "-rfE"]
    return args + [name for _, name in files if name.startswith(("check_", "test_"))]  # not the helpers


def manifest(url_of, wheel: Path, pyodide_dir: Path) -> dict:
    """suite.mjs's instructions; `url_of(path)` says how the host reaches a file."""
    return {"loader": {"pyodideURL": url_of(pyodide_dir) + "/", "wheelURL": url_of(wheel)}}


def prepare(offline: bool = False) -> tuple[Path, Path]:
    """The Pyodide distribution's folder and a freshly built jaxweb wheel."""
    pyodide_dir = assets.ensure_pyodide(offline)
    wheel = assets.build_wheel(assets.CACHE / "wheels", offline)
    return pyodide_dir, wheel


# ---------------------------------------------------------------- hosts
def run_node(pyodide_dir: Path, wheel: Path, timeout: float = 240) -> dict:
    node = node_binary()
    m = manifest(lambda p: str(p), wheel, pyodide_dir)
    if webgpu_package():
        m["nodeWebgpu"] = str(webgpu_package())
    env = dict(os.environ)
    if os.path.exists(SWIFTSHADER_ICD) and "VK_ICD_FILENAMES" not in env:
        env["VK_ICD_FILENAMES"] = SWIFTSHADER_ICD  # Dawn rejects lavapipe; SwiftShader works
    env.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(m, f)
    try:
        r = subprocess.run([str(node), str(HERE / "node_host.mjs"), f.name], capture_output=True,
                           text=True, timeout=timeout, env=env)
    finally:
        os.unlink(f.name)
    return _parse_marked(r.stdout, r.stderr)


def _parse_marked(stdout: str, stderr: str) -> dict:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    return {"error": f"no result line; stdout tail:\n{stdout[-3000:]}\nstderr tail:\n{stderr[-3000:]}"}


def chromium_available() -> str | None:
    """None if Chromium + chromedriver + selenium are here, else why not."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        return f"{CHROMIUM} / {CHROMEDRIVER} missing (run: bash scripts/setup_browser.sh)"
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (run: bash scripts/setup_browser.sh)"
    return None


def run_chromium(pyodide_dir: Path, wheel: Path, timeout: float = 240) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        mounts = {"/": ROOT / "demos", "/js_shim/": ROOT / "js_shim", "/tests/": ROOT / "tests",
                  "/pyodide/": pyodide_dir, "/wheels/": wheel.parent, "/harness/": Path(tmp)}
        driver = _chrome()
        srv = serve.start("127.0.0.1", 0, mounts)

        def url_of(p: Path) -> str:
            p = Path(p).resolve()
            for prefix, folder in sorted(mounts.items(), key=lambda kv: -len(str(kv[1]))):
                folder = Path(folder).resolve()
                if p == folder or folder in p.parents:
                    rel = "" if p == folder else p.relative_to(folder).as_posix()
                    return srv.url.rstrip("/") + prefix + rel
            raise ValueError(f"{p} is not served")

        m = manifest(url_of, wheel, pyodide_dir)
        m["loader"]["pyodideURL"] = srv.url + "pyodide/"
        (Path(tmp) / "manifest.json").write_text(json.dumps(m))
        try:
            driver.get(srv.url + "tests/pyodide/page.html?manifest=/harness/manifest.json")
            result = page_result(driver, "__jaxwebResult", timeout)
            result["crossOriginIsolated"] = driver.execute_script("return self.crossOriginIsolated")
            return result
        finally:
            driver.quit()
            srv.shutdown()
            srv.server_close()


def page_result(driver, name: str, timeout: float, poll: float = 0.25) -> dict:
    """Wait for the page to set `window[name]`; on time-out, an error with the page's log.
    Either way the browser console comes along."""
    deadline, result = time.time() + timeout, None
    while time.time() < deadline:
        result = driver.execute_script(f"return window.{name} ?? null")
        if result is not None:
            break
        time.sleep(poll)
    if result is None:
        text = driver.execute_script("return document.getElementById('log').textContent")
        result = {"error": f"timed out after {timeout}s; page log:\n{text[-3000:]}"}
    result["console"] = [e.get("message", "") for e in driver.get_log("browser")]
    return result


def _chrome(width: int = 1000, height: int = 900):
    """Headless Chromium with WebGPU on SwiftShader, offline, logging the console."""
    why = chromium_available()
    if why:
        raise HarnessUnavailable(why)
    os.environ.setdefault("SE_OFFLINE", "true")  # keep Selenium Manager off the network
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in CHROME_FLAGS + (f"--window-size={width},{height}",):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))


def run_demo(pyodide_dir: Path, wheel: Path, screenshot: Path | None = None, timeout: float = 180) -> dict:
    """Open demos/index.html as a person would: snippet result, one REPL run, a screenshot."""
    mounts = {"/": ROOT / "demos", "/js_shim/": ROOT / "js_shim", "/pyodide/": pyodide_dir,
              "/wheels/": wheel.parent}
    driver = _chrome()
    srv = serve.start("127.0.0.1", 0, mounts)
    try:
        driver.get(srv.url)
        deadline, snippet = time.time() + timeout, None
        while time.time() < deadline and not snippet:
            snippet = driver.execute_script("return window.__demoResult ?? null")
            time.sleep(0.25)
        repl = None
        if snippet and not snippet.startswith("error"):
            driver.find_element("id", "run").click()
            while time.time() < deadline and not repl:
                repl = driver.find_element("id", "out").text
                time.sleep(0.1)
        if screenshot:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(screenshot))
        return {"snippet": snippet, "repl": repl, "status": driver.find_element("id", "status").text,
                "console": [e.get("message", "") for e in driver.get_log("browser")]}
    finally:
        driver.quit()
        srv.shutdown()
        srv.server_close()


HOSTS = {"node": run_node, "chromium": run_chromium}


# ---------------------------------------------------------------- pytest-pyodide: any Pyodide
PLAIN = HERE / "plain"
VENV_PYTHON = assets.CACHE / "pytest-pyodide-venv" / "bin" / "python"
#: pytest-pyodide's runtime names for the hosts
RUNTIMES = {"node": "node", "chromium": "chrome"}


def plain_dist(tmp: Path, wheel: Path, verbose: bool = False) -> Path:
    """A folder pytest-pyodide serves: Pyodide as its CDN has it (micropip, pytest in the lock),
    the jaxweb wheel with its PEP 503 index, and `jaxweb.json` for tests/pyodide/plain/conftest.py.
    Files are hard links where they can be (real files, which Node's runtime needs)."""
    dist = tmp / "dist"
    for src_dir, dst_dir in ((assets.ensure_pyodide(), dist), (wheel.parent / "simple", dist / "simple")):
        for src in src_dir.rglob("*"):
            if src.is_file():
                dst = dst_dir / src.relative_to(src_dir)
                dst.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(src, dst)
                except OSError:
                    shutil.copy2(src, dst)
    shutil.copy2(wheel, dist / wheel.name)
    files = select_files()
    (dist / "jaxweb.json").write_text(json.dumps({
        "wheel": wheel.name, "webgpu_npm": str(webgpu_package()) if webgpu_package() else None,
        "files": [[str(p), name] for p, name in files], "pytest_args": pytest_args(files, verbose)}))
    return dist


def plain_available() -> str | None:
    """None if pytest-pyodide's venv is here, else why not."""
    if not VENV_PYTHON.exists():
        return f"{VENV_PYTHON} missing (run: bash scripts/setup_browser.sh)"
    return None


def run_plain(wheel: Path, hosts: list[str], verbose: bool = False, timeout: float = 900) -> dict:
    """tests/pyodide/plain through pytest-pyodide in the given hosts; {test id: (outcome, text)},
    plus "_output": pytest's own output."""
    why = plain_available()
    if why:
        raise HarnessUnavailable(why)
    env = dict(os.environ, SE_OFFLINE="true", XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", tempfile.gettempdir()))
    env["PATH"] = f"{node_binary().parent}:{env.get('PATH', '')}"  # pytest-pyodide runs `node`: Node 24 (JSPI)
    if os.path.exists(SWIFTSHADER_ICD):
        env.setdefault("VK_ICD_FILENAMES", SWIFTSHADER_ICD)  # Dawn rejects lavapipe; SwiftShader works
    with tempfile.TemporaryDirectory(dir=assets.CACHE) as tmp:
        dist = plain_dist(Path(tmp), wheel, verbose)
        xml = Path(tmp) / "junit.xml"
        cmd = [str(VENV_PYTHON), "-m", "pytest", "-c", str(PLAIN / "pytest.ini"), "--dist-dir", str(dist),
               "--rt", ",".join(RUNTIMES[h] for h in hosts), "--junitxml", str(xml), "-rfE", "-s",
               "-q" if not verbose else "-v", str(PLAIN)]
        r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        out = {"_output": r.stdout[-20000:] + r.stderr[-5000:]}
        if not xml.exists():
            return out
        for case in ET.parse(xml).getroot().iter("testcase"):
            bad = case.find("failure") if case.find("failure") is not None else case.find("error")
            skip = case.find("skipped")
            outcome = "failed" if bad is not None else "skipped" if skip is not None else "passed"
            text = (bad if bad is not None else skip).get("message", "") + "\n" + ((bad if bad is not None else skip).text or "") \
                if outcome != "passed" else (case.findtext("system-out") or "")
            out[case.get("name")] = (outcome, text)
    return out


# ---------------------------------------------------------------- reporting
def failures(result: dict) -> list[str]:
    """Human-readable problems in a loader run's result (empty when all is well)."""
    if "error" in result:
        return [result["error"]]
    return [f"host check {name}: {detail}" for name, ok, detail in result.get("checks", [])
            if not ok and not str(detail).startswith("skipped")]


def summary(host: str, result: dict) -> str:
    checks = result.get("checks", [])
    return (f"{host} (loader): checks {sum(c[1] is True for c in checks)}/{len(checks)} ok; "
            f"{result.get('seconds', 0):.1f}s")


def plain_failures(result: dict) -> list[str]:
    """The failed tests of a `run_plain` result, with their reports."""
    tests = {k: v for k, v in result.items() if not k.startswith("_")}
    if not tests:
        return [f"pytest-pyodide ran no test:\n{result['_output'][-4000:]}"]
    return [f"{name}: {text}" for name, (outcome, text) in tests.items() if outcome == "failed"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="run the in-Pyodide tests")
    ap.add_argument("--host", default="node,chromium")
    ap.add_argument("--offline", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    pyodide_dir, wheel = prepare(args.offline)
    hosts, bad = args.host.split(","), []
    try:
        plain = run_plain(wheel, hosts, args.verbose)
        print(plain["_output"] if args.verbose else plain["_output"][-3000:])
        bad += plain_failures(plain)
    except HarnessUnavailable as e:
        print(f"any Pyodide (pytest-pyodide): skipped ({e})")
    for host in hosts:
        try:
            result = HOSTS[host](pyodide_dir, wheel)
        except HarnessUnavailable as e:
            print(f"{host} (loader): skipped ({e})")
            continue
        if args.verbose:
            print("\n".join(result.get("log", [])))
        print(summary(host, result))
        bad += failures(result)
    for f in bad:
        print(f"  FAIL {f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
