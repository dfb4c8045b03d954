// The FFT benchmark: jaxweb (Pyodide + js_shim, wasm device) and jax-js (its wasm backend)
// side by side in one crossOriginIsolated page, interleaved rounds.
// bench_fft_browser.py serves this folder and reads window.__benchResult.
// ?powers=10,12,14,16,18,20&reps=3&rounds=3 in the URL.
import { f32, loadBench, log, timed } from './common.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const POWERS = (q.get('powers') ?? '10,12,14,16,18,20').split(',').map(Number);
const REPS = Number(q.get('reps') ?? 3);
const ROUNDS = Number(q.get('rounds') ?? 3);

async function main() {
  const { jw, res } = await loadBench('fft_bench.py', 'fb');
  await jaxjs.init('wasm');
  jaxjs.defaultDevice('wasm');
  const { numpy: np } = jaxjs;
  // jax-js 0.1.25's fft is a routine it does not jit: eager, as a user calls it
  for (const p of POWERS) {
    const n = 2 ** p;
    const re = np.array(f32(await jw.runPythonAsync(`fb.part_bytes(0, ${n})`)));
    const im = np.array(f32(await jw.runPythonAsync(`fb.part_bytes(1, ${n})`)));
    await re.blockUntilReady(); await im.blockUntilReady();
    const run = () => np.fft.fft({ real: re.ref, imag: im.ref });
    const jsCase = async () => { const r = run(); await r.real.blockUntilReady(); await r.imag.blockUntilReady(); r.real.dispose(); r.imag.dispose(); };
    const tw = [], tj = [];
    log(`fft 2^${p}: jaxweb compiling...`);
    const compileS = await jw.runPythonAsync(`fb.compile_seconds(${n})`);
    for (let r = 0; r < ROUNDS; r++) {  // interleaved: both see the same machine load
      const ts = await jw.runPythonAsync(`fb.bench(${n}, ${REPS})`);
      tw.push(...ts.toJs()); ts.destroy();
      tj.push(...await timed(jsCase, REPS));
    }
    // the two results must agree
    const mineRe = f32(await jw.runPythonAsync(`fb.part_bytes(2, ${n})`));
    const mineIm = f32(await jw.runPythonAsync(`fb.part_bytes(3, ${n})`));
    const theirs = run();
    const theirRe = await theirs.real.data(), theirIm = await theirs.imag.data();
    let err = 0, big = 0;
    for (let i = 0; i < n; i++) {
      err = Math.max(err, Math.abs(mineRe[i] - theirRe[i]), Math.abs(mineIm[i] - theirIm[i]));
      big = Math.max(big, Math.abs(theirRe[i]), Math.abs(theirIm[i]));
    }
    const k = await jw.runPythonAsync(`fb.kernels(${n})`);
    res.rows.push({ p, n, jaxweb: tw, jaxjs: tj, relErr: err / big, kernels: k, compileS });
    const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
    log(`fft 2^${p}: jaxweb ${(med(tw) * 1e3).toFixed(2)} ms, jax-js ${(med(tj) * 1e3).toFixed(2)} ms, rel.err ${(err / big).toExponential(1)}`);
    re.dispose(); im.dispose();
  }
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
