"""The WebGPU runtime (see runtime.py) in Pyodide, through js_shim/gpu.mjs.

GPU objects live in the shim's tables and cross as ints; a schedule's commands
cross as one Int32Array and run as one command encoder and one queue.submit
(`gpu.run`). Requesting the device, compiling a pipeline (to get the compiler's
messages) and reading back are promises: Python waits on them through
`host.wait` (JSPI), which needs code entered through runPythonAsync.
"""
from __future__ import annotations

import array
import json

from ... import host
from .runtime import LIMITS, WGSLError, is_software

_DISPATCH, _COPY = 1, 2
_UNIFORM, _COPY_DST = 0x40, 0x08  # GPUBufferUsage bits


def _i32(values) -> object:
    """An Int32Array of ints (one FFI crossing)."""
    from pyodide.ffi import to_js  # noqa: PLC0415  (only exists in Pyodide)
    return to_js(array.array("i", values))


class PyodideGpuRuntime:
    name = "navigator.gpu"
    reports_loss = True  # `replay` checks for a lost device itself (the backend skips its own check)

    def __init__(self, adapter: str | None = None):
        self._shim = host.shim().gpu  # HostError outside a page loaded by js_shim
        if not self._shim.available():
            raise RuntimeError("this host has no navigator.gpu (WebGPU)")
        text = host.wait(self._shim.init("high-performance", adapter or ""))
        if text is None:
            raise RuntimeError("navigator.gpu.requestAdapter() found no adapter")
        self._gen = int(self._shim.deviceGeneration())  # the shim's device this runtime uses
        self._replay = self._shim.replay  # looked up once: a JS module's attribute costs ~2 µs a call
        d = json.loads(str(text))
        limits = {k: d["limits"][k] for k in LIMITS if k in d["limits"]}
        self.info = {"vendor": d["vendor"], "architecture": d["architecture"],
                     "description": f"{d['device']} {d['description']}".strip(),
                     "software": bool(d["isFallbackAdapter"]) or is_software(
                         d["vendor"], d["architecture"], d["device"], d["description"]),
                     "features": sorted(d["features"]), "limits": limits}

    def _check(self, what: str, code: str = "", err: str | None = None) -> None:
        """Raise the device's last uncaptured error (`err` where the shim returned it already)."""
        err = str(self._shim.takeError()) if err is None else err
        if err:
            raise WGSLError(f"WebGPU error in {what}: {err}", code)

    def lost(self) -> str:
        return str(self._shim.lostReason(self._gen))

    probe_lost = lost

    def create_buffer(self, size: int) -> int:
        return int(self._shim.createBuffer(max(4, size), 0))

    def create_uniform(self, data: bytes) -> int:
        """A uniform buffer holding `data` (a dynamic shader's `dims`)."""
        handle = int(self._shim.createBuffer(len(data), _UNIFORM | _COPY_DST))
        self.write(handle, 0, data)
        return handle

    def destroy_buffer(self, handle: int) -> None:
        self._shim.destroyBuffer(handle)

    alive = None  # the shim's tables hold buffers until destroyBuffer (runtime.py's contract)

    def write(self, handle: int, offset: int, data: bytes) -> None:
        self._shim.writeBuffer(handle, offset, host.to_js_bytes(data))

    def read(self, handle: int, offset: int, size: int) -> bytearray:
        out = host.uninitialized(size)  # the shim copies mapped memory straight into all of it
        host.wait(self._shim.readInto(handle, offset, size, out))
        self._check("a readback")
        return out

    async def read_async(self, handle: int, offset: int, size: int) -> bytearray:
        out = host.uninitialized(size)
        await self._shim.readInto(handle, offset, size, out)
        return out

    def finish(self) -> None:
        host.wait(self._shim.finish())

    async def finish_async(self) -> None:
        await self._shim.finish()

    def pipeline(self, code: str) -> int:
        try:
            return int(host.wait(self._shim.createPipelineAsync(code, "main")))
        except Exception as e:  # a JsException carrying the compiler's messages
            raise WGSLError(f"WebGPU rejected a generated shader: {e}", code) from None

    def pipeline_soon(self, code: str) -> object:
        """The pipeline of `code`, started now and awaited later (`pipelines_wait`): a promise."""
        return self._shim.createPipelineAsync(code, "main")

    def pipelines_wait(self, started: list) -> list[tuple]:
        """[(pipeline, None) or (None, the compiler's message)] of `pipeline_soon` promises, in one
        wait: Dawn compiles them concurrently where it has worker threads."""
        import js  # noqa: PLC0415  (only exists in Pyodide)
        from pyodide.ffi import to_js  # noqa: PLC0415
        done = host.wait(js.Promise.allSettled(to_js(started)))
        return [(int(d.value), None) if d.status == "fulfilled" else (None, str(d.reason)) for d in done]

    def pipelines(self, codes: list) -> list[int]:
        """Pipelines of several shaders, compiled together (a GEMM plan's candidates)."""
        done = self.pipelines_wait([self.pipeline_soon(c) for c in codes])
        bad = next((err for _, err in done if err is not None), None)
        if bad is not None:
            raise WGSLError(f"WebGPU rejected one of {len(codes)} generated shaders: {bad}")
        return [p for p, _ in done]

    def bind_group(self, pipeline: int, handles: list) -> int:
        return int(self._shim.createBindGroup(pipeline, _i32(handles)))

    def release_bind_group(self, handle: int) -> None:
        self._shim.release("bindGroup", handle)

    @staticmethod
    def _flat(cmds: list) -> object:
        flat = array.array("i")
        for c in cmds:
            flat.extend((_DISPATCH, *c[1:]) if c[0] == "dispatch" else (_COPY, *c[1:]))
        return _i32(flat)

    def submit(self, cmds: list) -> None:
        self._shim.run(self._flat(cmds))
        self._check("a submitted schedule")

    def encode(self, cmds: list) -> int:
        """`cmds` kept by the shim as the GPU objects they name, for `replay`: the recording's
        number (made once per recording, replay.py; `forget` drops it)."""
        return int(self._shim.record(self._flat(cmds)))

    def forget(self, recording: int) -> None:
        self._shim.forget(recording)

    def replay(self, recording: int, writes: list) -> None:
        """Run a recording after `writes` ((buffer, offset, bytes) queue writes, whole words: a
        jitted call's scalar arguments, passed as plain ints): one crossing, which also brings
        back the device's errors — a lost device among them (`reports_loss`: nothing runs then)."""
        if not writes:
            err = self._replay(recording, self._gen)
        else:
            flat = [recording, self._gen]
            for buf, off, data in writes:
                words = array.array("i", data)
                flat += (buf, off, len(words))
                flat += words
            err = self._replay(*flat)
        if err:
            self._check("a submitted schedule", err=str(err))

    @property
    def can_time(self) -> bool:
        return bool(self._shim.canTime())

    def submit_timed(self, cmds: list) -> list[float]:
        stamps = host.wait(self._shim.runTimed(self._flat(cmds)))
        self._check("a submitted schedule")
        return list(stamps.to_py()) if hasattr(stamps, "to_py") else list(stamps)
