// The MNIST page: drives trainer.py in the Python worker in short chunks, so that
// Pause, a drawn digit's prediction and Reset get in between them; charts with uPlot.
// Tests read window.__mnist (state, last stats, accuracy history).

import { EditorView, basicSetup, keymap, indentWithTab, python } from '/vendor/codemirror.mjs';
import { startPython, fillDevices } from '/shared/boot.mjs';
import { lineChart } from '/shared/rich.mjs';
import { drawingPad, toMnist } from './digit.mjs';

const $ = (id) => document.getElementById(id);
const CHUNK_MS = 300;        // one train() call takes about this long
const EVAL_EVERY_MS = 3000;  // training time between two test-set evaluations
const MODELS = { mlp: './models/mlp.py', cnn: './models/cnn.py' };

const state = { phase: 'loading', losses: [[], [], []], acc: [[], []], last: null, chunk: 4,
  sinceEval: 0, evalMs: 0, error: null };
window.__mnist = state;

const lossChart = lineChart($('loss-chart'), { title: 'training loss', series: ['loss', 'smoothed'],
  width: 330, height: 200, xLabel: 'step', legend: false });
const accChart = lineChart($('acc-chart'), { title: 'test accuracy (%)', series: ['accuracy'],
  width: 330, height: 200, xLabel: 'step', legend: false });

const editor = new EditorView({ parent: $('editor'), doc: '', extensions: [basicSetup, keymap.of([indentWithTab]), python()] });
const setCode = (text) => editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
const loadModelCode = async () => setCode(await (await fetch(MODELS[$('model').value])).text());

function setPhase(phase, message = '') {
  state.phase = phase;
  const ready = phase !== 'loading' && phase !== 'busy';
  $('start').disabled = !ready || phase === 'running';
  $('pause').disabled = phase !== 'running';
  $('reset').disabled = !ready;
  $('apply').disabled = !ready;
  for (const id of ['device', 'model', 'batch', 'lr', 'optimizer']) $(id).disabled = phase === 'running' || !ready;
  $('status').textContent = message || { idle: 'ready: press Start', running: 'training…', paused: 'paused' }[phase] || '';
}

// ---------------------------------------------------------------- python calls
let py = null;

/** Run Python in the worker and return its last value as JSON; throws with the trimmed traceback. */
async function call(code, vars) {
  const r = await py.run(code, { json: true, vars, device: $('device').value || undefined });
  if (!r.ok) throw Object.assign(new Error(r.error.text), { pyError: r.error });
  return r.json;
}

function showModelError(e) {
  $('model-error').hidden = false;
  $('model-error').textContent = e.message;
  state.error = e.message;
}

async function reset() {
  setPhase('busy', 'building the model…');
  $('model-error').hidden = true;
  state.error = null;
  try {
    await call('T = trainer.Trainer(DATA, MODEL_SOURCE, batch=BATCH, lr=LR, optimizer=OPT)\nNone', {
      MODEL_SOURCE: editor.state.doc.toString(), BATCH: Number($('batch').value), LR: Number($('lr').value),
      OPT: $('optimizer').value,
    });
  } catch (e) {
    showModelError(e);
    setPhase('idle', 'the model code failed: see below');
    return;
  }
  state.losses = [[], [], []];
  state.acc = [[], []];
  state.last = null;
  state.chunk = 4;
  lossChart.setData(state.losses);
  accChart.setData(state.acc);
  for (const id of ['s-ms', 's-sps', 's-loss', 's-acc']) $(id).textContent = '–';
  $('s-step').textContent = '0';
  $('epoch-bar').value = 0;
  $('epoch-label').textContent = 'epoch 0';
  setPhase('idle');
  predictDrawn();
}

// ---------------------------------------------------------------- training loop
function record(r) {
  const first = r.step - r.losses.length + 1;
  let ema = state.losses[2].at(-1) ?? r.losses[0];
  r.losses.forEach((l, i) => {
    ema = 0.95 * ema + 0.05 * l;
    state.losses[0].push(first + i);
    state.losses[1].push(l);
    state.losses[2].push(ema);
  });
  lossChart.setData(state.losses);
  state.last = r;
  $('s-step').textContent = String(r.step);
  $('s-ms').textContent = r.ms_per_step.toFixed(1);
  $('s-sps').textContent = Math.round(r.samples_per_s).toLocaleString('en');
  $('s-loss').textContent = ema.toFixed(3);
  $('epoch-bar').value = r.epoch_progress;
  $('epoch-label').textContent = `epoch ${r.epoch + 1}, ${Math.round(r.epoch_progress * 100)} %`;
}

async function evaluate() {
  const t0 = performance.now();
  const acc = await call('T.evaluate()');
  state.evalMs = performance.now() - t0;
  state.acc[0].push(state.last?.step ?? 0);
  state.acc[1].push(acc * 100);
  accChart.setData(state.acc);
  $('s-acc').textContent = `${(acc * 100).toFixed(2)} %`;
  state.sinceEval = 0;
  return acc;
}

async function trainLoop() {
  setPhase('running');
  try {
    while (state.phase === 'running') {
      const t0 = performance.now();
      const r = await call(`T.train(${state.chunk})`);
      const dt = performance.now() - t0;
      record(r);
      // size the next chunk from this one's pace: steps of ~CHUNK_MS, so Pause answers fast
      state.chunk = Math.max(1, Math.min(500, Math.round(state.chunk * CHUNK_MS / Math.max(dt, 1))));
      state.sinceEval += dt;
      // evaluations take at most a quarter of the time: a slow device (webgpu on a software
      // adapter: ~9 s per 10k images) would otherwise spend most of it evaluating
      if (state.sinceEval > Math.max(EVAL_EVERY_MS, 3 * state.evalMs)) await evaluate();
    }
    await evaluate();
  } catch (e) {
    showModelError(e);
    setPhase('paused', 'training failed: see below');
  }
}

// ---------------------------------------------------------------- drawing
let predicting = false, again = false;

async function predictDrawn() {
  if (!py || state.phase === 'loading') return;
  if (predicting) { again = true; return; }
  const pixels = toMnist($('pad'));
  if (!pixels) { $('probs').replaceChildren(); $('guess').textContent = 'draw a digit 0–9'; return; }
  predicting = true;
  try {
    const probs = await call('T.predict(PIXELS)', { PIXELS: pixels });
    showProbs(probs);
  } catch (e) {
    $('guess').textContent = e.message.split('\n')[0];
  } finally {
    predicting = false;
    if (again) { again = false; predictDrawn(); }
  }
}

function showProbs(probs) {
  const best = probs.indexOf(Math.max(...probs));
  state.prediction = { digit: best, probs };
  $('guess').textContent = `looks like a ${best} (${(probs[best] * 100).toFixed(0)} %)`;
  const rows = [];
  probs.forEach((p, d) => {
    const label = document.createElement('span');
    label.textContent = String(d);
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.style.width = `${(p * 100).toFixed(1)}%`;
    const pct = document.createElement('span');
    pct.textContent = `${(p * 100).toFixed(1)}%`;
    if (d === best) { label.className = 'best'; pct.className = 'best'; }
    const track = document.createElement('div');
    track.append(bar);
    rows.push(label, track, pct);
  });
  $('probs').replaceChildren(...rows);
}

const pad = drawingPad($('pad'), predictDrawn);
$('clear-pad').onclick = () => { pad.clear(); predictDrawn(); };

// ---------------------------------------------------------------- wiring
$('start').onclick = () => { if (state.phase === 'idle' || state.phase === 'paused') trainLoop(); };
$('pause').onclick = () => { if (state.phase === 'running') setPhase('paused'); };
$('reset').onclick = reset;
$('apply').onclick = reset;
$('model').onchange = async () => { await loadModelCode(); reset(); };
for (const id of ['device', 'batch', 'lr', 'optimizer']) $(id).onchange = reset;

setPhase('loading', 'loading Python…');
try {
  const codeReady = loadModelCode();
  const started = await startPython({ loadingBox: $('loading') });
  py = started.py;
  fillDevices($('device'), started.info);
  setPhase('busy', 'loading MNIST (53 MB)…');
  await call(`import _jaxweb_worker
trainer = await _jaxweb_worker.import_url("/mnist/trainer.py", "mnist_trainer")
DATA = await trainer.fetch_mnist("/data/mnist/")
None`);
  await codeReady;
  await reset();
} catch (e) {
  state.error = String(e.message ?? e);
  setPhase('loading', `could not start: ${state.error}`);
  $('status').classList.add('error');
}
