"""The WebGL runtime (see runtime.py) in Pyodide, through js_shim/webgl.mjs.

Textures and programs live in the shim's tables and cross as ints; a schedule's draws
cross as one Int32Array (`webgl.run`). Reads are synchronous (`readPixels`: no JSPI
needed, so plain runPython works too); `read_async` awaits the shim's fenced readback.
"""
from __future__ import annotations

import array
import json

from ... import host
from .runtime import GLSLError, is_software


def _i32(values) -> object:
    from pyodide.ffi import to_js  # noqa: PLC0415  (only exists in Pyodide)
    return to_js(array.array("i", values))


class PyodideGLRuntime:
    name = "webgl2"

    def __init__(self):
        self._shim = host.shim().webgl  # HostError outside Pyodide
        self._start()

    def _start(self) -> None:
        if not self._shim.available():
            raise RuntimeError("this host has no OffscreenCanvas or document: no WebGL2")
        text = self._shim.init()
        if text is None:
            raise RuntimeError("no WebGL2 context with EXT_color_buffer_float here")
        self._gen = int(self._shim.contextGeneration())
        d = json.loads(str(text))
        d["software"] = is_software(d["vendor"], d["renderer"])
        self.info = d

    def renew(self) -> None:
        self._start()

    def lost(self) -> str:
        return str(self._shim.lostReason(self._gen))

    def _check(self, what: str, code: str = "") -> None:
        err = str(self._shim.takeError())
        if err:
            raise GLSLError(f"WebGL error in {what}: {err}", code)

    def create_texture(self, texels: int) -> int:
        return int(self._shim.createTexture(texels))

    def delete_texture(self, handle: int) -> None:
        self._shim.deleteTexture(handle)

    def write(self, handle: int, t0: int, data: bytes) -> None:
        self._shim.write(handle, t0, host.to_js_bytes(data))

    def read(self, handle: int, t0: int, t1: int) -> bytearray:
        out = bytearray((t1 - t0) * 16)
        self._shim.readInto(handle, t0, t1, out)
        self._check("a readback")
        return out

    async def read_async(self, handle: int, t0: int, t1: int) -> bytearray:
        out = bytearray((t1 - t0) * 16)
        await self._shim.readIntoAsync(handle, t0, t1, out)
        return out

    def finish(self) -> None:
        self._shim.finishSync()

    async def finish_async(self) -> None:
        await self._shim.finish()

    def program(self, code: str, n_in: int) -> int:
        try:
            return int(self._shim.createProgram(code, n_in))
        except Exception as e:  # a JsException carrying the compiler's log
            raise GLSLError(f"WebGL rejected a generated shader: {e}", code) from None

    def run(self, cmds: list) -> None:
        flat = array.array("i")
        for c in cmds:
            flat.extend(c)
        self._shim.run(_i32(flat))
        self._check("a drawn schedule")
