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

from ..gpu.device import DeviceLostError, ShaderError, is_software  # noqa: F401  (the webgl runtime's names)


class GLSLError(ShaderError):
    """A WebGL error (compilation, link, out of memory, a bad draw) with the GLSL it happened in."""

    lang = "GLSL"
