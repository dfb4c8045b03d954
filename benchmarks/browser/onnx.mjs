// The ONNX benchmark: the same model file run by jaxweb.onnx (Pyodide, jit of the imported
// function) and by onnxruntime-web 1.30 (wasm EP with threads + SIMD, webgpu EP) in one page,
// interleaved rounds, the same input bytes; outputs compared. bench_onnx_browser.py serves
// this folder (models under /models/, onnxruntime-web's dist under /ort/) and reads
// window.__benchResult. ?cases=resnet18:8:224,minilm:32:128&devices=wasm,webgpu&reps=3&rounds=2&warm=1
// Each side's setup (jaxweb: load + device_put; ort: InferenceSession.create) and first call
// (jaxweb: trace, schedule, codegen and every pipeline/module compile; ort: its own) are timed
// apart from the steady calls, so a slow device says where its time goes.
import { f32, loadBench, log, timed } from './common.mjs';
import * as ort from '/ort/ort.all.min.mjs';

const q = new URLSearchParams(location.search);
const CASES = (q.get('cases') || 'resnet18:8:224,minilm:32:128').split(',').filter(Boolean);
const DEVICES = (q.get('devices') || 'wasm,webgpu').split(',').filter(Boolean);
const REPS = Number(q.get('reps') ?? 3);
const ROUNDS = Number(q.get('rounds') ?? 2);
const WARM = Number(q.get('warm') ?? 1);  // warm-up calls per round, after each side's first call

function feedsOf(name, a, b) {  // {input: [kind, shape]} for each model
  if (name === 'minilm') return { input_ids: ['ids', [a, b]], attention_mask: ['mask', [a, b]] };
  return { images: ['images', [a, 3, b, b]] };
}

async function ortFeeds(jw, feeds) {
  const out = {};
  for (const [k, [kind, shape]] of Object.entries(feeds)) {
    const py = await jw.runPythonAsync(`ob.input_bytes(${JSON.stringify(kind)}, ${JSON.stringify(shape)})`);
    const u8 = py.toJs(); py.destroy();
    const buf = u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength);
    out[k] = kind === 'images' ? new ort.Tensor('float32', new Float32Array(buf), shape)
                               : new ort.Tensor('int64', new BigInt64Array(buf), shape);
  }
  return out;
}

async function main() {
  const { jw, res } = await loadBench('onnx_bench.py', 'ob');
  ort.env.wasm.wasmPaths = '/ort/';
  ort.env.wasm.numThreads = self.crossOriginIsolated ? navigator.hardwareConcurrency : 1;
  ort.env.wasm.simd = true;
  res.ortThreads = ort.env.wasm.numThreads;
  const med = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
  for (const spec of CASES) {
    const [name, a, b] = spec.split(':');
    const feeds = feedsOf(name, Number(a), Number(b));
    const bytes = new Uint8Array(await (await fetch(`/models/${name}.onnx`)).arrayBuffer());
    jw.pyodide.FS.writeFile(`/tmp/${name}.onnx`, bytes);
    const input = await ortFeeds(jw, feeds);
    for (const device of DEVICES) {
      const key = `${JSON.stringify(name)}, ${JSON.stringify(device)}`;
      const since = (t0) => (performance.now() - t0) / 1e3;
      let t0 = performance.now();
      await jw.runPythonAsync(`ob.load(${JSON.stringify(name)}, "/tmp/${name}.onnx", ${JSON.stringify(feeds)}, ${JSON.stringify(device)})`);
      const setup = { jaxweb: since(t0) };
      t0 = performance.now();
      const sess = await ort.InferenceSession.create(bytes, { executionProviders: [device] });
      setup.ort = since(t0);
      let theirs = null;  // the last run's first output (compared without another run)
      const ortFn = async () => {
        const out = await sess.run(input);
        for (const t of Object.values(out)) { await t.getData?.(); }
        theirs = out[sess.outputNames[0]].data;
        for (const t of Object.values(out)) t.dispose?.();
      };
      const first = { jaxweb: await jw.runPythonAsync(`ob.first(${key})`) };
      t0 = performance.now();
      await ortFn();
      first.ort = since(t0);
      log(`${name} ${a}x${b} ${device}: setup jaxweb ${setup.jaxweb.toFixed(1)} s, ort ${setup.ort.toFixed(1)} s; first call jaxweb ${first.jaxweb.toFixed(1)} s, ort ${first.ort.toFixed(1)} s`);
      const tw = [], to = [];
      for (let r = 0; r < ROUNDS; r++) {
        const ts = await jw.runPythonAsync(`ob.bench(${key}, ${REPS}, ${WARM})`);
        tw.push(...ts.toJs()); ts.destroy();
        to.push(...await timed(ortFn, REPS, WARM));
      }
      const mine = f32(await jw.runPythonAsync(`ob.output_bytes(${JSON.stringify(name)}, ${JSON.stringify(device)})`));
      let err = 0;
      for (let i = 0; i < mine.length; i++) err = Math.max(err, Math.abs(mine[i] - theirs[i]));
      res.rows.push({ name, a: Number(a), b: Number(b), device, jaxweb: tw, ort: to, maxErr: err, n: mine.length, setup, first });
      log(`${name} ${a}x${b} ${device}: jaxweb ${(med(tw) * 1e3).toFixed(1)} ms, onnxruntime-web ${(med(to) * 1e3).toFixed(1)} ms, max |diff| ${err.toExponential(1)}`);
      await sess.release();
    }
  }
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
