// What the benchmark pages share: the log, jax-js-side timing with the same warm-up as
// page_timing.py, Python bytes as a Float32Array, and loading jaxweb with a page's Python half.
import { loadJaxweb } from '/js_shim/jaxweb.mjs';

export const WARM_S = 0.25;  // as page_timing.py
const logEl = document.getElementById('log');
export const log = (s) => { logEl.textContent += s + '\n'; console.log(s); };

/** Seconds of `reps` awaited calls of `fn`, after at least `warm` calls and WARM_S of warm-up. */
export async function timed(fn, reps, warm = 2) {
  for (let i = 0, t0 = performance.now(); i < warm || performance.now() - t0 < WARM_S * 1e3; i++) await fn();
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn();
    ts.push((performance.now() - t) / 1e3);
  }
  return ts;
}

/** A Python `bytes` (PyProxy) of float32s as a Float32Array (the proxy is destroyed). */
export const f32 = (pyBytes) => {
  const u8 = pyBytes.toJs(); pyBytes.destroy();
  return new Float32Array(u8.buffer, u8.byteOffset, u8.byteLength / 4);
};

/**
 * jaxweb loaded, with the page's Python half `file` (next to the page) imported as `alias`
 * (page_timing.py beside it), and the result object the page fills in.
 */
export async function loadBench(file, alias) {
  const jw = await loadJaxweb({});
  for (const [src, dst] of [['page_timing.py', 'page_timing.py'], [file, `jaxweb_${file}`]]) {
    jw.pyodide.FS.writeFile(`/tmp/${dst}`, await (await fetch(`./${src}`)).text());
  }
  await jw.runPythonAsync(`import sys; sys.path.insert(0, "/tmp"); import jaxweb_${file.replace(/\.py$/, '')} as ${alias}`);
  const res = { crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency,
                jaxwebThreads: jw.host.wasmThreads, rows: [] };
  return { jw, res };
}
