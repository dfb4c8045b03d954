// The REPL page: an editor, a transcript of cells, history, examples, share-as-URL.
// Python runs in a worker (PythonWorker): the page stays responsive, output streams,
// and Stop interrupts. Each cell is rendered as it runs; tests read the DOM.

import { EditorView, basicSetup, keymap, EditorState, Prec, indentWithTab, python,
  syntaxHighlighting, defaultHighlightStyle } from '/vendor/codemirror.mjs';
import { startPython, fillDevices } from '/shared/boot.mjs';
import { renderDisplay } from '/shared/rich.mjs';
import { EXAMPLES } from './examples.mjs';

const $ = (id) => document.getElementById(id);
const HISTORY_KEY = 'jaxweb-repl-history';
const HISTORY_MAX = 200;

// ---------------------------------------------------------------- history
const cellHistory = {
  items: JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]'),
  pos: null,      // index being shown, null = the draft
  draft: '',
  push(code) {
    if (code.trim() && this.items.at(-1) !== code) this.items.push(code);
    this.items = this.items.slice(-HISTORY_MAX);
    localStorage.setItem(HISTORY_KEY, JSON.stringify(this.items));
    this.pos = null;
  },
  /** The entry `delta` steps away (-1 older, +1 newer), or null at either end. */
  move(delta, current) {
    if (!this.items.length) return null;
    if (this.pos === null) {
      if (delta > 0) return null;
      this.draft = current;
      this.pos = this.items.length - 1;
    } else {
      const next = this.pos + delta;
      if (next < 0) return null;
      if (next >= this.items.length) {
        this.pos = null;
        return this.draft;
      }
      this.pos = next;
    }
    return this.items[this.pos];
  },
};

// ---------------------------------------------------------------- share
const encode = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)))
  .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const decode = (b64) => new TextDecoder().decode(Uint8Array.from(
  atob(b64.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));

function sharedCode() {
  const m = location.hash.match(/^#code=([A-Za-z0-9_-]*)$/);
  if (!m) return null;
  try { return decode(m[1]); } catch { return null; }
}

// ---------------------------------------------------------------- editor
let running = false;

function setDoc(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text },
    selection: { anchor: text.length } });
}

const atFirstLine = (s) => s.doc.lineAt(s.selection.main.head).number === 1;
const atLastLine = (s) => s.doc.lineAt(s.selection.main.head).number === s.doc.lines;

function historyKey(delta, edge) {
  return (view) => {
    if (!edge(view.state)) return false;  // inside the text: move the cursor as usual
    const entry = cellHistory.move(delta, view.state.doc.toString());
    if (entry === null) return false;
    setDoc(view, entry);
    return true;
  };
}

const editor = new EditorView({
  parent: $('editor'),
  doc: sharedCode() ?? EXAMPLES[0][1],
  extensions: [
    Prec.highest(keymap.of([
      { key: 'Shift-Enter', run: () => { runEditor(); return true; } },
      { key: 'Mod-Enter', run: () => { runEditor(); return true; } },
      { key: 'ArrowUp', run: historyKey(-1, atFirstLine) },
      { key: 'ArrowDown', run: historyKey(+1, atLastLine) },
    ])),
    basicSetup,
    keymap.of([indentWithTab]),
    python(),
  ],
});
editor.focus();

// ---------------------------------------------------------------- cells
let cellCount = 0;

function readOnlyCode(text) {
  const el = document.createElement('div');
  el.className = 'input';
  new EditorView({ parent: el, doc: text, extensions: [python(), syntaxHighlighting(defaultHighlightStyle),
    EditorState.readOnly.of(true), EditorView.editable.of(false)] });
  return el;
}

function newCell(code) {
  const cell = document.createElement('div');
  cell.className = 'cell running';
  cell.dataset.cell = String(++cellCount);
  const label = document.createElement('div');
  label.className = 'label';
  label.textContent = `In [${cellCount}]`;
  cell.append(label, readOnlyCode(code));
  $('transcript').append(cell);
  return cell;
}

function appendStream(cell, name, text) {
  let last = cell.lastElementChild;
  if (!last?.classList.contains('stream') || !last.classList.contains(name)) {
    last = document.createElement('pre');
    last.className = `stream ${name}`;
    cell.append(last);
  }
  last.textContent += text;
}

function finishCell(cell, r) {
  cell.classList.remove('running');
  const meta = document.createElement('div');
  meta.className = 'label';
  const where = r.device ? ` · ${r.device}` : '';
  const ms = r.ms !== undefined ? ` · ${r.ms < 1000 ? `${r.ms.toFixed(0)} ms` : `${(r.ms / 1000).toFixed(2)} s`}` : '';
  if (r.ok) {
    if (r.repr !== null && r.repr !== undefined) {
      const out = document.createElement('pre');
      out.className = 'out';
      out.textContent = r.repr;
      meta.textContent = `Out [${cell.dataset.cell}]${where}${ms}`;
      cell.append(meta, out);
    } else {
      meta.textContent = `done${where}${ms}`;
      cell.append(meta);
    }
    return;
  }
  cell.classList.add('failed');
  const err = document.createElement('pre');
  err.className = 'err';
  err.textContent = r.error.text;
  cell.append(err);
  if (r.error.full && r.error.hidden) {
    const d = document.createElement('details');
    d.innerHTML = '<summary>full traceback</summary>';
    const pre = document.createElement('pre');
    pre.textContent = r.error.full;
    d.append(pre);
    cell.append(d);
  }
  meta.textContent = `${r.error.type}${where}${ms}`;
  cell.append(meta);
}

// ---------------------------------------------------------------- running
// The editor works while Python loads: a cell run before then waits for it.
let py = null;
const pyReady = startPython({ loadingBox: $('loading') }).then((started) => {
  py = started.py;
  fillDevices($('device'), started.info);
  return started.py;
});
pyReady.catch(() => {});  // the loading box shows the error; cells run later show it too

function setRunning(on) {
  running = on;
  $('run').disabled = on;
  $('stop').disabled = !on || !py;
  $('status').textContent = on ? (py ? 'running…' : 'waiting for Python to load…') : '';
}

async function runEditor() {
  const code = editor.state.doc.toString();
  if (running || !code.trim()) return;
  cellHistory.push(code);
  setDoc(editor, '');
  await runCode(code);
}

/** Run `code` as a new cell; resolves to the worker's result (tests call window.__repl.run). */
async function runCode(code) {
  const cell = newCell(code);
  cell.scrollIntoView({ block: 'nearest' });
  setRunning(true);
  try {
    const r = await (await pyReady).run(code, {
      device: $('device').value || undefined,
      cell: Number(cell.dataset.cell),
      onStream: (name, text) => appendStream(cell, name, text),
      onDisplay: (kind, payload) => cell.append(renderDisplay(kind, payload)),
    });
    finishCell(cell, r);
    return r;
  } catch (e) {
    finishCell(cell, { ok: false, error: { type: 'Error', text: String(e.message ?? e) } });
    return { ok: false, error: { text: String(e.message ?? e) } };
  } finally {
    setRunning(false);
    window.scrollTo({ top: document.body.scrollHeight });  // the newest output, just above the prompt
  }
}

function stop() {
  const r = py.interrupt();
  if (r.restarted) {
    $('status').textContent = 'restarting Python…';
    r.ready.then((info) => { fillDevices($('device'), info); $('status').textContent = 'Python restarted'; });
  }
}

// ---------------------------------------------------------------- toolbar
for (const [name] of EXAMPLES) {
  const opt = document.createElement('option');
  opt.value = name;
  opt.textContent = name;
  $('examples').append(opt);
}
$('examples').onchange = () => {
  const ex = EXAMPLES.find(([name]) => name === $('examples').value);
  if (ex) setDoc(editor, ex[1]);
  $('examples').value = '';
  editor.focus();
};
$('run').onclick = runEditor;
$('stop').onclick = stop;
$('clear').onclick = () => $('transcript').replaceChildren();
$('share').onclick = async () => {
  const url = `${location.origin}${location.pathname}#code=${encode(editor.state.doc.toString())}`;
  window.history.replaceState(null, '', url);
  try {
    await navigator.clipboard.writeText(url);
    $('status').textContent = 'link copied';
  } catch {
    $('status').textContent = 'link in the address bar';
  }
};
pyReady.then(() => { if (running) setRunning(true); });  // enables Stop for a waiting cell
setRunning(false);
window.__repl = { run: runCode, stop, editor: () => editor.state.doc.toString(), running: () => running };
