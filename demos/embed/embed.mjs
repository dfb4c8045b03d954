// The /embed/ page: loads MiniLM (minilm.py, search.py) in the Python worker, embeds the corpus,
// then answers the query box as you type (the latest text wins; one query runs at a time).
// Tests and benchmarks read window.__embed (phase, stats, results, loadMs, error; call runs Python).

import { EditorView, EditorState, basicSetup, python } from '/vendor/codemirror.mjs';
import { startPython, fillDevices } from '/shared/boot.mjs';

const $ = (id) => document.getElementById(id);
const MODEL_URL = '/models/minilm/';
const params = new URLSearchParams(location.search);
const FIRST_QUERY = params.get('q') ?? 'a pet sleeping in the sun';

const state = { phase: 'loading', stats: null, results: null, query: null, loadMs: null, queryMs: [],
  download: null, error: null, call: (code, vars) => call(code, vars) };
window.__embed = state;

// ---------------------------------------------------------------- static parts
async function showSource() {
  const text = await (await fetch('./minilm.py')).text();
  new EditorView({ parent: $('source'), doc: text,
    extensions: [basicSetup, python(), EditorState.readOnly.of(true), EditorView.editable.of(false)] });
}

async function showCorpus() {
  const lines = (await (await fetch('./corpus.txt')).text()).split('\n').filter((s) => s.trim());
  $('corpus').replaceChildren(...lines.map((s) => Object.assign(document.createElement('li'), { textContent: s })));
  $('n-corpus').textContent = $('n-corpus2').textContent = String(lines.length);
}

function setPhase(phase, message = '') {
  state.phase = phase;
  const ready = phase === 'ready';
  $('query').disabled = !ready && phase !== 'querying';
  $('device').disabled = $('dtype').disabled = !ready;
  $('status').textContent = message || { ready: 'ready: type a query', querying: 'searching…' }[phase] || '';
}

// ---------------------------------------------------------------- python calls
let py = null;

async function call(code, vars, onDisplay) {
  const r = await py.run(code, { json: true, vars, onDisplay });
  if (!r.ok) throw Object.assign(new Error(r.error.text), { pyError: r.error });
  return r.json;
}

function showDownload(d) {
  state.download = d;
  const box = $('download');
  const mb = (n) => (n / 1e6).toFixed(1);
  box.querySelector('progress').value = d.total ? d.done / d.total : 0;
  box.querySelector('.stage').textContent = `model weights: ${mb(d.done)}${d.total ? ` of ${mb(d.total)}` : ''} MB`
    + ` (${d.s.toFixed(1)} s)`;
  if (d.total && d.done >= d.total) box.classList.add('done');
}

async function loadModel() {
  setPhase('busy', 'loading the model…');
  $('download').querySelector('.stage').textContent = 'model weights: starting the download…';
  await call(`import json, _jaxweb_worker
await _jaxweb_worker.import_url("/embed/wordpiece.py", "wordpiece")
await _jaxweb_worker.import_url("/embed/minilm.py", "minilm")
embed_search = await _jaxweb_worker.import_url("/embed/search.py", "embed_search")
S = await embed_search.load_page(MODEL_URL, "/embed/corpus.txt",
                                 lambda kind, value: _jaxweb_worker.emit(kind, json.dumps(value)))
None`, { MODEL_URL }, (kind, payload) => { if (kind === 'download') showDownload(payload); });
  $('download').classList.add('done');
}

async function useDevice() {
  const device = $('device').value, dtype = $('dtype').value;
  setPhase('busy', `embedding the corpus on ${device} (${dtype} weights)…`);
  $('results').replaceChildren();
  const s = await call('S.use(DEVICE, DTYPE)', { DEVICE: device, DTYPE: dtype });
  state.stats = s;
  $('s-device').textContent = `${s.device} · ${s.dtype}`;
  $('s-sps').textContent = s.sentences_per_s.toFixed(1);
  setPhase('ready');
  await search($('query').value);
}

// ---------------------------------------------------------------- queries
let running = false, pending = null;

async function search(text) {
  if (running) { pending = text; return; }
  if (!text.trim()) { $('results').replaceChildren(); return; }
  running = true;
  try {
    const r = await call('S.query(Q, 8)', { Q: text });
    state.results = r.results;
    state.query = text;
    state.queryMs.push(r.ms);
    if (state.loadMs === null) {
      state.loadMs = performance.now();
      $('s-load').textContent = `${(state.loadMs / 1000).toFixed(1)} s`;
    }
    $('s-ms').textContent = r.ms.toFixed(1);
    showResults(r.results);
  } catch (e) {
    state.error = e.message;
    $('status').textContent = e.message.split('\n')[0];
  } finally {
    running = false;
    if (pending !== null) { const next = pending; pending = null; search(next); }
  }
}

function showResults(results) {
  $('results').replaceChildren(...results.map(([, sentence, score]) => {
    const li = document.createElement('li');
    const num = Object.assign(document.createElement('span'), { className: 'score', textContent: score.toFixed(3) });
    const track = Object.assign(document.createElement('div'), { className: 'track' });
    const bar = Object.assign(document.createElement('div'), { className: 'bar' });
    bar.style.width = `${Math.max(0, score) * 100}%`;
    track.append(bar);
    li.append(num, track, Object.assign(document.createElement('span'), { className: 'text', textContent: sentence }));
    return li;
  }));
}

// ---------------------------------------------------------------- wiring
$('query').value = FIRST_QUERY;
$('query').addEventListener('input', () => search($('query').value));
$('device').onchange = $('dtype').onchange = () => useDevice().catch(fail);

function fail(e) {
  state.error = String(e.message ?? e);
  setPhase('failed', `failed: ${state.error.split('\n')[0]}`);
  $('status').classList.add('error');
}

setPhase('loading', 'loading Python…');
try {
  const staticParts = Promise.all([showSource(), showCorpus()]);
  const started = await startPython({ loadingBox: $('loading') });
  py = started.py;
  fillDevices($('device'), started.info);
  if (params.get('device')) $('device').value = params.get('device');
  if (params.get('dtype')) $('dtype').value = params.get('dtype');
  await loadModel();
  await staticParts;
  await useDevice();
} catch (e) {
  fail(e);
}
