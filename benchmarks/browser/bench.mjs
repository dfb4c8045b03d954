// jaxweb (Pyodide + js_shim, wasm device, threads) and jax-js (its wasm backend)
// timed side by side in one crossOriginIsolated page. bench_wasm_browser.py
// serves this folder and reads window.__benchResult. Config comes in the URL:
// ?sizes=256,512,1024,2048&reps=3&rounds=5 (bench_wasm_browser.py passes its options).
import { loadJaxweb } from '/js_shim/jaxweb.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const SIZES = (q.get('sizes') ?? '256,512,1024,2048').split(',').map(Number);
const REPS = Number(q.get('reps') ?? 5);
const ROUNDS = Number(q.get('rounds') ?? 3);
const VEC = 1 << 22;
const WARM_S = 0.25;  // same as bench.py
const logEl = document.getElementById('log');
const log = (s) => { logEl.textContent += s + '\n'; console.log(s); };

// jax-js: the op on .ref'd inputs, then blockUntilReady (a 0-byte read: no readback).
async function timeJaxjs(fn, reps, warm = 2) {
  // warm-up: at least `warm` calls and WARM_S seconds (engines tier up hot code late)
  for (let i = 0, t0 = performance.now(); i < warm || performance.now() - t0 < WARM_S * 1e3; i++) {
    const r = fn(); await r.blockUntilReady(); r.dispose();
  }
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

  // the same input bytes on both sides (made by jaxweb, copied into jax-js)
  const same = async (op, n, i, shape) => {
    const b = await jw.runPythonAsync(`jaxweb_bench.input_bytes(${JSON.stringify(op)}, ${n}, ${i})`);
    const u8 = b.toJs(); b.destroy();
    const a = np.array(new Float32Array(u8.buffer, u8.byteOffset, u8.byteLength / 4)).reshape(shape);
    await a.blockUntilReady();
    return a;
  };
  const jsOps = {};
  for (const n of SIZES) {
    const a = await same('matmul', n, 0, [n, n]), b = await same('matmul', n, 1, [n, n]);
    jsOps[`matmul:${n}`] = () => np.matmul(a.ref, b.ref);
  }
  const x = await same('conv', 0, 0, [1, 64, 56, 56]), w = await same('conv', 0, 1, [64, 64, 3, 3]);
  jsOps['conv:0'] = () => jaxjs.lax.convGeneralDilated(x.ref, w.ref, [1, 1], 'SAME');
  const v = await same('chain', VEC, 0, [VEC]);
  const chain = jaxjs.jit((y) => np.tanh(y.mul(1.5).add(0.5)).mul(2.0));
  jsOps[`chain:${VEC}`] = () => chain(v.ref);
  const vs = await same('sum', VEC, 0, [VEC]), vc = await same('copy', VEC, 0, [VEC]);
  jsOps[`sum:${VEC}`] = () => np.sum(vs.ref);
  jsOps[`copy:${VEC}`] = () => np.negative(vc.ref);

  const cases = [...SIZES.map((n) => ['matmul', n]), ['conv', 0], ['chain', VEC], ['sum', VEC], ['copy', VEC]];
  for (const [op, n] of cases) {
    const reps = op === 'matmul' && n >= 2048 ? Math.max(2, REPS >> 1) : REPS;
    const tw = [], tj = [];
    for (let r = 0; r < ROUNDS; r++) {  // interleaved rounds: both see the same machine load
      const pyTs = await jw.runPythonAsync(`jaxweb_bench.bench(${JSON.stringify(op)}, ${n}, ${reps})`);
      tw.push(...pyTs.toJs()); pyTs.destroy();
      tj.push(...await timeJaxjs(jsOps[`${op}:${n}`], reps));
    }
    // both results must agree (max |difference| relative to max |value|)
    const pyBytes = await jw.runPythonAsync(`jaxweb_bench.result_bytes(${JSON.stringify(op)}, ${n})`);
    const mine = new Float32Array(pyBytes.toJs().slice().buffer); pyBytes.destroy();
    const r = jsOps[`${op}:${n}`](); const theirs = await r.data();  // data() consumes r
    let diff = 0, scale = 0;
    for (let i = 0; i < theirs.length; i++) {
      diff = Math.max(diff, Math.abs(mine[i] - theirs[i]));
      scale = Math.max(scale, Math.abs(theirs[i]));
    }
    const relErr = mine.length === theirs.length ? diff / (scale || 1) : NaN;
    res.rows.push({ op, n, jaxweb: tw, jaxjs: tj, relErr });
    const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
    log(`${op} ${n}: jaxweb ${(med(tw) * 1e3).toFixed(2)} ms, jax-js ${(med(tj) * 1e3).toFixed(2)} ms`);
  }
  res.seconds = (performance.now() - t0) / 1e3;
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
