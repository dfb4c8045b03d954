// jaxweb (Pyodide + js_shim, wasm device, threads) and jax-js (its wasm backend)
// timed side by side in one crossOriginIsolated page. bench_wasm_browser.py
// serves this folder and reads window.__benchResult. Config comes in the URL:
// ?sizes=256,512,1024,2048&reps=5&rounds=3
import { loadJaxweb } from '/js_shim/jaxweb.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const SIZES = (q.get('sizes') ?? '256,512,1024,2048').split(',').map(Number);
const REPS = Number(q.get('reps') ?? 5);
const ROUNDS = Number(q.get('rounds') ?? 3);
const VEC = 1 << 22;
const logEl = document.getElementById('log');
const log = (s) => { logEl.textContent += s + '\n'; console.log(s); };

function randArray(np, shape, seed) {
  const n = shape.reduce((a, b) => a * b, 1);
  const buf = new Float32Array(n);
  for (let i = 0; i < n; i++) buf[i] = Math.sin(i * (0.7 + seed));
  return np.array(buf).reshape(shape);
}

// jax-js: the op on .ref'd inputs, then blockUntilReady (a 0-byte read: no readback).
async function timeJaxjs(fn, reps, warm = 1) {
  for (let i = 0; i < warm; i++) { const r = fn(); await r.blockUntilReady(); r.dispose(); }
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    const r = fn();
    await r.blockUntilReady();
    ts.push((performance.now() - t) / 1e3);
    r.dispose();
  }
  return ts;
}

async function main() {
  const res = { crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency, rows: [] };
  const t0 = performance.now();
  const jw = await loadJaxweb({});
  res.jaxwebThreads = jw.host.wasmThreads;
  const src = await (await fetch('./bench.py')).text();
  jw.pyodide.FS.writeFile('/tmp/jaxweb_bench.py', src);
  await jw.runPythonAsync('import sys; sys.path.insert(0, "/tmp"); import jaxweb_bench');
  res.jaxwebInfo = jw.pyodide.runPython('jaxweb_bench.info()').toJs({ dict_converter: Object.fromEntries });
  log(`jaxweb loaded in ${((performance.now() - t0) / 1e3).toFixed(1)} s, threads ${res.jaxwebThreads}`);
  const devs = await jaxjs.init('wasm');
  jaxjs.defaultDevice('wasm');
  const np = jaxjs.numpy;
  log(`jax-js devices: ${devs}`);

  const jsOps = {};
  for (const n of SIZES) {
    const a = randArray(np, [n, n], 0), b = randArray(np, [n, n], 1);
    await a.blockUntilReady(); await b.blockUntilReady();
    jsOps[`matmul:${n}`] = () => np.matmul(a.ref, b.ref);
  }
  const x = randArray(np, [1, 64, 56, 56], 0), w = randArray(np, [64, 64, 3, 3], 1);
  jsOps['conv:0'] = () => jaxjs.lax.convGeneralDilated(x.ref, w.ref, [1, 1], 'SAME');
  const v = randArray(np, [VEC], 0);
  const chain = jaxjs.jit((y) => np.tanh(y.mul(1.5).add(0.5)).mul(2.0));
  jsOps[`chain:${VEC}`] = () => chain(v.ref);
  jsOps[`sum:${VEC}`] = () => np.sum(v.ref);
  jsOps[`copy:${VEC}`] = () => np.negative(v.ref);

  const cases = [...SIZES.map((n) => ['matmul', n]), ['conv', 0], ['chain', VEC], ['sum', VEC], ['copy', VEC]];
  for (const [op, n] of cases) {
    const reps = op === 'matmul' && n >= 2048 ? Math.max(2, REPS >> 1) : REPS;
    const tw = [], tj = [];
    for (let r = 0; r < ROUNDS; r++) {  // interleaved rounds: both see the same machine load
      const pyTs = await jw.runPythonAsync(`jaxweb_bench.bench(${JSON.stringify(op)}, ${n}, ${reps})`);
      tw.push(...pyTs.toJs()); pyTs.destroy();
      tj.push(...await timeJaxjs(jsOps[`${op}:${n}`], reps));
    }
    res.rows.push({ op, n, jaxweb: tw, jaxjs: tj });
    const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
    log(`${op} ${n}: jaxweb ${(med(tw) * 1e3).toFixed(2)} ms, jax-js ${(med(tj) * 1e3).toFixed(2)} ms`);
  }
  res.seconds = (performance.now() - t0) / 1e3;
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
