// The webgpu benchmark: jaxweb (Pyodide + js_shim, webgpu device) and jax-js 0.1.25 (its
// webgpu backend) side by side in one page, interleaved rounds, the same input bytes.
// bench_webgpu_browser.py serves this folder and reads window.__benchResult.
// ?sizes=256,512,1024&reps=5&rounds=3&mnist=1 in the URL.
import { loadBench, log, timed } from './common.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const SIZES = (q.get('sizes') || '256,512,1024').split(',').filter(Boolean).map(Number);
const REPS = Number(q.get('reps') ?? 5);
const ROUNDS = Number(q.get('rounds') ?? 3);
const MNIST = q.get('mnist') !== '0';
const B = 1000, LR = 1e-3, B1 = 0.9, B2 = 0.999, EPS = 1e-8;

async function main() {
  const { jw, res } = await loadBench('webgpu_bench.py', 'wb');
  const info = await jw.runPythonAsync('import json; json.dumps(wb.adapter())');
  res.adapter = JSON.parse(info);
  await jaxjs.init('webgpu');
  jaxjs.defaultDevice('webgpu');
  const { numpy: np, nn, tree, jit, valueAndGrad } = jaxjs;

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
  if (MNIST) {
    const sizes = [784, 256, 128, 10];
    const params0 = {};
    for (let i = 0; i < 3; i++) {
      params0[`w${i}`] = await input(`params.${i}.0`, [sizes[i], sizes[i + 1]]);
      params0[`b${i}`] = await input(`params.${i}.1`, [sizes[i + 1]]);
    }
    const x = await input('x', [B, 784]), y = await input('y', [B, 10]);
    // jax-js owns its arguments: every use but the last takes a .ref
    function lossFn(p, x, y) {
      let h = np.maximum(np.matmul(x, p.w0).add(p.b0), 0);
      h = np.maximum(np.matmul(h, p.w1).add(p.b1), 0);
      const logits = np.matmul(h, p.w2).add(p.b2);
      return nn.logSoftmax(logits, -1).mul(y).sum().mul(-1 / B);
    }
    function stepFn(p, m, v, x, y) {
      const [value, g] = valueAndGrad(lossFn)(tree.ref(p), x, y);
      const m2 = tree.map((m, g) => m.mul(B1).add(g.mul(1 - B1)), m, tree.ref(g));
      const v2 = tree.map((v, g) => v.mul(B2).add(g.ref.mul(g).mul(1 - B2)), v, g);
      const p2 = tree.map((p, m, v) => p.sub(m.mul(LR).div(np.sqrt(v).add(EPS))), p, tree.ref(m2), tree.ref(v2));
      return [value, p2, m2, v2];
    }
    const stepJit = jit(stepFn);
    const st = { p: tree.map((t) => t.ref.add(0), params0) };
    st.m = tree.map((t) => np.zerosLike(t.ref), st.p);
    st.v = tree.map((t) => np.zerosLike(t.ref), st.p);
    const jsStep = async () => {
      const [value, p, m, v] = stepJit(st.p, st.m, st.v, x.ref, y.ref);
      Object.assign(st, { p, m, v });
      await value.blockUntilReady();
      value.dispose();
    };
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
