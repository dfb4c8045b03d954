"""What the webgpu backend needs from a WebGPU implementation, and the CPython one (wgpu-py).

Python generates WGSL and decides every dispatch; a runtime only owns the
adapter, the device and GPU objects, and runs command lists. Everything that
crosses the boundary is ints, strings and bytes, so the Pyodide runtime
(`runtime_pyodide.py`, over js_shim/gpu.mjs) is as small as this one.

Contract (sizes in bytes, multiples of 4 where WebGPU asks for it):

- `info`: {"vendor", "architecture", "description", "software", "features", "limits"}
  (limits under WebGPU's camelCase names).
- `create_buffer(size) -> handle`, `destroy_buffer(handle)`, `alive(handle)` (False once the
  host released it: a garbage-collected cycle may finalize the GPU object first); `alive` None
  where buffers live until destroyed (Pyodide: the shim's tables hold them).
- `write(handle, offset, data)`: queued after all work submitted before.
- `lost() -> str`: why the device was lost ('' while it works; cheap, may lag a loss),
  `probe_lost()`: the same, found out by touching the device (for error paths).
- `read(handle, offset, size) -> bytes`: waits for all submitted work; optionally
  `read_async` (awaitable) too. `finish()` waits for all submitted work (`finish_async`).
- `pipeline(code) -> handle`: raises `WGSLError` carrying the code when it does not compile.
- `bind_group(pipeline, handles) -> handle`: whole buffers at bindings 0..n-1 of group 0.
- `submit(cmds)`: one command encoder and one queue.submit for a list of
  ("dispatch", pipeline, bind_group, x, y, z) and ("copy", src, src_off, dst, dst_off, size).
- `can_time`, `submit_timed(cmds) -> [begin, end, ...]`: the same with GPU timestamps
  around each dispatch, in ns from the first (for jaxweb.profiler; waits for the GPU).
"""
from __future__ import annotations

from typing import Any

from ..gpu.device import DeviceLostError, ShaderError, is_software  # noqa: F401  (the webgpu runtime's names)


class WGSLError(ShaderError):
    """A GPU error (compilation, validation, out of memory) with the WGSL it happened in."""

    lang = "WGSL"


#: limits the backend reads (WebGPU's names); devices are requested with the adapter's values
LIMITS = ("maxStorageBuffersPerShaderStage", "maxComputeInvocationsPerWorkgroup", "maxBufferSize",
          "maxStorageBufferBindingSize", "maxComputeWorkgroupStorageSize", "maxComputeWorkgroupsPerDimension")


def _kebab(name: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in name)


class WgpuRuntime:
    """wgpu-py (wgpu-native): Vulkan/Metal/D3D12, or Mesa's lavapipe on a CPU machine."""

    name = "wgpu-py"
    SUBGROUPS = ""  # naga takes subgroup builtins without WGSL's `enable subgroups;` (it rejects it)

    def __init__(self, adapter: str | None = None):
        import wgpu  # noqa: PLC0415  (optional dependency)
        self._wgpu = wgpu
        adapters = wgpu.gpu.enumerate_adapters_sync()
        if adapter:
            adapters = [a for a in adapters if adapter.lower() in " ".join(
                str(a.info.get(k, "")) for k in ("vendor", "device", "description")).lower()]
        if not adapters:
            raise RuntimeError(f"wgpu-py found no WebGPU adapter{f' matching {adapter!r}' if adapter else ''}")
        hardware = [a for a in adapters if not self._software(a)]
        self.adapter = a = (hardware or adapters)[0]
        want = {_kebab(k): a.limits[_kebab(k)] for k in LIMITS if _kebab(k) in a.limits}
        feats = [f for f in ("shader-f16", "subgroup", "timestamp-query") if f in a.features]
        self.device = a.request_device_sync(required_features=feats, required_limits=want)
        info = a.info
        self.info = {
            "vendor": str(info.get("vendor", "")), "architecture": str(info.get("architecture", "")),
            "description": f"{info.get('device', '')} {info.get('description', '')}".strip(),
            "software": self._software(a), "features": sorted(self.device.features),
            "limits": {k: self.device.limits[_kebab(k)] for k in LIMITS if _kebab(k) in self.device.limits},
        }
        self._usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        self._probe = self.create_buffer(4)  # what `finish` reads back: the queue runs in order
        self._lost = ""

    @staticmethod
    def _software(a: Any) -> bool:
        info = a.info
        return str(info.get("adapter_type", "")).upper() == "CPU" or is_software(
            str(info.get("vendor", "")), str(info.get("device", "")))

    def create_buffer(self, size: int) -> Any:
        return self.device.create_buffer(size=max(4, size), usage=self._usage)

    def create_uniform(self, data: bytes) -> Any:
        """A uniform buffer holding `data` (a dynamic shader's `dims`)."""
        return self.device.create_buffer_with_data(data=data, usage=self._wgpu.BufferUsage.UNIFORM)

    def lost(self) -> str:
        return self._lost

    def probe_lost(self) -> str:
        """wgpu-py does not expose the device's lost promise: a lost device refuses new objects."""
        if not self._lost:
            try:
                self.device.create_buffer(size=4, usage=self._usage).destroy()
            except Exception as e:  # noqa: BLE001  (wgpu-py raises GPUValidationError and others)
                if "lost" in str(e).lower():
                    self._lost = " ".join(str(e).split())
        return self._lost

    def destroy_buffer(self, handle: Any) -> None:
        handle.destroy()

    @staticmethod
    def alive(handle: Any) -> bool:
        """False once wgpu-py released the buffer (its finalizer ran first in a collected cycle)."""
        return handle._internal is not None

    def write(self, handle: Any, offset: int, data: bytes) -> None:
        self.device.queue.write_buffer(handle, offset, data)

    def read(self, handle: Any, offset: int, size: int) -> bytes:
        return bytes(self.device.queue.read_buffer(handle, offset, size))

    def finish(self) -> None:
        """Wait for all submitted work (a 4-byte readback waits for everything queued before it)."""
        self.device.queue.read_buffer(self._probe, 0, 4)

    def pipeline(self, code: str) -> Any:
        try:
            module = self.device.create_shader_module(code=code)
            return self.device.create_compute_pipeline(layout="auto", compute={"module": module,
                                                                                "entry_point": "main"})
        except self._wgpu.GPUError as e:
            raise WGSLError(f"WebGPU rejected a generated shader: {e}", code) from None

    def bind_group(self, pipeline: Any, handles: list) -> Any:
        entries = [{"binding": i, "resource": {"buffer": h, "offset": 0, "size": h.size}}
                   for i, h in enumerate(handles)]
        return self.device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=entries)

    def _encode(self, enc: Any, cmds: list, query_set: Any = None) -> None:
        """Record `cmds`; consecutive dispatches share a pass unless each is timed (`query_set`)."""
        cpass = None
        k = 0
        for c in cmds:
            if c[0] == "dispatch":
                if query_set is not None:
                    cpass = enc.begin_compute_pass(timestamp_writes={
                        "query_set": query_set, "beginning_of_pass_write_index": 2 * k,
                        "end_of_pass_write_index": 2 * k + 1})
                elif cpass is None:
                    cpass = enc.begin_compute_pass()
                cpass.set_pipeline(c[1])
                cpass.set_bind_group(0, c[2])
                cpass.dispatch_workgroups(c[3], c[4], c[5])
                k += 1
                if query_set is not None:
                    cpass.end()
                    cpass = None
                continue
            if cpass is not None:
                cpass.end()
                cpass = None
            enc.copy_buffer_to_buffer(c[1], c[2], c[3], c[4], c[5])
        if cpass is not None:
            cpass.end()

    def submit(self, cmds: list) -> None:
        enc = self.device.create_command_encoder()
        self._encode(enc, cmds)
        self.device.queue.submit([enc.finish()])

    @property
    def can_time(self) -> bool:
        return "timestamp-query" in self.device.features

    def submit_timed(self, cmds: list) -> list[float]:
        """`submit` with GPU timestamps around each dispatch (jaxweb.profiler): [begin, end]
        nanoseconds per dispatch relative to the first begin; waits for the GPU."""
        count = sum(c[0] == "dispatch" for c in cmds)
        if count == 0 or 2 * count > 4096:  # a query set holds 4096 timestamps at most
            self.submit(cmds)
            self.finish()
            return []
        wgpu = self._wgpu
        qs = self.device.create_query_set(type=wgpu.QueryType.timestamp, count=2 * count)
        resolved = self.device.create_buffer(size=16 * count,
                                             usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
        enc = self.device.create_command_encoder()
        self._encode(enc, cmds, qs)
        enc.resolve_query_set(qs, 0, 2 * count, resolved, 0)
        self.device.queue.submit([enc.finish()])
        stamps = memoryview(bytes(self.device.queue.read_buffer(resolved))).cast("q").tolist()
        resolved.destroy()
        qs.destroy()
        return [float(t - stamps[0]) for t in stamps]


def default_runtime(adapter: str | None = None) -> Any:
    """The WebGPU runtime of this host: js_shim's in Pyodide, wgpu-py in CPython."""
    import sys
    if sys.platform == "emscripten":
        from .runtime_pyodide import PyodideGpuRuntime  # noqa: PLC0415
        return PyodideGpuRuntime(adapter)
    return WgpuRuntime(adapter)
