// The messages between a page (python_worker.mjs) and jaxweb's worker (worker.mjs).
//
// page -> worker (each has an `id`; the worker answers each with one REPLY):
//   {type: 'init', id, options, interruptBuffer?}   load Pyodide + jaxweb; options go to
//        loadJaxweb; interruptBuffer is a Uint8Array over a SharedArrayBuffer (Stop)
//        REPLY value: {devices, default, pyodide, host, interrupt, loadMs, stages}
//   {type: 'run', id, code, device?, json?, vars?, cell?}  run a cell in the shared namespace
//        (vars: a JSON object whose keys are bound as Python names first; cell: the
//        page's number for it, used in tracebacks)
//        REPLY value: {ok, cell, repr, json?, device, ms, error?: {type, message, text,
//        frames, hidden, full}}  (worker_runtime.py's Session.run_cell)
// worker -> page, while working:
//   {type: 'progress', fraction, message}            loading stages (0..1)
//   {type: 'stream', id, name: 'stdout'|'stderr', text}   printed output, line by line
//   {type: 'display', id, kind: 'image'|'plot'|'text', payload}   rich output
//   {type: 'reply', id, ok, value?, error?}          the request `id` is done
// Only plain data crosses: JSON-like objects and typed arrays.

export const MSG = Object.freeze({
  INIT: 'init',
  RUN: 'run',
  PROGRESS: 'progress',
  STREAM: 'stream',
  DISPLAY: 'display',
  REPLY: 'reply',
});

/** Pyodide's interrupt buffer value for SIGINT (raises KeyboardInterrupt in Python). */
export const SIGINT = 2;
