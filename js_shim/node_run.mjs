// Run a Python script with jaxweb in Pyodide under Node 24 (JSPI), WebGPU from Dawn.
//
//   node js_shim/node_run.mjs --pyodide DIR --wheel FILE [--webgpu DIR] [--threads N] script.py [args...]
//
// The host for GPU benchmarks on a machine with no browser: Dawn's `webgpu`
// npm package provides navigator.gpu exactly as Chrome does. The current
// directory (and the script's) is mounted at the same path inside Pyodide, so
// the script can read and write files (and import modules) next to it. JAXWEB_* environment
// variables reach Python's os.environ. Exit status: the script's.
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadJaxweb } from './jaxweb.mjs';

function parseArgs(argv) {
  const opts = { pyodide: null, wheel: null, webgpu: null, threads: null };
  let i = 0;
  for (; i < argv.length && argv[i].startsWith('--'); i += 2) opts[argv[i].slice(2)] = argv[i + 1];
  return { opts, script: argv[i], args: argv.slice(i + 1) };
}

const { opts, script, args } = parseArgs(process.argv.slice(2));
if (!script || !opts.pyodide || !opts.wheel) {
  console.error('usage: node node_run.mjs --pyodide DIR --wheel FILE [--webgpu DIR] [--threads N] script.py [args...]');
  process.exit(2);
}
for (const k of ['pyodide', 'wheel', 'webgpu']) if (opts[k]) opts[k] = resolve(opts[k]);
if (opts.webgpu) {
  const { create, globals } = await import(pathToFileURL(`${opts.webgpu}/index.js`).href);
  Object.assign(globalThis, globals);
  // Dawn rounds GPU timestamps (to ~65 µs on the H200) unless told not to: this host is for
  // benchmarks, where jaxweb.profiler's per-kernel times should be exact
  // JAXWEB_DAWN_FLAGS adds Dawn's own switches: `backend=null` gives a device that runs nothing,
  // so a benchmark's host time is measured without any GPU (or SwiftShader) behind it
  const extra = (process.env.JAXWEB_DAWN_FLAGS || '').split(/\s+/).filter(Boolean);
  const gpu = create(['disable-dawn-features=timestamp_quantization', ...extra]);
  Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, configurable: true });
}
const { pyodide } = await loadJaxweb({
  pyodideURL: opts.pyodide.endsWith('/') ? opts.pyodide : `${opts.pyodide}/`,
  wheelURL: opts.wheel,
  wasmThreads: opts.threads ? Number(opts.threads) : undefined,
  loadPyodideOptions: { stdout: (s) => console.log(s), stderr: (s) => console.error(s) },
});
const cwd = process.cwd();
const scriptPath = resolve(script);
for (const dir of new Set([cwd, dirname(scriptPath)])) {
  if (dir !== cwd && dir.startsWith(cwd + '/')) continue;  // already inside the cwd mount
  pyodide.FS.mkdirTree(dir);
  pyodide.mountNodeFS(dir, dir);
}
pyodide.globals.set('_argv', pyodide.toPy([scriptPath, ...args]));
pyodide.globals.set('_cwd', cwd);
// jaxweb's switches (JAXWEB_GEMM_PLAN=0 ...) reach Python's os.environ; not the host's own paths
const HOST_ONLY = new Set(['JAXWEB_NODE', 'JAXWEB_RUN', 'JAXWEB_BUNDLE', 'JAXWEB_UNPACK', 'JAXWEB_DAWN_FLAGS']);
pyodide.globals.set('_env', pyodide.toPy(Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k.startsWith('JAXWEB_') && !HOST_ONLY.has(k)))));
let status = 0;
try {
  status = await pyodide.runPythonAsync(`
import os, runpy, sys
os.environ.update(_env)
os.chdir(_cwd)
sys.argv = list(_argv)
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
sys.path.insert(0, _cwd)
_status = 0
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as e:
    _status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
_status
`);
} catch (e) {
  console.error(String(e.message ?? e));
  status = 1;
}
process.exit(status);
