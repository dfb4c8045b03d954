// The compiler benchmark: jaxweb (Pyodide + js_shim, wasm device) and jax-js (its wasm
// backend) side by side in one crossOriginIsolated page, interleaved rounds.
// bench_compiler_browser.py serves this folder and reads window.__benchResult.
// ?reps=5&rounds=3 in the URL.
import { f32, jaxjsMlp, loadBench, log, timed } from './common.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const REPS = Number(q.get('reps') ?? 5);
const ROUNDS = Number(q.get('rounds') ?? 3);

async function main() {
  const { jw, res } = await loadBench('compiler_bench.py', 'cb');
  await jaxjs.init('wasm');
  jaxjs.defaultDevice('wasm');
  const { numpy: np, jit } = jaxjs;

  const input = async (name, shape) => {
    const a = np.array(f32(await jw.runPythonAsync(`cb.input_bytes(${JSON.stringify(name)})`))).reshape(shape);
    await a.blockUntilReady();
    return a;
  };
  const mlp = await jaxjsMlp(jaxjs, input);
  const a = await input('a', [1 << 20]), b = await input('b', [1 << 20]);
  const small = await input('small', [16]), hundred = await input('hundred', [100]);

  // jax-js owns its arguments: every use but the last takes a .ref
  const hypot = (a, b) => np.sqrt(a.ref.mul(a).add(b.ref.mul(b)));
  const hypotJit = jit(hypot);
  const addJit = jit((x) => x.add(1));

  const jsCases = {
    mnist_jit: () => mlp.train(mlp.stepJit),
    mnist_eager: () => mlp.train(mlp.stepFn),
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
  res.jaxjsLosses = await mlp.losses(5);
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
