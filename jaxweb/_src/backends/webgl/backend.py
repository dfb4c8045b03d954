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

from typing import Any

from ... import profiler
from ...compiler.gemm import GemmCaps
from ...compiler.kernel import Capabilities, Kernel, Routine
from ...errors import ResourceExhaustedError
from ..gpu.device import GPUBackend, Handle, Pool, size_class
from . import codegen, matmul, split
from .glsl import check_dtype
from .runtime import DeviceLostError, GLSLError

POOL_BYTES = 256 << 20  # free textures kept for reuse at most
# Kernels past this many GLSL statements (codegen.Weights) are split by the scheduler: SwiftShader's
# JIT grows faster than linearly with a shader's length (a chain of tanh measured at the first draw:
# ~1000 statements 0.6-0.9 s, ~2000 3.8 s, ~4000 11.5 s, and the ~4000 as four kernels 4 s).
MAX_KERNEL_NODES = 1024
DRAW = 1                # js_shim/webgl.mjs OP.DRAW


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


class WebGLBackend(GPUBackend):
    platform = "webgl"
    device_name = "WebGL context"
    dtype_check = staticmethod(check_dtype)
    grain = 16  # an RGBA32UI texel

    def _at(self, lo: int) -> int:
        return lo // 16

    def _extent(self, lo: int, hi: int) -> tuple:
        return lo // 16, hi // 16

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
            max_kernel_nodes=MAX_KERNEL_NODES, node_weights=codegen.Weights(),
            gemm=GemmCaps(nr=matmul.NR, min_dim=16, thin_dim=4, thin_work=1 << 16, pack_min_bytes=0,
                          conv=False, epilogue=False, max_buffers=3))
        self.pool = Pool()
        self._glprogs: dict[str, int] = {}     # GLSL text -> program on the current context
        self._copy: int | None = None
        self._pending: list = []
        self._names: list[str] = []            # the pending draws' kernels (for errors)
        self._after: list = []                 # temporaries freed after the next flush
        self.stats = {"submits": 0, "draws": 0, "programs": 0, "devices_lost": 0}

    # ------------------------------------------------------------ context loss
    def _renew(self, reason: str) -> None:
        self.lost_reason = reason
        self.stats["devices_lost"] += 1
        self.gen += 1
        self._glprogs, self._copy = {}, None
        self.pool.clear()
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
        return DeviceLostError(self._lost_message(reason))

    # ------------------------------------------------------------ memory
    def alloc(self, nbytes: int) -> Handle:
        if not self._pending:
            self._renew_if_lost()
        cap = size_class(nbytes)
        tex = self.pool.take(cap)
        if tex is not None:
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
        for old in self.pool.give(handle.cap, handle.buf, POOL_BYTES):  # the least recently freed make room
            self._retire(old)

    def _retire(self, tex: int) -> None:
        self.flush()  # a pending draw may still read it
        self.rt.delete_texture(tex)

    def copy(self, dst: Handle, src: Handle, nbytes: int) -> None:
        if nbytes == 0:
            return
        self._live(dst)
        self._live(src)
        if dst.off % 16 or nbytes % 16 or src.off % 4 or src.buf == dst.buf:
            self.write(dst, self.read(src, nbytes))
            return
        if self._copy is None:
            self._copy = self._glprog(codegen.copy_shader(), 1, "copy")
        t0 = dst.off // 16
        self._draw(self._copy, dst.buf, t0 + nbytes // 16, [src.buf], (src.off // 4, t0, t0 + nbytes // 16, 0),
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
                self._raise_if_lost(e)
                raise
            self._glprogs[code] = prog
            self.stats["programs"] += 1
        return prog

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
            if h.off or h.buf == out.buf:
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
        self._draw(program.prog, target.buf, sh.texels, [h.buf for h in ins], (0, 0, 0, 0), program.name)
        if target is not out:
            self.copy(out, target, sh.out_nbytes)

    def traced_execute(self, trace, program, outs, inputs, name) -> None:
        """`execute`: draws are deferred, so the profiler's rows are the flushes (see `flush`)."""
        self.execute(program, outs, inputs)

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
            self._raise_if_lost(e)
            if isinstance(e, GLSLError):
                raise
            raise GLSLError(f"WebGL error drawing {len(cmds)} kernels ({', '.join(names)}): "
                            f"{type(e).__name__}: {e}") from e
        finally:
            for h in temps:
                self.free(h)
