// A page's handle on jaxweb running in a Web Worker (worker.mjs).
//
//   import { PythonWorker } from '/js_shim/python_worker.mjs';
//   const py = new PythonWorker({ onProgress: (f, msg) => ..., onStream: (name, text, id) => ... });
//   const info = await py.ready;                 // {devices, default, pyodide, host, ...}
//   const r = await py.run('jnp.arange(3) * 2'); // r.repr == 'Array([0, 2, 4], dtype=int32)'
//   py.interrupt();                              // Stop
//
// Stop uses Pyodide's interrupt buffer when the page is crossOriginIsolated (a
// SharedArrayBuffer the worker polls between bytecodes: the namespace survives).
// Otherwise the only way to stop a busy worker is to terminate it: a new one is
// started, pending runs reject with {type: 'KeyboardInterrupt', restarted: true},
// and `restarted` (a promise) resolves when the new worker is ready.

import { MSG, SIGINT } from './protocol.mjs';

export class PythonWorker {
  constructor({ onProgress = () => {}, onStream = () => {}, onDisplay = () => {}, options = {} } = {}) {
    this.onProgress = onProgress;
    this.onStream = onStream;
    this.onDisplay = onDisplay;
    this.options = options;
    this.canInterrupt = typeof SharedArrayBuffer !== 'undefined' && !!globalThis.crossOriginIsolated;
    this._start();
  }

  _start() {
    this._nextId = 1;
    this._pending = new Map();
    this._interrupt = this.canInterrupt ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    this.worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev) => this._receive(ev.data);
    this.worker.onerror = (ev) => {
      const err = new Error(`jaxweb worker failed: ${ev.message ?? 'load error'}`);
      for (const p of this._pending.values()) p.reject(err);
      this._pending.clear();
    };
    this.info = null;
    this.ready = this._request({ type: MSG.INIT, options: this.options, interruptBuffer: this._interrupt })
      .then((info) => { this.info = info; return info; });
  }

  _request(msg, handlers = {}) {
    const id = this._nextId++;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject, ...handlers });
      this.worker.postMessage({ ...msg, id });
    });
  }

  _receive(msg) {
    const p = this._pending.get(msg.id);
    switch (msg.type) {
      case MSG.PROGRESS:
        this.onProgress(msg.fraction, msg.message);
        break;
      case MSG.STREAM:
        (p?.onStream ?? this.onStream)(msg.name, msg.text, msg.id);
        break;
      case MSG.DISPLAY:
        (p?.onDisplay ?? this.onDisplay)(msg.kind, msg.payload, msg.id);
        break;
      case MSG.REPLY:
        if (!p) return;
        this._pending.delete(msg.id);
        if (msg.ok) p.resolve(msg.value);
        else p.reject(new Error(msg.error));
        break;
      default:
        console.warn('jaxweb worker: unknown message', msg);
    }
  }

  /**
   * Run a cell. opts: device (platform name), json (also return the last value as
   * JSON in `.json`), vars (names to bind first, from JSON-able values), cell (the
   * number tracebacks give this cell),
   * onStream(name, text), onDisplay(kind, payload) for this cell.
   */
  async run(code, opts = {}) {
    await this.ready;
    if (this._interrupt) this._interrupt[0] = 0;  // a Stop pressed while idle must not hit the next cell
    const { onStream, onDisplay, device, json, vars, cell } = opts;
    return this._request({ type: MSG.RUN, code, device, json, vars, cell }, { onStream, onDisplay });
  }

  /** Stop the running cell (KeyboardInterrupt), or restart the worker when it cannot be signalled. */
  interrupt() {
    if (this._interrupt) {
      this._interrupt[0] = SIGINT;
      return { restarted: false };
    }
    this.worker.terminate();
    const stale = [...this._pending.values()];
    this._start();
    for (const p of stale) {
      p.resolve({ ok: false, error: { type: 'KeyboardInterrupt', message: 'worker restarted',
        text: 'KeyboardInterrupt: the worker was restarted (this page is not crossOriginIsolated, so '
          + 'running code can only be stopped this way); variables are lost', restarted: true } });
    }
    return { restarted: true, ready: this.ready };
  }

  terminate() {
    this.worker.terminate();
  }
}
