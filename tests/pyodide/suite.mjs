// The loader's checks, the same in Chromium and in Node.
//
// Given a manifest (written by harness.py): load jaxweb through the real loader (the
// shim it registers is its own copy of js_shim/, set up by host.mjs), then what only
// the loader does or only JS can see: plain runPython gets the clear readback error,
// the async API works when awaited from JS with no JSPI suspender at all, a missing
// file is named, and a host without WebGPU gets a console note. The in-Pyodide test
// subset runs in a plain Pyodide instead (tests/pyodide/plain, pytest-pyodide).

import { loadJaxweb, probeGPU, LoaderError } from '../../js_shim/jaxweb.mjs';

/** Loader errors name the missing URL; no WebGPU means a console note. */
async function loaderChecks(pyodide, manifest) {
  const out = [];
  const badDir = manifest.loader.pyodideURL.replace(/\/$/, '') + '-missing/';
  try {
    await loadJaxweb({ ...manifest.loader, pyodideURL: badDir });
    out.push(['missing_pyodide_file_named', false, 'no error']);
  } catch (e) {
    out.push(['missing_pyodide_file_named', e instanceof LoaderError && e.message.includes(`${badDir}pyodide.asm.wasm`), e.message]);
  }
  const badWheel = manifest.loader.wheelURL + '.missing.whl';
  try {
    await loadJaxweb({ ...manifest.loader, pyodide, wheelURL: badWheel, importJaxweb: false });
    out.push(['missing_wheel_named', false, 'no error']);
  } catch (e) {
    out.push(['missing_wheel_named', e instanceof LoaderError && e.message.includes(badWheel), e.message]);
  }
  // Hide navigator.gpu (as in a browser without WebGPU): the loader notes the fallback.
  const notes = [];
  const info = console.info;
  const had = Object.getOwnPropertyDescriptor(navigator, 'gpu');
  try {
    console.info = (m) => notes.push(String(m));
    Object.defineProperty(navigator, 'gpu', { value: undefined, configurable: true });
    const probe = await probeGPU();
    out.push(['no_webgpu_console_note', !probe.gpu && notes.some((n) => n.includes('wasm device')), notes.join(' | ')]);
  } finally {
    console.info = info;
    if (had) Object.defineProperty(navigator, 'gpu', had); else delete navigator.gpu;
  }
  return out;
}

/** The JS-side checks; each returns [name, ok, detail]. */
async function hostChecks(pyodide) {
  const out = [];
  // 1. Plain runPython + a readback that must wait: the error says what to do.
  try {
    pyodide.runPython(`
from jaxweb._src import host
import js
host.wait(js.Promise.resolve(1))
`);
    out.push(['plain_runPython_wait_errors', false, 'no error raised']);
  } catch (e) {
    const msg = String(e.message ?? e);
    out.push(['plain_runPython_wait_errors', msg.includes('runPythonAsync') && msg.includes('async'), msg.slice(-600)]);
  }
  // 2. The async API awaited from JS, entered through plain runPython (no JSPI).
  try {
    const coro = pyodide.runPython(`
import jaxweb.numpy as jnp
from jaxweb._src import host
async def _check():
    x = jnp.asarray([1.0, 2.0, 3.0])
    await host.async_block_until_ready(x)
    v = await host.async_value(x)
    assert v == [1.0, 2.0, 3.0], v
    return "ok"
_check()
`);
    const r = await coro;
    out.push(['async_api_from_js', r === 'ok', String(r)]);
  } catch (e) {
    const msg = String(e.message ?? e);
    const noDevice = msg.includes('Unable to initialize any jaxweb backend');
    out.push(['async_api_from_js', noDevice ? 'skipped' : false,
      (noDevice ? 'skipped: no jaxweb device in Pyodide yet: ' : '') + msg.slice(-1500)]);
  }
  return out;
}

/** Run everything; resolves to a JSON-able result object. */
export async function runSuite(manifest, log = console.log) {
  const t0 = Date.now();
  const result = { host: null, loadSeconds: 0, checks: [], log: [] };
  const say = (s) => { result.log.push(s); log(s); };
  const { pyodide, host } = await loadJaxweb({
    ...manifest.loader,
    onProgress: (f, m) => say(`[load ${Math.round(f * 100)}%] ${m}`),
    loadPyodideOptions: { stdout: say, stderr: say },
  });
  result.host = host;
  result.loadSeconds = (Date.now() - t0) / 1000;
  result.checks = [...await hostChecks(pyodide), ...await loaderChecks(pyodide, manifest)];
  result.seconds = (Date.now() - t0) / 1000;
  return result;
}
