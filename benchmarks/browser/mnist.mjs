// MNIST training, jaxweb vs jax-js 0.1.25 in one crossOriginIsolated page, both on the same
// device kind (wasm, or webgpu: SwiftShader on a CPU machine).
// bench_mnist_browser.py serves this folder and reads window.__benchResult.
// ?batch=1000&epochs=5&chunk=10&device=wasm in the URL.
//
// jaxweb: demos/mnist/trainer.py exactly as the /mnist/ page runs it (uint8 batches
// on the device, optax.adam, the whole step jitted). jax-js: the same MLP from the same
// initial weights, Adam with the same bias correction, the whole step jitted; its
// batches are built in JS each step (gather + /255, as a jax-js user would) and that
// upload is inside its timed step. Both train on the real 60k images in the same
// per-epoch shuffled order, in interleaved chunks so both see the same machine load;
// test accuracy (all 10k test images) after every epoch is not timed.
import { loadJaxweb } from '/js_shim/jaxweb.mjs';
import * as jaxjs from '/jaxjs/index.js';

const q = new URLSearchParams(location.search);
const B = Number(q.get('batch') ?? 1000);
const EPOCHS = Number(q.get('epochs') ?? 5);
const CHUNK = Number(q.get('chunk') ?? 10);
const DEVICE = q.get('device') ?? 'wasm';
const LR = 1e-3, B1 = 0.9, B2 = 0.999, EPS = 1e-8;
const logEl = document.getElementById('log');
const log = (s) => { logEl.textContent += s + '\n'; console.log(s); };
const FILES = { train_x: 'train-images-idx3-ubyte', train_y: 'train-labels-idx1-ubyte',
  test_x: 't10k-images-idx3-ubyte', test_y: 't10k-labels-idx1-ubyte' };

async function bytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot fetch ${url}: ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** A seeded shuffle (mulberry32), the order both libraries train in for one epoch. */
function shuffled(n, seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const order = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function main() {
  const res = { crossOriginIsolated: self.crossOriginIsolated, batch: B, epochs: EPOCHS, device: DEVICE,
    hardwareConcurrency: navigator.hardwareConcurrency, jaxweb: { ms: [], acc: [], trainS: [] }, jaxjs: { ms: [], acc: [], trainS: [] } };
  const data = {};
  await Promise.all(Object.entries(FILES).map(async ([k, f]) => { data[k] = await bytes(`/data/mnist/${f}`); }));
  const jw = await loadJaxweb({});
  res.jaxwebThreads = jw.host.wasmThreads;
  const py = jw.pyodide;
  py.FS.mkdirTree('/tmp/mnist');
  for (const [k, v] of Object.entries(data)) py.FS.writeFile(`/tmp/mnist/${k}`, v);
  py.FS.writeFile('/tmp/mnist_trainer.py', await (await fetch('/demos/mnist/trainer.py')).text());
  py.FS.writeFile('/tmp/mnist/model.py', await (await fetch('/demos/mnist/models/mlp.py')).text());
  await jw.runPythonAsync(`
import sys; sys.path.insert(0, "/tmp")
import mnist_trainer
import jaxweb
DATA = {k: open(f"/tmp/mnist/{k}", "rb").read() for k in ("train_x", "train_y", "test_x", "test_y")}
DEV = jaxweb.devices("${DEVICE}")[0]
with jaxweb.default_device(DEV):
    T = mnist_trainer.Trainer(DATA, open("/tmp/mnist/model.py").read(), batch=${B}, lr=${LR}, optimizer="adam")
def param_bytes(i, name):
    return bytes(T.params[i][name].contiguous_buffer().read())
`);
  const steps = Math.floor(60000 / B);  // as the trainer's steps_per_epoch

  await jaxjs.init(DEVICE);
  jaxjs.defaultDevice(DEVICE);
  const { numpy: np, nn, tree, jit, valueAndGrad } = jaxjs;
  const sizes = [784, 256, 128, 10];
  let p = {};
  for (let i = 0; i < 3; i++) {  // the same initial weights as jaxweb's
    for (const [name, shape] of [['w', [sizes[i], sizes[i + 1]]], ['b', [sizes[i + 1]]]]) {
      const b = await jw.runPythonAsync(`param_bytes(${i}, "${name}")`);
      const u8 = b.toJs(); b.destroy();
      p[`${name}${i}`] = np.array(new Float32Array(u8.slice().buffer)).reshape(shape);
    }
  }
  let m = tree.map((t) => np.zerosLike(t.ref), p);
  let v = tree.map((t) => np.zerosLike(t.ref), p);
  function logits(p, x) {
    let h = np.maximum(np.matmul(x, p.w0).add(p.b0), 0);
    h = np.maximum(np.matmul(h, p.w1).add(p.b1), 0);
    return np.matmul(h, p.w2).add(p.b2);
  }
  const lossFn = (p, x, y) => nn.logSoftmax(logits(p, x), -1).mul(y).sum().mul(-1 / B);
  // optax.adam: m_hat = m / (1 - b1^t), v_hat = v / (1 - b2^t); c1, c2 are those factors
  const step = jit((p, m, v, x, y, c1, c2) => {
    const [value, g] = valueAndGrad(lossFn)(tree.ref(p), x, y);
    const m2 = tree.map((m, g) => m.mul(B1).add(g.mul(1 - B1)), m, tree.ref(g));
    const v2 = tree.map((v, g) => v.mul(B2).add(g.ref.mul(g).mul(1 - B2)), v, g);
    const p2 = tree.map((p, m, v) => p.sub(m.mul(c1.ref).mul(LR).div(np.sqrt(v.mul(c2.ref)).add(EPS))),
      p, tree.ref(m2), tree.ref(v2));
    c1.dispose(); c2.dispose();
    return [value, p2, m2, v2];
  });
  const predict = jit((p, x) => logits(p, x));
  const trainX = data.train_x.subarray(16), trainY = data.train_y.subarray(8);
  const testX = data.test_x.subarray(16), testY = data.test_y.subarray(8);
  let t = 0;
  const jsStep = (order, i) => {
    const x = new Float32Array(B * 784), y = new Float32Array(B * 10);
    for (let r = 0; r < B; r++) {
      const k = order[i * B + r];
      for (let c = 0; c < 784; c++) x[r * 784 + c] = trainX[k * 784 + c] / 255;
      y[r * 10 + trainY[k]] = 1;
    }
    t += 1;
    const [value, p2, m2, v2] = step(p, m, v, np.array(x).reshape([B, 784]), np.array(y).reshape([B, 10]),
      np.array([1 / (1 - B1 ** t)]), np.array([1 / (1 - B2 ** t)]));
    p = p2; m = m2; v = v2;
    return value;
  };
  const jsAccuracy = async () => {
    let correct = 0;
    for (let lo = 0; lo < 10000; lo += 2000) {
      const x = new Float32Array(2000 * 784);
      for (let i = 0; i < x.length; i++) x[i] = testX[lo * 784 + i] / 255;
      const out = await predict(tree.ref(p), np.array(x).reshape([2000, 784])).data();
      for (let r = 0; r < 2000; r++) {
        let best = 0;
        for (let c = 1; c < 10; c++) if (out[r * 10 + c] > out[r * 10 + best]) best = c;
        if (best === testY[lo + r]) correct++;
      }
    }
    return correct / 10000;
  };

  log(`batch ${B}, ${steps} steps per epoch, ${EPOCHS} epochs, chunks of ${CHUNK} steps, interleaved`);
  let jwS = 0, jsS = 0;
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    const order = shuffled(60000, epoch + 1);
    for (let i = 0; i < steps; i += CHUNK) {
      const n = Math.min(CHUNK, steps - i);
      const r = await jw.runPythonAsync(`with jaxweb.default_device(DEV): _r = T.train(${n})\n_r`);
      const d = r.toJs({ dict_converter: Object.fromEntries }); r.destroy();
      if (epoch > 0 || i > 0) res.jaxweb.ms.push(d.ms_per_step);
      jwS += d.ms_per_step * n / 1e3;
      const t0 = performance.now();
      const losses = [];
      for (let k = 0; k < n; k++) losses.push(jsStep(order, i + k));
      for (const l of losses) await l.data();
      const dt = performance.now() - t0;
      if (epoch > 0 || i > 0) res.jaxjs.ms.push(dt / n);
      jsS += dt / 1e3;
    }
    const accW = await jw.runPythonAsync('with jaxweb.default_device(DEV): _a = T.evaluate()\n_a');
    const accJ = await jsAccuracy();
    res.jaxweb.acc.push(accW); res.jaxweb.trainS.push(jwS);
    res.jaxjs.acc.push(accJ); res.jaxjs.trainS.push(jsS);
    log(`epoch ${epoch + 1}: jaxweb ${(accW * 100).toFixed(2)} % (${jwS.toFixed(1)} s), jax-js ${(accJ * 100).toFixed(2)} % (${jsS.toFixed(1)} s)`);
  }
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
