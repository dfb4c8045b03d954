"""The `webgl` device: kernels compiled to GLSL ES 3.00 fragment shaders (codegen.py,
matmul.py), drawn by a WebGL2 runtime (js_shim/webgl.mjs through runtime_pyodide.py).

For browsers without WebGPU. The contracts are the webgpu device's: execution is
deferred (`execute` appends a draw to a pending list; `submit` ends with one `flush`
that hands the whole list to the runtime in one call), `read` and `write` flush first,
buffers come from a pool of size classes, programs are cached by their GLSL text, and
errors name the kernel and carry the source (`GLSLError`); a lost context becomes a
`DeviceLostError` and a new context for what follows. Where WebGL cannot: there are no
GPU timestamps (the profiler times each flush until the GPU is done), no storage
buffers (a buffer is an RGBA32UI texture: see codegen.py), and a kernel writes one
output (no multi-output kernels: MRT outputs must all be the same size).

A buffer handle may be a view of another from a byte offset (a scan step's slice):
kernels read a copy of it, and write a temporary copied into place. Copies of whole
texels are draws of a copy shader; others go through the host.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ... import dtypes, profiler
from ...compiler.gemm import GemmCaps
from ...compiler.kernel import Capabilities, Kernel, Routine
from ...errors import ResourceExhaustedError
from ..base import Backend
from . import codegen, matmul, split
from .glsl import check_dtype
from .runtime import DeviceLostError, GLSLError

POOL_BYTES = 256 << 20  # free textures kept for reuse at most
DRAW = 1                # js_shim/webgl.mjs OP.DRAW


def size_class(nbytes: int) -> int:
    """nbytes rounded up to 2**k * (4, 5, 6 or 7) / 4, at least 256 (whole 16-byte texels)."""
    n = max(nbytes, 256)
    top = 1 << (n - 1).bit_length()
    step = top // 8
    return -(-n // step) * step


class Handle:
    """A pooled texture (`tex`, `cap` bytes), or a view of one from byte `off`, made by the
    backend's context number `gen`."""

    __slots__ = ("tex", "cap", "off", "base", "gen")

    def __init__(self, tex: int, cap: int, off: int = 0, base: "Handle | None" = None, gen: int = 0):
        self.tex, self.cap, self.off, self.base, self.gen = tex, cap, off, base, gen


class Program:
    """A compiled kernel: its GL program on context `gen` (remade after a loss)."""

    __slots__ = ("prog", "shader", "name", "gen")

    def __init__(self, prog: int, shader: codegen.Shader, name: str, gen: int):
        self.prog, self.shader, self.name, self.gen = prog, shader, name, gen


class Passes:
    """A reduction split in two (split.py): the partial sums' kernel, then the final one."""

    __slots__ = ("first", "second", "nbytes", "name")

    def __init__(self, first: Program, second: Program, nbytes: int, name: str):
        self.first, self.second, self.nbytes, self.name = first, second, nbytes, name


class WebGLBackend(Backend):
    platform = "webgl"

    def __init__(self, runtime: Any = None):
        super().__init__()
        if runtime is None:
            from .runtime_pyodide import PyodideGLRuntime  # noqa: PLC0415  (Pyodide only)
            runtime = PyodideGLRuntime()
        self.rt = runtime
        self.gen = 0
        self.lost_reason = ""
        info = self.rt.info
        self.software = bool(info["software"])
        self.device_kind = f"webgl ({info['renderer'] or info['vendor'] or 'WebGL2'})"
        self.max_texels = int(info["maxTextureSize"]) * codegen.TEX_W
        units = int(info["maxTextureUnits"])
        self.capabilities = Capabilities(
            nested_reduce=False, multi_output=False, max_buffers=1 + min(units, 16),
            gemm=GemmCaps(nr=matmul.NR, min_dim=16, thin_dim=4, thin_work=1 << 16, pack_min_bytes=0,
                          conv=False, epilogue=False, max_buffers=3))
        self._pool: dict[int, list] = {}
        self._lru: OrderedDict[int, tuple] = OrderedDict()
        self._pooled = 0
        self._glprogs: dict[str, int] = {}     # GLSL text -> program on the current context
        self._copy: int | None = None
        self._pending: list = []
        self._names: list[str] = []            # the pending draws' kernels (for errors)
        self._after: list = []                 # temporaries freed after the next flush
        self.stats = {"submits": 0, "draws": 0, "programs": 0, "devices_lost": 0}

    # ------------------------------------------------------------ context loss
    def _renew_if_lost(self) -> None:
        reason = self.rt.lost()
        if reason:
            self._renew(reason)

    def _renew(self, reason: str) -> None:
        self.lost_reason = reason
        self.stats["devices_lost"] += 1
        self.gen += 1
        self._pool, self._pooled, self._glprogs, self._copy = {}, 0, {}, None
        self._lru.clear()
        self._pending, self._names, self._after = [], [], []
        try:
            self.rt.renew()
        except Exception as e:
            raise DeviceLostError(f"the WebGL context was lost ({reason}) and no new one could be made: "
                                  f"{type(e).__name__}: {e}") from e

    def _lost(self, error: Exception) -> Exception:
        reason = self.rt.lost()
        if not reason:
            return error
        self._renew(reason)
        return DeviceLostError(f"the WebGL context was lost ({reason}): arrays on it are gone; jaxweb made a "
                               f"new context for what follows. Recompute them (or keep copies on another device "
                               f"with jax.device_put).")

    def _live(self, handle: Handle) -> Handle:
        if handle.gen != self.gen:
            raise DeviceLostError(f"this array was on a WebGL context that was lost ({self.lost_reason}); "
                                  f"its values are gone: recompute it")
        return handle

    # ------------------------------------------------------------ memory
    def check_dtype(self, dt: Any) -> None:
        if dt is dtypes.float0:
            return
        check_dtype(dtypes.real_part_dtype(dt))

    def alloc(self, nbytes: int) -> Handle:
        if not self._pending:
            self._renew_if_lost()
        cap = size_class(nbytes)
        free = self._pool.get(cap)
        if free:
            tex = free.pop()
            self._pooled -= cap
            del self._lru[tex]
            return Handle(tex, cap, gen=self.gen)
        if cap // 16 > self.max_texels:
            raise ResourceExhaustedError(nbytes, self.max_texels * 16, 0, self.max_texels * 16)
        try:
            return Handle(self.rt.create_texture(cap // 16), cap, gen=self.gen)
        except Exception as e:
            if "memory" in str(e).lower():
                raise ResourceExhaustedError(nbytes, 0, 0, self.max_texels * 16) from None
            raise self._lost(e) from e

    def free(self, handle: Handle) -> None:
        if handle.base is not None or handle.gen != self.gen:
            return
        if handle.cap > POOL_BYTES:
            self._retire(handle.tex)
            return
        while self._pooled + handle.cap > POOL_BYTES:
            tex, (cap, _) = self._lru.popitem(last=False)
            self._pool[cap].remove(tex)
            self._pooled -= cap
            self._retire(tex)
        self._pool.setdefault(handle.cap, []).append(handle.tex)
        self._lru[handle.tex] = (handle.cap, None)
        self._pooled += handle.cap

    def _retire(self, tex: int) -> None:
        self.flush()  # a pending draw may still read it
        self.rt.delete_texture(tex)

    def offset(self, handle: Handle, nbytes: int) -> Handle:
        root = handle.base or handle
        return Handle(root.tex, root.cap, handle.off + nbytes, root, root.gen)

    def write(self, handle: Handle, data) -> None:
        data = bytes(data)
        if not data:
            return
        self._live(handle)
        self.flush()
        off, end = handle.off, handle.off + len(data)
        lo, hi = off & ~15, (end + 15) & ~15
        if lo != off or hi != end:  # whole texels only: merge with the bytes around
            buf = bytearray(self._read_raw(handle.tex, lo, hi))
            buf[off - lo: end - lo] = data
            data = bytes(buf)
        try:
            self.rt.write(handle.tex, lo // 16, data)
        except Exception as e:
            raise self._lost(e) from e

    def _read_raw(self, tex: int, lo: int, hi: int) -> bytearray:
        try:
            data = self.rt.read(tex, lo // 16, hi // 16)
        except Exception as e:
            raise self._lost(e) from e
        if self.rt.lost():
            raise self._lost(RuntimeError("lost during a readback"))
        return data

    def read(self, handle: Handle, nbytes: int) -> memoryview:
        if nbytes == 0:
            return memoryview(b"")
        self._live(handle)
        self.flush()
        lo, hi = handle.off & ~15, (handle.off + nbytes + 15) & ~15
        return memoryview(self._read_raw(handle.tex, lo, hi))[handle.off - lo: handle.off - lo + nbytes]

    async def read_async(self, handle: Handle, nbytes: int) -> memoryview:
        """`read` through the runtime's fenced pixel-pack-buffer readback (no blocking)."""
        reader = getattr(self.rt, "read_async", None)
        if reader is None or nbytes == 0:
            return self.read(handle, nbytes)
        self._live(handle)
        self.flush()
        lo, hi = handle.off & ~15, (handle.off + nbytes + 15) & ~15
        try:
            data = await reader(handle.tex, lo // 16, hi // 16)
        except Exception as e:
            raise self._lost(e) from e
        if self.rt.lost():
            raise self._lost(RuntimeError("lost during a readback"))
        return memoryview(data)[handle.off - lo: handle.off - lo + nbytes]

    async def synchronize_async(self) -> None:
        self.flush()
        waiter = getattr(self.rt, "finish_async", None)
        if waiter is not None:
            await waiter()

    def copy(self, dst: Handle, src: Handle, nbytes: int) -> None:
        if nbytes == 0:
            return
        self._live(dst)
        self._live(src)
        if dst.off % 16 or nbytes % 16 or src.off % 4 or src.tex == dst.tex:
            self.write(dst, self.read(src, nbytes))
            return
        if self._copy is None:
            self._copy = self._glprog(codegen.copy_shader(), 1, "copy")
        t0 = dst.off // 16
        self._draw(self._copy, dst.tex, t0 + nbytes // 16, [src.tex], (src.off // 4, t0, t0 + nbytes // 16, 0),
                   "copy")

    # ------------------------------------------------------------ programs
    def compile(self, kernel: Kernel | Routine) -> Program | Passes:
        if isinstance(kernel, Routine):
            if kernel.routine != "gemm_f32":
                raise NotImplementedError(f"webgl backend: no routine {kernel.routine!r}")
            return self._program(matmul.build(kernel.spec), kernel.name, kernel)
        parts = split.split(kernel)
        if parts is not None:
            first, second = parts
            return Passes(self._program(codegen.build(first), first.name, first),
                          self._program(codegen.build(second), second.name, second),
                          first.size * first.out_dtypes[0].itemsize, kernel.name)
        return self._program(codegen.build(kernel), kernel.name, kernel)

    def _program(self, shader: codegen.Shader, name: str, kernel: Any) -> Program:
        try:
            prog = self._glprog(shader.code, shader.n_in, name)
        except GLSLError as e:
            e.add_note(f"kernel '{name}':\n{kernel.text()}")
            raise
        return Program(prog, shader, name, self.gen)

    def _glprog(self, code: str, n_in: int, name: str) -> int:
        prog = self._glprogs.get(code)
        if prog is None:
            try:
                prog = self.rt.program(code, n_in)
            except GLSLError as e:
                lost = self._lost(e)
                if lost is not e:
                    raise lost from e
                raise
            self._glprogs[code] = prog
            self.stats["programs"] += 1
        return prog

    def _temp(self, nbytes: int) -> Handle:
        h = self.alloc(nbytes)
        self._after.append(h)
        return h

    def _draw(self, prog: int, out_tex: int, texels: int, in_texs: list, uniforms: tuple, name: str) -> None:
        self._pending.append((DRAW, prog, out_tex, texels, len(in_texs), *in_texs, *uniforms))
        self._names.append(name)

    def execute(self, program: Program | Passes, outs: list[Handle], inputs: list[Handle]) -> None:
        if isinstance(program, Passes):
            part = self._temp(program.nbytes)
            self.execute(program.first, [part], inputs)
            self.execute(program.second, outs, [part, *inputs])
            return
        if program.gen != self.gen:  # made for a context since lost
            program.prog, program.gen = self._glprog(program.shader.code, program.shader.n_in, program.name), self.gen
        sh = program.shader
        if sh.n_in != len(inputs) or len(outs) != 1:
            raise ValueError(f"webgl: kernel '{program.name}' binds 1+{sh.n_in} textures, "
                             f"got {len(outs)}+{len(inputs)}")
        out = self._live(outs[0])
        ins = []
        for h in inputs:  # views and inputs aliasing the output are read from a copy
            self._live(h)
            if h.off or h.tex == out.tex:
                n = (h.cap - h.off) & ~15
                t = self._temp(max(n, 16))
                if n:
                    self.copy(t, h, n)
                h = t
            ins.append(h)
        target = self._temp(sh.out_nbytes) if out.off else out
        if sh.texels * 16 > target.cap:
            raise ValueError(f"webgl: kernel '{program.name}' writes {sh.texels * 16} bytes into a "
                             f"{target.cap}-byte texture")
        self._draw(program.prog, target.tex, sh.texels, [h.tex for h in ins], (0, 0, 0, 0), program.name)
        if target is not out:
            self.copy(out, target, sh.out_nbytes)

    def traced_execute(self, trace, program, outs, inputs, name) -> None:
        """`execute`: draws are deferred, so the profiler's rows are the flushes (see `flush`)."""
        self.execute(program, outs, inputs)

    def submit(self, prepared, inputs, alloc=None, free=None):
        if not self._pending:
            self._renew_if_lost()
        try:
            return super().submit(prepared, inputs, alloc, free)
        finally:
            self.flush()

    def flush(self) -> None:
        """Hand the pending draws to the runtime in one call."""
        cmds, self._pending = self._pending, []
        names, self._names = self._names, []
        temps, self._after = self._after, []
        try:
            if cmds:
                self.stats["submits"] += 1
                self.stats["draws"] += len(cmds)
                trace = profiler.active()
                t = trace.now() if trace is not None else 0.0
                self.rt.run(cmds)
                if trace is not None:
                    self.rt.finish()
                    trace.kernel(self.trace_row(), f"flush ({len(cmds)} draws)", t, trace.now() - t,
                                 track="submits", args={"kernels": ", ".join(names)})
        except Exception as e:
            lost = self._lost(e)
            if lost is not e:
                raise lost from e
            if isinstance(e, GLSLError):
                raise
            raise GLSLError(f"WebGL error drawing {len(cmds)} kernels ({', '.join(names)}): "
                            f"{type(e).__name__}: {e}") from e
        finally:
            for h in temps:
                self.free(h)

    def synchronize(self) -> None:
        self.flush()
        try:
            self.rt.finish()
        except Exception as e:
            raise self._lost(e) from e
        if self.rt.lost():
            raise self._lost(RuntimeError("lost while finishing"))
