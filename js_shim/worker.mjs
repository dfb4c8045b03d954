// jaxweb's page worker: Python (Pyodide + jaxweb) in a module Web Worker, so a page
// never freezes while Python loads or runs. Pages talk to it through
// python_worker.mjs (the client); the messages are listed in protocol.mjs.
//
// The worker runs one request at a time, in arrival order. stdout/stderr lines
// are posted as they are printed (Pyodide's batched writer calls us per line even
// while the cell still runs: postMessage does not wait for the event loop), and so
// is rich output (display/plot). Stop: the page writes 2 (SIGINT) into the shared
// interrupt buffer and Python raises KeyboardInterrupt at its next bytecode check.

import { loadJaxweb } from './jaxweb.mjs';
import { MSG } from './protocol.mjs';

let session = null;        // the Python Session (worker_runtime.py)
let pyodide = null;
let currentId = null;      // the request whose output is streaming now
let queue = Promise.resolve();

const post = (msg) => self.postMessage(msg);
const stream = (name) => (text) => post({ type: MSG.STREAM, id: currentId, name, text: text + '\n' });

async function fetchText(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot fetch ${url}: HTTP ${r.status}`);
  return r.text();
}

async function init(msg) {
  const t0 = performance.now();
  const runtimeSource = fetchText(new URL('./worker_runtime.py', import.meta.url).href);
  const stages = [];  // when each loading stage began (ms since the worker started loading)
  const jw = await loadJaxweb({
    ...(msg.options ?? {}),
    onProgress: (fraction, message) => {
      stages.push([message, Math.round(performance.now() - t0)]);
      post({ type: MSG.PROGRESS, fraction, message });
    },
    loadPyodideOptions: { stdout: stream('stdout'), stderr: stream('stderr') },
  });
  pyodide = jw.pyodide;
  if (msg.interruptBuffer) pyodide.setInterruptBuffer(msg.interruptBuffer);
  pyodide.FS.mkdirTree('/jaxweb_worker');
  pyodide.FS.writeFile('/jaxweb_worker/_jaxweb_worker.py', await runtimeSource);
  pyodide.registerJsModule('_jaxweb_page', {
    emit: (kind, payload) => post({ type: MSG.DISPLAY, id: currentId, kind, payload: JSON.parse(payload) }),
  });
  const info = JSON.parse(await pyodide.runPythonAsync(`
import sys, json
sys.path.insert(0, "/jaxweb_worker")
import _jaxweb_worker, _jaxweb_page
_jaxweb_worker.emit = _jaxweb_page.emit
_jaxweb_session = _jaxweb_worker.Session()
json.dumps({"devices": _jaxweb_worker.device_names(), "default": _jaxweb_worker.default_device_name()})
`));
  session = pyodide.globals.get('_jaxweb_session');
  stages.push(['devices listed', Math.round(performance.now() - t0)]);
  return {
    stages,
    ...info,
    pyodide: pyodide.version,
    host: jw.host,
    interrupt: !!msg.interruptBuffer,
    loadMs: performance.now() - t0,
  };
}

async function run(msg) {
  currentId = msg.id;
  try {
    if (msg.vars) session.set_vars(JSON.stringify(msg.vars));
    const text = await session.run_cell(msg.code, msg.device ?? null, !!msg.json, msg.cell ?? null);
    return JSON.parse(text);
  } finally {
    currentId = null;
  }
}

const HANDLERS = { [MSG.INIT]: init, [MSG.RUN]: run };

self.onmessage = (ev) => {
  const msg = ev.data;
  const handler = HANDLERS[msg.type];
  queue = queue.then(async () => {
    if (!handler) {
      post({ type: MSG.REPLY, id: msg.id, ok: false, error: `unknown message type ${msg.type}` });
      return;
    }
    try {
      post({ type: MSG.REPLY, id: msg.id, ok: true, value: await handler(msg) });
    } catch (e) {
      post({ type: MSG.REPLY, id: msg.id, ok: false, error: String(e?.message ?? e) });
    }
  });
};
