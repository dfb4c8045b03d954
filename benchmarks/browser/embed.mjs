// MiniLM sentence embeddings: jaxweb (Pyodide + js_shim, demos/embed/minilm.py) and
// onnxruntime-web 1.30 (the same weights exported by scripts/export_minilm_onnx.py) side by
// side in one crossOriginIsolated page, per device: wasm (jaxweb's Wasm with its worker
// threads; ORT's wasm EP, SIMD + threads) and webgpu (SwiftShader on a CPU machine; ORT's
// webgpu EP). Interleaved rounds, the very same token ids; both read their output back
// (jaxweb: tolist(); ORT: its CPU output tensor). bench_embed_browser.py serves this folder
// and reads window.__benchResult. ?devices=wasm,webgpu&batch=32&tokens=128&query=16&reps=1&rounds=3
import { log, timed } from './common.mjs';
import { loadJaxweb } from '/js_shim/jaxweb.mjs';
import * as ort from '/ort/ort.all.min.mjs';

const q = new URLSearchParams(location.search);
const DEVICES = (q.get('devices') || 'wasm,webgpu').split(',').filter(Boolean);
const BATCH = Number(q.get('batch') ?? 32), TOKENS = Number(q.get('tokens') ?? 128);
const QUERY = Number(q.get('query') ?? 16);
const REPS = Number(q.get('reps') ?? 1), ROUNDS = Number(q.get('rounds') ?? 3);
const QREPS = Number(q.get('qreps') ?? 5);
const MODEL_FILES = ['config.json', 'tokenizer.json', '1_Pooling/config.json', 'model.safetensors'];
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

async function bytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot fetch ${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

async function main() {
  const onnx = bytes('/onnx/sentence_embedding.onnx');
  const jw = await loadJaxweb({});
  const fs = jw.pyodide.FS;
  fs.mkdirTree('/tmp/minilm/1_Pooling');
  for (const f of MODEL_FILES) fs.writeFile(`/tmp/minilm/${f}`, await bytes(`/models/minilm/${f}`));
  fs.writeFile('/tmp/corpus.txt', await bytes('/demos/embed/corpus.txt'));
  for (const f of ['wordpiece.py', 'minilm.py']) fs.writeFile(`/tmp/${f}`, await bytes(`/demos/embed/${f}`));
  for (const f of ['page_timing.py', 'embed_bench.py']) fs.writeFile(`/tmp/${f}`, await bytes(`./${f}`));
  await jw.runPythonAsync('import sys; sys.path.insert(0, "/tmp"); import embed_bench as eb');
  const res = { crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency,
                jaxwebThreads: jw.host.wasmThreads };
  Object.assign(res, { batch: BATCH, tokens: TOKENS, query: QUERY, ortVersion: ort.env.versions?.web ?? '1.30',
                       ortThreads: navigator.hardwareConcurrency, devices: {} });
  ort.env.wasm.wasmPaths = '/ort/';
  ort.env.wasm.numThreads = navigator.hardwareConcurrency;
  ort.env.wasm.simd = true;
  const modelBytes = await onnx;
  for (const device of DEVICES) {
    const row = res.devices[device] = {};
    await jw.runPythonAsync(`eb.setup(${JSON.stringify(device)})`);
    const session = await ort.InferenceSession.create(modelBytes, { executionProviders: [device],
      graphOptimizationLevel: 'all' });
    const feeds = async (b, t) => {
      const raw = await jw.runPythonAsync(`eb.ids_bytes(${b}, ${t})`);
      const u8 = raw.toJs(); raw.destroy();
      const ids = new BigInt64Array(u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength));
      return { input_ids: new ort.Tensor('int64', ids, [b, t]),
               attention_mask: new ort.Tensor('int64', new BigInt64Array(b * t).fill(1n), [b, t]) };
    };
    const ortRun = async (f) => (await session.run(f)).sentence_embedding.data;
    for (const [name, b, t, reps] of [['batch', BATCH, TOKENS, REPS], ['query', 1, QUERY, QREPS]]) {
      const f = await feeds(b, t);
      const mine = await jw.runPythonAsync(`eb.out_bytes(${JSON.stringify(device)}, ${b}, ${t})`);  // compiles
      const u8 = mine.toJs(); mine.destroy();
      const a = new Float32Array(u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength));
      const o = await ortRun(f);
      let maxDiff = 0;
      for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i] - o[i]));
      const tw = [], to = [];
      for (let r = 0; r < ROUNDS; r++) {  // interleaved: both see the same machine load
        const ts = await jw.runPythonAsync(`eb.bench(${JSON.stringify(device)}, ${b}, ${t}, ${reps})`);
        tw.push(...ts.toJs()); ts.destroy();
        to.push(...await timed(() => ortRun(f), reps, 1));
      }
      row[name] = { jaxweb: tw, ort: to, maxDiff, batch: b, tokens: t };
      log(`${device} ${name} ${b}x${t}: jaxweb ${(med(tw) * 1e3).toFixed(1)} ms, onnxruntime-web `
          + `${(med(to) * 1e3).toFixed(1)} ms (max |diff| ${maxDiff.toExponential(1)})`);
    }
    const e2e = await jw.runPythonAsync(`eb.query_latency(${JSON.stringify(device)}, "a pet sleeping in the sun", ${QREPS})`);
    row.queryEndToEnd = e2e.toJs(); e2e.destroy();
    await session.release();
  }
  window.__benchResult = res;
}

main().catch((e) => { log(`error: ${e.stack ?? e}`); window.__benchResult = { error: String(e.stack ?? e) }; });
