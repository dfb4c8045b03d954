// The webgpu benchmark: jaxweb (Pyodide + js_shim, webgpu device) and jax-js 0.1.25 (its
// webgpu backend) side by side in one page, interleaved rounds, the same input bytes.
// bench_webgpu_browser.py serves this folder and reads window.__benchResult.
// ?sizes=256,512,1024&reps=5&rounds=3&mnist=1&device=webgpu&hypot=0 in the URL (device=webgl:
// both sides' WebGL2 backends, bench_webgl_browser.py).
import { jaxjsMlp, loadBench, log, timed } from './common.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const SIZES = (q.get('sizes') || '256,512,1024').split(',').filter(Boolean).map(Number);
const REPS = Number(q.get('reps') ?? 5);
const ROUNDS = Number(q.get('rounds') ?? 3);
const MNIST = q.get('mnist') !== '0';
const DEVICE = q.get('device') || 'webgpu';
const HYPOT = q.get('hypot') === '1';

async function main() {
  const { jw, res } = await loadBench('webgpu_bench.py', 'wb');
  await jw.runPythonAsync(`wb.use(${JSON.stringify(DEVICE)})`);
  const info = await jw.runPythonAsync('import json; json.dumps(wb.adapter())');
  res.adapter = JSON.parse(info);
  await jaxjs.init(DEVICE);
  jaxjs.defaultDevice(DEVICE);
  const { numpy: np, jit } = jaxjs;

  const input = async (name, shape, n = 0) => {
    const b = await jw.runPythonAsync(`wb.input_bytes(${JSON.stringify(name)}, ${n})`);
    const u8 = b.toJs(); b.destroy();
    const a = np.array(new Float32Array(u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength))).reshape(shape);
    await a.blockUntilReady();
    return a;
  };
  const mm = jit((a, b) => np.matmul(a, b));
  const med = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
  for (const n of SIZES) {
    const a = await input('a', [n, n], n), b = await input('b', [n, n], n);
    const jsFn = async () => { const r = mm(a.ref, b.ref); await r.blockUntilReady(); r.dispose(); };
    const tw = [], tj = [];
    for (let r = 0; r < ROUNDS; r++) {  // interleaved: both see the same machine load
      const ts = await jw.runPythonAsync(`wb.bench("matmul", ${n}, ${REPS})`);
      tw.push(...ts.toJs()); ts.destroy();
      tj.push(...await timed(jsFn, REPS));
    }
    const err = await jw.runPythonAsync(`wb.check_matmul(${n})`);
    res.rows.push({ name: 'matmul', n, jaxweb: tw, jaxjs: tj, maxErr: err });
    log(`matmul ${n}: jaxweb ${(2 * n ** 3 / med(tw) / 1e9).toFixed(2)} GFLOP/s, jax-js ${(2 * n ** 3 / med(tj) / 1e9).toFixed(2)} GFLOP/s`);
    a.dispose(); b.dispose();
  }
  if (HYPOT) {
    const n = 1 << 20;
    const h1 = await input('h1', [n]), h2 = await input('h2', [n]);
    const hy = jit((a, b) => np.hypot(a, b));
    const jsFn = async () => { const r = hy(h1.ref, h2.ref); await r.blockUntilReady(); r.dispose(); };
    const tw = [], tj = [];
    for (let r = 0; r < ROUNDS; r++) {
      const ts = await jw.runPythonAsync(`wb.bench("hypot", 0, ${REPS})`);
      tw.push(...ts.toJs()); ts.destroy();
      tj.push(...await timed(jsFn, REPS));
    }
    res.rows.push({ name: 'hypot', n, jaxweb: tw, jaxjs: tj });
    log(`hypot 2^20: jaxweb ${(med(tw) * 1e3).toFixed(2)} ms, jax-js ${(med(tj) * 1e3).toFixed(2)} ms`);
  }
  if (MNIST) {
    const mlp = await jaxjsMlp(jaxjs, input);
    const jsStep = mlp.train(mlp.stepJit);
    const reps = Math.max(2, REPS >> 1);
    const tw = [], tj = [];
    for (let r = 0; r < ROUNDS; r++) {
      const ts = await jw.runPythonAsync(`wb.bench("mnist_jit", 0, ${reps})`);
      tw.push(...ts.toJs()); ts.destroy();
      tj.push(...await timed(jsStep, reps, 1));
    }
    res.rows.push({ name: 'mnist_jit', jaxweb: tw, jaxjs: tj });
    log(`mnist step: jaxweb ${(med(tw) * 1e3).toFixed(1)} ms, jax-js ${(med(tj) * 1e3).toFixed(1)} ms`);
    const mine = await jw.runPythonAsync('wb.mnist_losses(3)');
    res.jaxwebLosses = mine.toJs(); mine.destroy();
  }
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
