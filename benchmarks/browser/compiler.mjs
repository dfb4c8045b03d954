// The compiler benchmark: jaxweb (Pyodide + js_shim, wasm device) and jax-js (its wasm
// backend) side by side in one crossOriginIsolated page, interleaved rounds.
// bench_compiler_browser.py serves this folder and reads window.__benchResult.
// ?reps=5&rounds=3 in the URL.
import { f32, loadBench, log, timed } from './common.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const REPS = Number(q.get('reps') ?? 5);
const ROUNDS = Number(q.get('rounds') ?? 3);
const B = 1000, LR = 1e-3, B1 = 0.9, B2 = 0.999, EPS = 1e-8;

async function main() {
  const { jw, res } = await loadBench('compiler_bench.py', 'cb');
  await jaxjs.init('wasm');
  jaxjs.defaultDevice('wasm');
  const { numpy: np, nn, tree, jit, valueAndGrad } = jaxjs;

  const input = async (name, shape) => {
    const a = np.array(f32(await jw.runPythonAsync(`cb.input_bytes(${JSON.stringify(name)})`))).reshape(shape);
    await a.blockUntilReady();
    return a;
  };
  const sizes = [784, 256, 128, 10];
  const params0 = {};
  for (let i = 0; i < 3; i++) {
    params0[`w${i}`] = await input(`params.${i}.0`, [sizes[i], sizes[i + 1]]);
    params0[`b${i}`] = await input(`params.${i}.1`, [sizes[i + 1]]);
  }
  const x = await input('x', [B, 784]), y = await input('y', [B, 10]);
  const a = await input('a', [1 << 20]), b = await input('b', [1 << 20]);
  const small = await input('small', [16]), hundred = await input('hundred', [100]);

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
  const hypot = (a, b) => np.sqrt(a.ref.mul(a).add(b.ref.mul(b)));
  const hypotJit = jit(hypot);
  const addJit = jit((x) => x.add(1));

  const train = (fn) => {
    const st = { p: tree.map((t) => t.ref.add(0), params0) };
    st.m = tree.map((t) => np.zerosLike(t.ref), st.p);
    st.v = tree.map((t) => np.zerosLike(t.ref), st.p);
    return async () => {
      const [value, p, m, v] = fn(st.p, st.m, st.v, x.ref, y.ref);
      Object.assign(st, { p, m, v });
      await value.blockUntilReady();
      value.dispose();
    };
  };
  const jsCases = {
    mnist_jit: () => train(stepJit),
    mnist_eager: () => train(stepFn),
    hypot_jit: () => async () => { const r = hypotJit(a.ref, b.ref); await r.blockUntilReady(); r.dispose(); },
    hypot_eager: () => async () => { const r = hypot(a.ref, b.ref); await r.blockUntilReady(); r.dispose(); },
    add_eager: () => async () => {
      let z = hundred.ref;
      for (let i = 0; i < 1000; i++) z = z.add(1);
      await z.data();
    },
    add_jit: () => async () => {
      let z = small.ref;
      for (let i = 0; i < 1000; i++) z = addJit(z);
      await z.blockUntilReady();
      z.dispose();
    },
  };
  const perOp = { add_eager: 1000, add_jit: 1000 };
  for (const name of ['mnist_jit', 'mnist_eager', 'hypot_jit', 'hypot_eager', 'add_eager', 'add_jit']) {
    const reps = name === 'mnist_eager' ? Math.max(2, REPS >> 1) : REPS;
    const tw = [], tj = [];
    const jsFn = jsCases[name]();
    for (let r = 0; r < ROUNDS; r++) {  // interleaved: both see the same machine load
      const ts = await jw.runPythonAsync(`cb.bench(${JSON.stringify(name)}, ${reps})`);
      tw.push(...ts.toJs()); ts.destroy();
      const tsj = await timed(jsFn, reps);
      tj.push(...tsj.map((t) => t / (perOp[name] ?? 1)));
    }
    const med = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
    res.rows.push({ name, jaxweb: tw, jaxjs: tj });
    log(`${name}: jaxweb ${(med(tw) * 1e3).toFixed(3)} ms, jax-js ${(med(tj) * 1e3).toFixed(3)} ms`);
  }
  const k = await jw.runPythonAsync('cb.kernels()');
  res.kernels = k.toJs({ dict_converter: Object.fromEntries }); k.destroy();
  // the same training from the same start on both sides: the losses must agree
  const mine = await jw.runPythonAsync('cb.mnist_losses(5)');
  res.jaxwebLosses = mine.toJs(); mine.destroy();
  const st = { p: tree.map((t) => t.ref.add(0), params0) };
  st.m = tree.map((t) => np.zerosLike(t.ref), st.p);
  st.v = tree.map((t) => np.zerosLike(t.ref), st.p);
  res.jaxjsLosses = [];
  for (let i = 0; i < 5; i++) {
    const [value, p, m, v] = stepJit(st.p, st.m, st.v, x.ref, y.ref);
    Object.assign(st, { p, m, v });
    res.jaxjsLosses.push((await value.data())[0]);
  }
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
