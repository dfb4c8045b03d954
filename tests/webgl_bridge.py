"""The webgl device driven from CPython through headless Chromium (test support).

jaxweb's webgl device runs in a page, where Pyodide calls js_shim/webgl.mjs. For the
per-device kernel tests, this runtime implements the same contract
(jaxweb/_src/backends/webgl/runtime.py) over Selenium instead: the same shim module,
evaluated in an about:blank page of headless Chromium whose WebGL2 is SwiftShader
through ANGLE (`--use-angle=swiftshader`), each call one `execute_script` (bytes as
base64). So the GLSL and the shim under test are the page's; only the Python <-> JS
crossing differs (tests/pyodide/inside/check_webgl.py covers the Pyodide one).
"""
from __future__ import annotations

import atexit
import base64
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_DRIVER = []


def _harness():
    spec = importlib.util.spec_from_file_location("jaxweb_harness", ROOT / "tests" / "pyodide" / "harness.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def unavailable() -> str | None:
    """None if Chromium can run the bridge here, else why not (starts nothing)."""
    return _harness().chromium_available()


def _driver():
    if not _DRIVER:
        from jaxweb._src.shim_loader import module_function
        d = _harness()._chrome()
        d.get("about:blank")
        d.set_script_timeout(600)
        src = (ROOT / "js_shim" / "webgl.mjs").read_text()
        d.execute_script(f"window.__gl = {module_function(src, 'webgl')}('about:blank');"
                         "window.__b64 = (u8) => { let s = ''; for (let i = 0; i < u8.length; i += 32768)"
                         " s += String.fromCharCode.apply(null, u8.subarray(i, i + 32768)); return btoa(s); };"
                         "window.__u8 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));")
        _DRIVER.append(d)
        atexit.register(d.quit)
    return _DRIVER[0]


class BridgeRuntime:
    """runtime.py's contract over Selenium (see the module doc)."""

    name = "webgl2 (selenium bridge)"

    def __init__(self):
        from jaxweb._src.backends.webgl.runtime import is_software
        self.d = _driver()
        text = self._js("return __gl.init()")
        if text is None:
            raise RuntimeError("no WebGL2 context with EXT_color_buffer_float in headless Chromium")
        self._gen = self._js("return __gl.contextGeneration()")
        info = json.loads(text)
        info["software"] = is_software(info["vendor"], info["renderer"])
        self.info = info

    def _js(self, script: str, *args):
        return self.d.execute_script(script, *args)

    def renew(self) -> None:
        self.__init__()

    def lost(self) -> str:
        return self._js("return __gl.lostReason(arguments[0])", self._gen)

    def _check(self, what: str, code: str = "") -> None:
        from jaxweb._src.backends.webgl.runtime import GLSLError
        err = self._js("return __gl.takeError()")
        if err:
            raise GLSLError(f"WebGL error in {what}: {err}", code)

    def create_texture(self, texels: int) -> int:
        return self._js("return __gl.createTexture(arguments[0])", texels)

    def delete_texture(self, handle: int) -> None:
        self._js("__gl.deleteTexture(arguments[0])", handle)

    def write(self, handle: int, t0: int, data: bytes) -> None:
        self._js("__gl.write(arguments[0], arguments[1], __u8(arguments[2]))", handle, t0,
                 base64.b64encode(bytes(data)).decode())

    def read(self, handle: int, t0: int, t1: int) -> bytearray:
        s = self._js("const u8 = new Uint8Array((arguments[2] - arguments[1]) * 16);"
                     "__gl.readInto(arguments[0], arguments[1], arguments[2], u8); return __b64(u8);",
                     handle, t0, t1)
        self._check("a readback")
        return bytearray(base64.b64decode(s))

    def finish(self) -> None:
        self._js("__gl.finishSync()")

    def program(self, code: str, n_in: int) -> int:
        from jaxweb._src.backends.webgl.runtime import GLSLError
        r = self._js("try { return [__gl.createProgram(arguments[0], arguments[1]), '']; }"
                     " catch (e) { return [0, String(e.message || e)]; }", code, n_in)
        if r[1]:
            raise GLSLError(f"WebGL rejected a generated shader: {r[1]}", code)
        return r[0]

    def run(self, cmds: list) -> None:
        flat = [v for c in cmds for v in c]
        self._js("__gl.run(Int32Array.from(arguments[0]))", flat)
        self._check("a drawn schedule")

    def lose_context(self) -> bool:
        return self._js("return __gl.loseContext()")


def backend():
    """A webgl backend on the bridge (one Chromium per test process)."""
    from jaxweb._src.backends.webgl.backend import WebGLBackend
    return WebGLBackend(BridgeRuntime())
