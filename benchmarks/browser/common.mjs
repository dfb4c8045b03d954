// What the benchmark pages share: the log, jax-js-side timing with the same warm-up as
// page_timing.py, Python bytes as a Float32Array, and loading jaxweb with a page's Python half.
import { loadJaxweb } from '/js_shim/jaxweb.mjs';

export const WARM_S = 0.25;  // as page_timing.py
const logEl = document.getElementById('log');
export const log = (s) => { logEl.textContent += s + '\n'; console.log(s); };

/** Seconds of `reps` awaited calls of `fn`, after at least `warm` calls and WARM_S of warm-up. */
export async function timed(fn, reps, warm = 2) {
  for (let i = 0, t0 = performance.now(); i < warm || (warm && performance.now() - t0 < WARM_S * 1e3); i++) await fn();
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
 * (page_timing.py and mlp_bench.py beside it), and the result object the page fills in.
 */
export async function loadBench(file, alias) {
  const jw = await loadJaxweb({});
  for (const [src, dst] of [['page_timing.py', 'page_timing.py'], ['mlp_bench.py', 'mlp_bench.py'],
                            [file, `jaxweb_${file}`]]) {
    jw.pyodide.FS.writeFile(`/tmp/${dst}`, await (await fetch(`./${src}`)).text());
  }
  await jw.runPythonAsync(`import sys; sys.path.insert(0, "/tmp"); import jaxweb_${file.replace(/\.py$/, '')} as ${alias}`);
  const res = { crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency,
                jaxwebThreads: jw.host.wasmThreads, rows: [] };
  return { jw, res };
}


/**
 * jax-js's side of the MNIST-sized MLP the compiler and webgpu pages time (mlp_bench.py is
 * jaxweb's): the parameters and batch read through `input(name, shape)` (the same bytes),
 * the Adam step eager (`stepFn`) and jitted (`stepJit`), `train(fn)`, a call that runs one
 * step carrying (p, m, v) along, and `losses(steps)` of the jitted step (the cross-check). jax-js owns its arguments: every use but the last takes a .ref.
 */
export async function jaxjsMlp(jaxjs, input) {
  const { numpy: np, nn, tree, jit, valueAndGrad } = jaxjs;
  const B = 1000, LR = 1e-3, B1 = 0.9, B2 = 0.999, EPS = 1e-8, sizes = [784, 256, 128, 10];
  const params0 = {};
  for (let i = 0; i < 3; i++) {
    params0[`w${i}`] = await input(`params.${i}.0`, [sizes[i], sizes[i + 1]]);
    params0[`b${i}`] = await input(`params.${i}.1`, [sizes[i + 1]]);
  }
  const x = await input('x', [B, 784]), y = await input('y', [B, 10]);
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
  const fresh = () => {  // a copy of the initial parameters and zero moments
    const st = { p: tree.map((t) => t.ref.add(0), params0) };
    st.m = tree.map((t) => np.zerosLike(t.ref), st.p);
    st.v = tree.map((t) => np.zerosLike(t.ref), st.p);
    return st;
  };
  const train = (fn) => {
    const st = fresh();
    return async () => {
      const [value, p, m, v] = fn(st.p, st.m, st.v, x.ref, y.ref);
      Object.assign(st, { p, m, v });
      await value.blockUntilReady();
      value.dispose();
    };
  };
  const losses = async (steps) => {  // the jitted step's losses from the initial parameters
    const st = fresh(), out = [];
    for (let i = 0; i < steps; i++) {
      const [value, p, m, v] = stepJit(st.p, st.m, st.v, x.ref, y.ref);
      Object.assign(st, { p, m, v });
      out.push((await value.data())[0]);
    }
    return out;
  };
  return { stepFn, stepJit, train, losses };
}
