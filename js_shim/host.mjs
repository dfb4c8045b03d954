// What jaxweb finds about its host, the same for the loader (jaxweb.mjs) and for jaxweb
// installed into any Pyodide (micropip, PyScript, JupyterLite), where Python evaluates the
// shim's modules itself (jaxweb/_src/shim_loader.py): which shim modules there are, which
// device platforms this host has (probed), and how many threads wasm kernels get.
//
// No imports: the shim's modules come in as arguments (`mods`: {wasm, gpu, ...}), so this
// file runs unchanged as an ES module (the loader) and as a function body (shim_loader.py).

/** The shim's modules (`<name>.mjs` beside this file), registered for Python as `_jaxweb_shim.<name>`. */
export const SHIM_MODULES = ['wasm', 'gpu', 'opfs', 'webgl'];

/**
 * Device platforms that need the host's say-so, each with its probe: resolves to
 * {ok, note}. A platform whose probe says no is never started to choose the default
 * device (Python's backends/__init__.py asks `host.platform_available(name)`).
 * A new platform is one entry here and one `register_backend` in Python.
 */
export const PROBES = {
  webgpu: async (mods) => {
    const gpu = mods.gpu;
    if (!gpu.available()) {
      return { ok: false, note: 'jaxweb: WebGPU is not available here (no navigator.gpu); using the wasm device instead.' };
    }
    try {
      if (await gpu.hasAdapter()) return { ok: true, note: '' };
    } catch (e) { /* reported below */ }
    return { ok: false, note: 'jaxweb: WebGPU has no usable adapter here; using the wasm device instead.' };
  },
  // A hardware WebGL2 context (EXT_color_buffer_float): the default device where WebGPU has no
  // hardware adapter. A software one (SwiftShader) stays available by name: no note then.
  webgl: async (mods) => {
    const gl = mods.webgl;
    const ok = gl.available() && gl.hasContext() && !gl.isSoftware();
    return { ok, note: '' };
  },
};

const IS_NODE = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** Run one platform's probe; logs its note (console.info) when the platform is missing. */
export async function probe(name, mods) {
  const result = await PROBES[name](mods);
  if (!result.ok && result.note) console.info(result.note);
  return result;
}

const SINGLE_THREAD_NOTE = 'jaxweb: wasm kernels run on one thread: this page is not crossOriginIsolated '
  + '(serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp '
  + 'for shared memory and Wasm threads), so they are slower than they could be.';

/** How many threads wasm kernels may use here: min(4, cores) where memory can be shared, else 1. */
async function wantedThreads(wanted) {
  let cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  if (IS_NODE) cores = (await import('node:os')).availableParallelism?.() ?? cores;
  return Math.max(1, wanted ?? Math.min(4, cores));
}

/**
 * Start the wasm worker pool: `wanted` threads in all (the main thread is one), default
 * min(4, cores); `workerURL` is where wasm_worker.mjs is (default: beside wasm.mjs).
 * Resolves to the thread count, 1 when there is no pool (with a note saying why it is slower).
 */
export async function startThreads(mods, wanted, workerURL) {
  const n = await wantedThreads(wanted);
  if (n <= 1) return 1;
  if (!mods.wasm.canUseThreads()) {
    console.info(SINGLE_THREAD_NOTE);
    return 1;
  }
  try {
    return 1 + await mods.wasm.startPool(n - 1, ...(workerURL ? [workerURL] : []));
  } catch (e) {
    console.info(`jaxweb: wasm threads unavailable (${e.message}); running kernels on one thread.`);
    return 1;
  }
}

/** The facts every host has at once, without waiting for anything. */
export function baseFacts() {
  return {
    kind: IS_NODE ? 'node' : 'browser',
    crossOriginIsolated: IS_NODE ? true : !!globalThis.crossOriginIsolated,
    platforms: {},  // name -> whether its probe found it; absent: not probed yet
    note: '',
    wasmThreads: 1,
    snapshot: false,
  };
}

/**
 * The facts where nothing can be awaited (Python entered without JSPI: plain runPython):
 * no platform probed (Python probes one later if it can wait then), one wasm thread.
 */
export function setupSync() {
  console.info('jaxweb: wasm kernels run on one thread and WebGPU is not probed: Python was entered '
    + 'without JSPI (plain runPython); runPythonAsync gets both.');
  return baseFacts();
}

/**
 * Everything: probe every platform (`probes` may hold ones already started, by name) and
 * start the wasm threads. Resolves to the facts Python reads as `_jaxweb_shim.host`.
 */
export async function setup(mods, { threads, workerURL, probes = {} } = {}) {
  const facts = baseFacts();
  const names = Object.keys(PROBES);
  const started = names.map((name) => probes[name] ?? probe(name, mods));
  facts.wasmThreads = await startThreads(mods, threads, workerURL);
  const results = await Promise.all(started);
  names.forEach((name, i) => { facts.platforms[name] = results[i].ok; });
  facts.webgpu = facts.platforms.webgpu;  // the loader's older name for it
  facts.note = results.map((r) => r.note).filter(Boolean).join(' ');
  return facts;
}
