// The linear-algebra benchmark: jaxweb (Pyodide + js_shim, wasm device) and jax-js (its
// wasm backend) side by side in one crossOriginIsolated page, interleaved rounds.
// bench_linalg_browser.py serves this folder and reads window.__benchResult.
// ?sizes=256,512,1024&reps=3&rounds=3 in the URL.
import { f32, loadBench, log, timed } from './common.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const SIZES = (q.get('sizes') ?? '256,512,1024').split(',').map(Number);
const REPS = Number(q.get('reps') ?? 3);
const ROUNDS = Number(q.get('rounds') ?? 3);
const OPS = (q.get('ops') ?? 'cholesky,solve').split(',');

async function main() {
  const { jw, res } = await loadBench('linalg_bench.py', 'lb');
  await jaxjs.init('wasm');
  jaxjs.defaultDevice('wasm');
  const { numpy: np, jit } = jaxjs;
  const chol = jit((a) => np.linalg.cholesky(a));
  // jax-js 0.1.25 cannot jit solve ('routine primitive triangular_solve input is not imm'): eager
  const solve = (a, b) => np.linalg.solve(a, b);
  for (const n of SIZES) {
    const a = np.array(f32(await jw.runPythonAsync(`lb.input_bytes("a", ${n})`))).reshape([n, n]);
    const b = np.array(f32(await jw.runPythonAsync(`lb.input_bytes("b", ${n})`))).reshape([n, 1]);
    await a.blockUntilReady(); await b.blockUntilReady();
    const jsCases = {
      cholesky: async () => { const r = chol(a.ref); await r.blockUntilReady(); r.dispose(); },
      solve: async () => { const r = solve(a.ref, b.ref); await r.blockUntilReady(); r.dispose(); },
    };
    for (const op of OPS) {
      const tw = [], tj = [];
      log(`${op} ${n}: jaxweb compiling...`);
      const compileS = (await jw.runPythonAsync(`lb.compile_seconds(${JSON.stringify(op)}, ${n})`));
      log(`${op} ${n}: jaxweb first call ${compileS.toFixed(1)} s`);
      for (let r = 0; r < ROUNDS; r++) {  // interleaved: both see the same machine load
        const ts = await jw.runPythonAsync(`lb.bench(${JSON.stringify(op)}, ${n}, ${REPS})`);
        tw.push(...ts.toJs()); ts.destroy();
        if (jsCases[op]) tj.push(...await timed(jsCases[op], REPS));
      }
      // the two results must agree
      const mine = f32(await jw.runPythonAsync(`lb.result_bytes(${JSON.stringify(op)}, ${n})`));
      const theirs = jsCases[op] ? await (op === 'cholesky' ? chol(a.ref) : solve(a.ref, b.ref)).data() : mine;
      let err = 0, big = 0;
      for (let i = 0; i < theirs.length; i++) {
        err = Math.max(err, Math.abs(mine[i] - theirs[i]));
        big = Math.max(big, Math.abs(theirs[i]));
      }
      const k = await jw.runPythonAsync(`lb.kernels(${JSON.stringify(op)}, ${n})`);
      res.rows.push({ op, n, jaxweb: tw, jaxjs: tj, relErr: err / big, kernels: k, compileS });
      const med = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
      log(`${op} ${n}: jaxweb ${(med(tw) * 1e3).toFixed(2)} ms, jax-js ${(med(tj) * 1e3).toFixed(2)} ms, rel.err ${(err / big).toExponential(1)}`);
    }
    a.dispose(); b.dispose();
  }
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
