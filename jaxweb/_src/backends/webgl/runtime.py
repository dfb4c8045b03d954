"""What the webgl backend needs from a WebGL2 implementation (js_shim/webgl.mjs in a page).

Python generates GLSL and decides every draw; a runtime only owns the context, textures
and programs, and runs command lists. Everything that crosses is ints, strings and bytes.

Contract (textures are RGBA32UI, 16-byte texels, js_shim/webgl.mjs's layout):

- `info`: {"vendor", "renderer", "software", "maxTextureSize", "maxTextureUnits", ...}.
- `create_texture(texels) -> handle`, `delete_texture(handle)`.
- `write(handle, t0, data)`: whole texels from texel t0, in order after earlier draws.
- `read(handle, t0, t1) -> bytearray`: texels [t0, t1) after all earlier draws;
  optionally `read_async` (a pixel-pack buffer and a fence). `finish()` waits for the GPU.
- `program(code, n_inputs) -> handle`: raises `GLSLError` carrying the code if it fails.
- `run(cmds)`: draws, each (1, program, out, texels, n_in, *ins, u0, u1, u2, u3), in one call.
- `lost() -> str`: why the context was lost ('' while it works); `renew()`: a new context.
"""
from __future__ import annotations

from ..webgpu.runtime import DeviceLostError, _numbered  # noqa: F401  (one DeviceLostError for both GPUs)


class GLSLError(RuntimeError):
    """A WebGL error (compilation, link, out of memory, a bad draw) with the GLSL it happened in."""

    def __init__(self, message: str, code: str = ""):
        self.code = code
        text = message if not code else f"{message}\n--- generated GLSL ---\n{_numbered(code)}"
        super().__init__(text)


SOFTWARE_NAMES = ("swiftshader", "llvmpipe", "softpipe", "software", "basic render")


def is_software(*names: str) -> bool:
    text = " ".join(names).lower()
    return any(s in text for s in SOFTWARE_NAMES)
