// jaxweb loader: Pyodide + the jaxweb wheel + the JS shim, in a page or in Node.
//
//   import { loadJaxweb } from './js_shim/jaxweb.mjs';
//   const { pyodide } = await loadJaxweb({ onProgress: (f, msg) => ... });
//   await pyodide.runPythonAsync('import jaxweb.numpy as jnp; print(jnp.arange(3) * 2)');
//
// A convenience over what jaxweb does by itself in any Pyodide (micropip-installed, it
// registers its own shim on first use: jaxweb/_src/shim_loader.py): the loader fetches
// Pyodide and the wheel in parallel, boots from a memory snapshot where serve.py made one,
// reports progress, and starts WebGPU's device while Pyodide boots. The shim it registers
// is these same modules, set up by the same host.mjs. By default everything comes from the
// server this file was loaded from, laid out as serve.py serves it (/pyodide/, /wheels/,
// /js_shim/). Any missing file fails with an error that names its URL. The wheel goes on
// sys.path as it is (jaxweb is pure Python and needs no package index).

import * as hostjs from './host.mjs';

let modsPromise = null;

/**
 * The shim's modules, {wasm, gpu, ...}: host.mjs's list, imported from beside this file (on
 * first call: no top-level await here, which would make a module worker importing this file
 * drop the messages posted to it before its handler is installed).
 */
export function shimModules() {
  modsPromise ??= Promise.all(hostjs.SHIM_MODULES.map(async (name) => [name, await import(`./${name}.mjs`)]))
    .then(Object.fromEntries);
  return modsPromise;
}

const IS_NODE = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';
/** The files loadPyodide() fetches: probed first so a missing one is named. */
const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

export class LoaderError extends Error {
  constructor(message) {
    super(`jaxweb loader: ${message}`);
    this.name = 'LoaderError';
  }
}

function withSlash(u) {
  return u.endsWith('/') ? u : `${u}/`;
}

/** Bytes at a URL or (in Node) a file path or file: URL; LoaderError naming it if absent. */
export async function fetchBytes(url) {
  if (IS_NODE && !/^https?:/.test(url)) {
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    const path = url.startsWith('file:') ? fileURLToPath(url) : url;
    try {
      return new Uint8Array(await readFile(path));
    } catch (e) {
      throw new LoaderError(`cannot read ${url}: ${e.code ?? e.message}`);
    }
  }
  let resp;
  try {
    resp = await fetch(url);
  } catch (e) {
    throw new LoaderError(`cannot fetch ${url}: ${e.message}`);
  }
  if (!resp.ok) throw new LoaderError(`cannot fetch ${url}: HTTP ${resp.status} ${resp.statusText}`);
  return new Uint8Array(await resp.arrayBuffer());
}

async function exists(url) {
  if (IS_NODE && !/^https?:/.test(url)) {
    const { access } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    try {
      await access(url.startsWith('file:') ? fileURLToPath(url) : url);
      return true;
    } catch {
      return false;
    }
  }
  try {
    return (await fetch(url, { method: 'HEAD' })).ok;
  } catch {
    return false;
  }
}

/**
 * Where WebGPU stands here: {gpu: bool, note: string}. Logs a note when falling back.
 * It starts making the shim's GPU device (`gpu.init`, shared with jaxweb's webgpu device)
 * and answers once the adapter is known: started early, the device's set-up overlaps
 * Pyodide's boot and the rest of the load, and nothing waits for it but the webgpu device.
 */
export async function probeGPU() {
  const { ok, note } = await hostjs.probe('webgpu', await shimModules());
  return { gpu: ok, note };
}

/**
 * Load Pyodide, install jaxweb and register the shim as the Python module `_jaxweb_shim`.
 * Options: base (server root URL or folder), pyodideURL, wheelURL, onProgress(fraction, message),
 * importJaxweb (default true), loadPyodideOptions (passed through), pyodide (reuse an instance),
 * wasmThreads (threads for wasm kernels, main thread included; 1 turns the pool off),
 * snapshot (false: boot Python from scratch even when the index names a memory snapshot).
 * Resolves to {pyodide, jaxweb, host, runPythonAsync, runPython}; host.snapshot tells
 * whether Python booted from the snapshot.
 */
export async function loadJaxweb(options = {}) {
  const progress = options.onProgress ?? (() => {});
  const base = withSlash(options.base ?? new URL('..', import.meta.url).href);
  const pyodideURL = withSlash(options.pyodideURL ?? `${base}pyodide/`);

  // The index, the wheel and the snapshot download, and WebGPU's device is made, while
  // Pyodide boots (none of them waits for it); Pyodide compiles pyodide.asm.wasm while it
  // streams in (WebAssembly.instantiateStreaming).
  const indexPromise = options.wheelURL ? Promise.resolve(null) : fetchIndex(base);
  const wheelPromise = fetchWheel(base, options.wheelURL, indexPromise);
  wheelPromise.catch(() => {});  // reported where it is awaited, not as an unhandled rejection
  const modsReady = shimModules();
  const gpuProbe = modsReady.then((mods) => hostjs.probe('webgpu', mods));  // the GPU device is made meanwhile too
  let pyodide = options.pyodide;
  let snapshot = null;  // the snapshot's metadata once Pyodide booted from one
  if (!pyodide) {
    const snapshotPromise = findSnapshot(base, options, indexPromise);
    // Pyodide boots at once; the files are checked alongside, and only named if it fails
    // (awaiting the check first would add a round trip to every load).
    const missingFiles = Promise.all(PYODIDE_FILES.map((f) => exists(pyodideURL + f)))
      .then((present) => PYODIDE_FILES.filter((f, i) => !present[i]).map((f) => pyodideURL + f));
    const explain = async (e, what) => {
      const missing = await missingFiles;
      if (missing.length) return new LoaderError(`Pyodide file missing: ${missing.join(', ')} (run python serve.py once online)`);
      return new LoaderError(`${what}: ${e.message}`);
    };
    progress(0.05, 'loading Pyodide');
    let loadPyodide, version;
    try {
      ({ loadPyodide, version } = await import(pyodideURL + 'pyodide.mjs'));
    } catch (e) {
      throw await explain(e, `cannot import ${pyodideURL}pyodide.mjs`);
    }
    const pyodideOptions = { indexURL: pyodideURL, ...(options.loadPyodideOptions ?? {}) };
    const found = await snapshotPromise;
    if (found && found.meta.pyodide === version) {
      try {
        pyodide = await loadPyodide({ ...pyodideOptions, _loadSnapshot: verifiedSnapshot(found, wheelPromise) });
        snapshot = found.meta;
      } catch (e) {  // a stale or damaged snapshot costs a normal boot, never the page
        console.info(`jaxweb: starting Python without the snapshot (${e.message})`);
      }
    }
    if (!pyodide) {
      try {
        pyodide = await loadPyodide(pyodideOptions);
      } catch (e) {
        throw await explain(e, 'Pyodide did not start');
      }
    }
  }

  progress(0.6, 'fetching the jaxweb wheel');
  const { wheel, wheelURL } = await wheelPromise;
  progress(0.75, 'installing jaxweb');
  // From a snapshot the wheel goes where the snapshot's sys.path and zipimport expect it.
  mountWheel(pyodide, wheel, snapshot ? snapshot.wheel_path : wheelURL);
  if (snapshot) afterSnapshot(pyodide);

  progress(0.8, 'starting wasm threads, probing WebGPU');
  const mods = await modsReady;
  const host = await hostjs.setup(mods, { threads: options.wasmThreads, probes: { webgpu: gpuProbe } });
  host.snapshot = !!snapshot;
  pyodide.registerJsModule('_jaxweb_shim', { ...mods, host, hostjs });

  let jaxweb = null;
  if (options.importJaxweb ?? true) {
    progress(0.85, 'importing jaxweb');
    jaxweb = pyodide.pyimport('jaxweb');
  }
  progress(1, 'ready');
  return {
    pyodide, jaxweb, host,
    // Shorthands, so `(await loadJaxweb()).runPythonAsync(code)` reads naturally.
    runPythonAsync: (code, opts) => pyodide.runPythonAsync(code, opts),
    runPython: (code, opts) => pyodide.runPython(code, opts),
  };
}

/** `wheels/index.json`: {jaxweb: wheel file, snapshot?: {file, pyodide, wheel_sha256, ...}}. */
async function fetchIndex(base) {
  const indexURL = `${base}wheels/index.json`;
  const index = JSON.parse(new TextDecoder().decode(await fetchBytes(indexURL)));
  if (!index.jaxweb) throw new LoaderError(`${indexURL} names no jaxweb wheel`);
  return index;
}

/** The jaxweb wheel's bytes and URL (named by the index unless given). */
async function fetchWheel(base, wheelURL, indexPromise) {
  wheelURL ??= `${base}wheels/${(await indexPromise).jaxweb}`;
  return { wheel: await fetchBytes(wheelURL), wheelURL };
}

// ---------------------------------------------------------------- memory snapshot
// serve.py builds, beside the wheel, a Pyodide memory snapshot taken right after
// `snapshotImport` (scripts/snapshot.mjs) and names it in the index. Booting from it
// skips Python's start-up and `import jaxweb`: the interpreter's memory is restored
// as it was, and only the JS side (streams, the shim, the wheel's file) is attached
// again. It is used only when made by this Pyodide (version here, build id in Pyodide)
// from these very wheel bytes (SHA-256); anything else boots normally.

/**
 * Mount the wheel and import jaxweb, then `modules` (names; one that fails to import is
 * left out): the state a snapshot captures. The builder runs it before
 * `makeMemorySnapshot`; it touches no JS object (the snapshot could not hold one).
 * Returns the wheel's path inside Pyodide.
 */
export function snapshotImport(pyodide, bytes, name, modules = []) {
  const path = mountWheel(pyodide, bytes, name);
  pyodide.runPython(`
import importlib, os, jaxweb
os.environ.pop("_", None)  # the builder's script path
for _m in ${JSON.stringify(modules)}:
    try:
        importlib.import_module(_m)
    except Exception:
        pass
`);
  return path;
}

/** What differs per page load although the memory is the same: reseed Python's `random`. */
function afterSnapshot(pyodide) {
  pyodide.runPython('import sys\nif "random" in sys.modules: sys.modules["random"].seed()');
}

/** loadPyodide options that shape Python's start-up, which a snapshot has already had. */
const STARTUP_OPTIONS = ['env', 'args', 'packages', 'fullStdLib', 'stdLibURL', 'lockFileURL', 'lockFileContents',
  'packageBaseUrl', 'fsInit', '_sysExecutable', '_loadSnapshot', '_makeSnapshot'];

/** {meta, bytes: Promise} for the index's snapshot, or null (none, turned off, unreadable). */
function findSnapshot(base, options, indexPromise) {
  if (options.snapshot === false || options.wheelURL || options.importJaxweb === false) return Promise.resolve(null);
  if (STARTUP_OPTIONS.some((k) => k in (options.loadPyodideOptions ?? {}))) return Promise.resolve(null);
  if (!globalThis.crypto?.subtle) return Promise.resolve(null);  // cannot check the wheel (not a secure context)
  return indexPromise.then((index) => {
    const meta = index?.snapshot;
    if (!meta?.file) return null;
    const bytes = fetchBytes(`${base}wheels/${meta.file}`);
    bytes.catch(() => {});  // a missing snapshot is reported by loadPyodide's fallback
    return { meta, bytes };
  }, () => null);
}

/** The snapshot's bytes once the wheel they were made from is known to be the one fetched. */
async function verifiedSnapshot({ meta, bytes }, wheelPromise) {
  const { wheel } = await wheelPromise;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', wheel));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  if (hex !== meta.wheel_sha256) throw new Error('it was made from another wheel');
  return bytes;
}

/**
 * Put a pure-Python wheel on sys.path as it is (a zip: Python imports from it, .pyc
 * included), so nothing is unpacked: for jaxweb, whose modules read no files of their own.
 * Returns its path inside Pyodide (/lib/jaxweb_wheels/ and the last part of `name`).
 */
export function mountWheel(pyodide, bytes, name = 'wheel') {
  const dir = '/lib/jaxweb_wheels';
  const path = `${dir}/${String(name).split('/').pop().split('?')[0] || 'wheel.whl'}`;
  pyodide.FS.mkdirTree(dir);
  pyodide.FS.writeFile(path, bytes);
  try {
    pyodide.runPython(`
import importlib, sys
if ${JSON.stringify(path)} not in sys.path:
    sys.path.insert(0, ${JSON.stringify(path)})
importlib.invalidate_caches()
`);
  } catch (e) {
    throw new LoaderError(`cannot install ${name}: ${e.message}`);
  }
  return path;
}

/** Unpack a pure-Python wheel (a zip) into site-packages. */
export function installWheel(pyodide, bytes, name = 'wheel') {
  const path = '/tmp/_jaxweb_install.whl';
  pyodide.FS.writeFile(path, bytes);
  try {
    pyodide.runPython(`
import importlib, sysconfig, zipfile
with zipfile.ZipFile(${JSON.stringify(path)}) as _z:
    _z.extractall(sysconfig.get_paths()["purelib"])
importlib.invalidate_caches()
del _z
`);
  } catch (e) {
    throw new LoaderError(`cannot install ${name}: ${e.message}`);
  } finally {
    pyodide.FS.unlink(path);
  }
}

