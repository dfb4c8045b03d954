// WebGL2 handles for jaxweb's webgl device, driven from Python (Pyodide) — the GPU where
// WebGPU is missing. Python generates GLSL ES 3.00 fragment shaders and decides every draw;
// this module owns the context, textures and programs, and runs a command list in one go.
// No numerics here.
//
// Every buffer is an RGBA32UI texture TEX_W texels wide (fewer for small ones), 4 u32
// words per texel, row-major: word w is component w & 3 of texel w >> 2. Integer
// textures are color-renderable in core WebGL2; EXT_color_buffer_float is still required
// (the device's contract: float render targets for the GEMM's future RGBA32F path and a
// marker of a capable implementation). Readback is readPixels (RGBA_INTEGER/UNSIGNED_INT),
// synchronous, or into a pixel-pack buffer with a fence polled until the GPU passed it.
// Context loss turns into a reason string that Python raises as DeviceLostError.

export const TEX_W = 1024;  // texels per row (every WebGL2 allows 2048)

let gl = null;
let canvas = null;
let lost = '';
let generation = 0;
let lastError = '';
let info = null;
let fbo = null;
let vao = null;
let vs = null;
const textures = [null];  // id 0 is never valid
const programs = [null];
const freeIds = [];

function need() {
  if (!gl) throw new Error('jaxweb webgl shim: call init() first');
  return gl;
}

function tex(id) {
  const t = textures[id];
  if (t == null) throw new RangeError(`jaxweb webgl shim: no texture with handle ${id}`);
  return t;
}

function makeCanvas() {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(1, 1);
  if (typeof document !== 'undefined') return document.createElement('canvas');
  return null;
}

/** Whether this host could have WebGL2 at all (OffscreenCanvas or a document). */
export function available() {
  return typeof OffscreenCanvas !== 'undefined' || typeof document !== 'undefined';
}

const VERTEX = `#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  gl_Position = vec4(p, 0.0, 1.0);
}`;

function compile(kind, source) {
  const s = gl.createShader(kind);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS) && !gl.isContextLost()) {
    const log = gl.getShaderInfoLog(s);
    gl.deleteShader(s);
    // An empty log: the GPU process may be going away (a shader compiler stuck for minutes ended
    // so); getError's round trip lets isContextLost() see it, and Python then raises DeviceLostError.
    if (!log) {
      gl.getError();
      if (gl.isContextLost()) throw new Error('the WebGL context was lost while compiling');
    }
    throw new Error(`GLSL compile error: ${log || '(the compiler gave no log)'}`);
  }
  return s;
}

/**
 * Make the context (once; again after a loss). Resolves synchronously to a JSON string
 * describing it (renderer, limits, extensions), or null when there is no WebGL2 with
 * EXT_color_buffer_float here.
 */
export function init() {
  if (gl && !gl.isContextLost()) return info;
  canvas = makeCanvas();
  if (!canvas) return null;
  const ctx = canvas.getContext('webgl2', { antialias: false, depth: false, stencil: false,
    alpha: true, preserveDrawingBuffer: false, powerPreference: 'high-performance' });
  if (!ctx) return null;
  if (!ctx.getExtension('EXT_color_buffer_float')) return null;
  gl = ctx;
  generation += 1;
  lost = '';
  const gen = generation;
  canvas.addEventListener?.('webglcontextlost', (e) => {
    e.preventDefault?.();
    if (generation === gen) lost = 'the WebGL context was lost';
  });
  textures.length = 1;
  programs.length = 1;
  probe = null;
  freeIds.length = 0;
  fbo = gl.createFramebuffer();
  vao = gl.createVertexArray();
  vs = compile(gl.VERTEX_SHADER, VERTEX);
  gl.disable(gl.DITHER);
  gl.disable(gl.BLEND);
  const dbg = gl.getExtension('WEBGL_debug_renderer_info');
  info = JSON.stringify({
    vendor: dbg ? gl.getParameter(dbg.UNMASKED_VENDOR_WEBGL) : gl.getParameter(gl.VENDOR),
    renderer: dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
    version: gl.getParameter(gl.VERSION),
    maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE),
    maxTextureUnits: gl.getParameter(gl.MAX_TEXTURE_IMAGE_UNITS),
    maxDrawBuffers: gl.getParameter(gl.MAX_DRAW_BUFFERS),
    extensions: gl.getSupportedExtensions(),
    texWidth: TEX_W,
  });
  return info;
}

/** Whether a WebGL2 context with EXT_color_buffer_float can be made here. */
export function hasContext() {
  try { return init() !== null; } catch (e) { return false; }
}

/** Whether that context is a software renderer (SwiftShader, llvmpipe): never the default. */
export function isSoftware() {
  const d = init();
  if (!d) return true;
  const r = JSON.parse(d).renderer.toLowerCase();
  return ['swiftshader', 'llvmpipe', 'softpipe', 'software', 'basic render'].some((s) => r.includes(s));
}

export function contextGeneration() { return generation; }

/** Why context number `gen` was lost ('' while it works). */
export function lostReason(gen) {
  if (gen !== generation) return 'the WebGL context was lost';
  if (!lost && gl && gl.isContextLost()) lost = 'the WebGL context was lost';
  return lost;
}

/** Lose the context on purpose (tests): WEBGL_lose_context. */
export function loseContext() {
  const ext = gl && gl.getExtension('WEBGL_lose_context');
  if (!ext) return false;
  ext.loseContext();
  lost = 'the WebGL context was lost (loseContext)';
  return true;
}

/** The first GL error since the last call ('' for none). */
export function takeError() {
  const e = lastError || (gl && !gl.isContextLost() ? glError() : '');
  lastError = '';
  return e;
}

function glError() {
  const code = gl.getError();
  return code === gl.NO_ERROR ? '' : `GL error 0x${code.toString(16)}`;
}

/** A texture of `texels` RGBA32UI texels (w x h as the layout says); its handle. */
export function createTexture(texels) {
  need();
  const w = Math.min(texels, TEX_W);
  const h = Math.ceil(texels / TEX_W);
  const t = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32UI, w, h);
  for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
  const err = glError();
  if (err) {
    gl.deleteTexture(t);
    throw new Error(`out of memory: texture ${w}x${h} (${err})`);
  }
  const entry = { t, w, h };
  const id = freeIds.length ? freeIds.pop() : textures.length;
  textures[id] = entry;
  return id;
}

export function deleteTexture(id) {
  const e = textures[id];
  if (e == null) return;
  if (gl && !gl.isContextLost()) gl.deleteTexture(e.t);
  textures[id] = null;
  freeIds.push(id);
}

/** Rectangles (x, y, w, h) covering texels [t0, t1) of a texture TEX_W texels wide. */
function rects(t0, t1) {
  const out = [];
  while (t0 < t1) {
    const y = Math.floor(t0 / TEX_W);
    const x = t0 - y * TEX_W;
    if (x === 0 && t1 - t0 >= TEX_W) {
      const rows = Math.floor((t1 - t0) / TEX_W);
      out.push([0, y, TEX_W, rows]);
      t0 += rows * TEX_W;
    } else {
      const n = Math.min(TEX_W - x, t1 - t0);
      out.push([x, y, n, 1]);
      t0 += n;
    }
  }
  return out;
}

/** Write whole texels from texel `t0` on: `data` a Uint8Array of 16-byte texels. */
export function write(id, t0, data) {
  need();
  const e = tex(id);
  const words = new Uint32Array(data.buffer, data.byteOffset, data.byteLength >> 2);
  gl.bindTexture(gl.TEXTURE_2D, e.t);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
  let done = 0;
  for (const [x, y, w, h] of rects(t0, t0 + (words.length >> 2))) {
    gl.texSubImage2D(gl.TEXTURE_2D, 0, x, y, w, h, gl.RGBA_INTEGER, gl.UNSIGNED_INT,
      words.subarray(done * 4, (done + w * h) * 4));
    done += w * h;
  }
}

function attach(e) {
  gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, e.t, 0);
}

/**
 * Run `fn(u8)` on `dst`'s bytes: a Uint8Array, or a writable Python buffer as a PyProxy (a
 * bytearray: written in place in Pyodide's heap, taken only now since the heap may grow).
 */
function withBytes(dst, fn) {
  if (typeof dst.getBuffer !== 'function') return fn(dst);
  const view = dst.getBuffer('u8');
  try { return fn(view.data); } finally { view.release(); }
}

/** Texels [t0, t1) into `dst` (16 bytes a texel), synchronously (readPixels). */
export function readInto(id, t0, t1, dst) {
  need();
  const e = tex(id);
  attach(e);
  withBytes(dst, (u8) => {
    const words = new Uint32Array(u8.buffer, u8.byteOffset, u8.byteLength >> 2);
    let done = 0;
    for (const [x, y, w, h] of rects(t0, t1)) {
      gl.readPixels(x, y, w, h, gl.RGBA_INTEGER, gl.UNSIGNED_INT, words.subarray(done * 4, (done + w * h) * 4));
      done += w * h;
    }
  });
  const err = glError();
  if (err) lastError = `${err} in a readback`;
}

/**
 * The same, asynchronously: readPixels into a pixel-pack buffer, a fence, polled
 * (clientWaitSync with no wait) until the GPU passed it, then the bytes are copied out.
 */
export async function readIntoAsync(id, t0, t1, dst) {
  need();
  const e = tex(id);
  attach(e);
  const pbo = gl.createBuffer();
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
  gl.bufferData(gl.PIXEL_PACK_BUFFER, (t1 - t0) * 16, gl.STREAM_READ);
  let done = 0;
  for (const [x, y, w, h] of rects(t0, t1)) {
    gl.readPixels(x, y, w, h, gl.RGBA_INTEGER, gl.UNSIGNED_INT, done * 16);
    done += w * h;
  }
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
  const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
  gl.flush();
  try {
    for (;;) {
      if (gl.isContextLost()) throw new Error('the WebGL context was lost during a readback');
      const s = gl.clientWaitSync(sync, 0, 0);
      if (s === gl.ALREADY_SIGNALED || s === gl.CONDITION_SATISFIED) break;
      if (s === gl.WAIT_FAILED) throw new Error('clientWaitSync failed');
      await new Promise((r) => setTimeout(r, 0));
    }
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
    withBytes(dst, (u8) => gl.getBufferSubData(gl.PIXEL_PACK_BUFFER, 0, u8, 0, (t1 - t0) * 16));
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
  } finally {
    gl.deleteSync(sync);
    gl.deleteBuffer(pbo);
  }
}

/** Wait until the GPU finished everything drawn so far (a fence, polled). */
export async function finish() {
  need();
  const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
  gl.flush();
  try {
    for (;;) {
      if (gl.isContextLost()) return;
      const s = gl.clientWaitSync(sync, 0, 0);
      if (s !== gl.TIMEOUT_EXPIRED) return;
      await new Promise((r) => setTimeout(r, 0));
    }
  } finally {
    gl.deleteSync(sync);
  }
}

let probe = null;  // a 1x1 texture whose readPixels waits for every earlier command

/**
 * Wait synchronously until every earlier draw has run: a 1-texel readPixels (Chrome's
 * gl.finish() returns without waiting for the GPU process).
 */
export function finishSync() {
  need();
  if (!probe) {
    probe = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, probe);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32UI, 1, 1);
  }
  attach({ t: probe });
  gl.readPixels(0, 0, 1, 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, new Uint32Array(4));
}

/**
 * A program from fragment shader `source` (inputs are samplers t0.., an `ivec4 u` uniform);
 * its handle. Throws with the compiler's log (Python raises GLSLError with the source).
 */
export function createProgram(source, nInputs) {
  need();
  const fs = compile(gl.FRAGMENT_SHADER, source);
  const p = gl.createProgram();
  gl.attachShader(p, vs);
  gl.attachShader(p, fs);
  gl.linkProgram(p);
  gl.deleteShader(fs);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS) && !gl.isContextLost()) {
    const log = gl.getProgramInfoLog(p);
    gl.deleteProgram(p);
    throw new Error(`GLSL link error: ${log}`);
  }
  gl.useProgram(p);
  for (let i = 0; i < nInputs; i++) {
    const loc = gl.getUniformLocation(p, `t${i}`);
    if (loc !== null) gl.uniform1i(loc, i);
  }
  programs.push({ p, u: gl.getUniformLocation(p, 'u') });
  return programs.length - 1;
}

export function deleteProgram(id) {
  const e = programs[id];
  if (e == null) return;
  if (gl && !gl.isContextLost()) gl.deleteProgram(e.p);
  programs[id] = null;
}

/**
 * Run a command list (an Int32Array) in one go:
 *   DRAW, program, out, texels, nIn, in..., u0, u1, u2, u3 — draw the program over the
 *   output's first `texels` texels (the rest of the last row is drawn and discarded by the
 *   shader's own bound check), inputs bound to texture units 0..nIn-1.
 */
export const OP = Object.freeze({ DRAW: 1 });

export function run(cmds) {
  need();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
  gl.bindVertexArray(vao);
  let i = 0;
  let bound = 0;
  while (i < cmds.length) {
    const op = cmds[i];
    if (op !== OP.DRAW) throw new Error(`jaxweb webgl shim: bad command ${op} at ${i}`);
    const prog = programs[cmds[i + 1]];
    const out = tex(cmds[i + 2]);
    const texels = cmds[i + 3];
    const nIn = cmds[i + 4];
    gl.useProgram(prog.p);
    for (let k = 0; k < nIn; k++) {
      gl.activeTexture(gl.TEXTURE0 + k);
      gl.bindTexture(gl.TEXTURE_2D, tex(cmds[i + 5 + k]).t);
    }
    for (let k = nIn; k < bound; k++) {  // units left from an earlier draw: unbind (no feedback loop)
      gl.activeTexture(gl.TEXTURE0 + k);
      gl.bindTexture(gl.TEXTURE_2D, null);
    }
    bound = nIn;
    const j = i + 5 + nIn;
    if (prog.u !== null) gl.uniform4i(prog.u, cmds[j], cmds[j + 1], cmds[j + 2], cmds[j + 3]);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, out.t, 0);
    const rows = Math.ceil(texels / TEX_W);
    const width = Math.min(out.w, texels);
    gl.viewport(0, 0, width, rows);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    i = j + 4;
  }
  for (let k = 0; k < bound; k++) {
    gl.activeTexture(gl.TEXTURE0 + k);
    gl.bindTexture(gl.TEXTURE_2D, null);
  }
  gl.flush();
}
