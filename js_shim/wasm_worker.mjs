// A worker of the wasm thread pool (see wasm.mjs: startPool / callSplit).
//
// It mirrors the main thread's instances on the same shared Memory and runs
// chunks [start, end) of a kernel's outermost loop when the main thread posts a
// job in the shared control block. Jobs go through Atomics (no message per
// kernel launch); modules and the memory arrive as messages, in order. The
// worker waits with Atomics.waitAsync so its event loop stays free for them.
// Same file for browsers (module Worker) and Node (worker_threads).

const port = typeof self !== 'undefined' && typeof self.postMessage === 'function'
  ? self : (await import('node:worker_threads')).parentPort;

const runs = [];       // instance handle -> exported `run`, as on the main thread
const memories = new Map();  // the main thread's memory handle -> the same shared Memory
let ctrl = null;
let index = -1;

// Control block layout (Int32 slots), shared with wasm.mjs.
const SEQ = 0, DONE = 1, INST = 2, NARGS = 3, ERR = 4, LOADED = 8, BOUNDS = 40, ARGS = 120;

function onMessage(msg) {
  if (msg.type === 'init') {
    ({ ctrl, index } = msg);
    watch(0);
    port.postMessage({ type: 'ready', index });
  } else if (msg.type === 'memory') {
    memories.set(msg.mem, msg.memory);
  } else if (msg.type === 'instantiate') {
    const imports = {};
    for (const imp of WebAssembly.Module.imports(msg.module)) {
      const value = imp.kind === 'memory' ? memories.get(msg.mem) : Math[imp.name];
      (imports[imp.module] ??= {})[imp.name] = value;
    }
    try {
      runs[msg.handle] = new WebAssembly.Instance(msg.module, imports).exports.run;
    } catch (e) {  // the main thread must not wait for this module: its chunks trap instead
      const why = e.message;
      runs[msg.handle] = () => { throw new Error(`module ${msg.handle} failed to instantiate here: ${why}`); };
    }
    Atomics.store(ctrl, LOADED + index, msg.handle);
    Atomics.notify(ctrl, LOADED + index);  // a main thread that may block (Node) sleeps on it
  } else if (msg.type === 'release') {
    runs[msg.handle] = undefined;
  }
}

/** Wait (without blocking the event loop) for the next job after generation `seen`. */
function watch(seen) {
  const w = Atomics.waitAsync(ctrl, SEQ, seen);
  const next = () => {
    const seq = Atomics.load(ctrl, SEQ);
    work();
    watch(seq);
  };
  if (w.async) w.value.then(next); else next();
}

function work() {
  const start = Atomics.load(ctrl, BOUNDS + 2 * (index + 1));
  const end = Atomics.load(ctrl, BOUNDS + 2 * (index + 1) + 1);
  if (start < end) {
    const args = [];
    for (let i = 0, n = Atomics.load(ctrl, NARGS); i < n; i++) args.push(Atomics.load(ctrl, ARGS + i));
    try {
      runs[Atomics.load(ctrl, INST)](start, end, ...args);
    } catch (e) {
      console.error(`jaxweb wasm worker ${index}: ${e.message}`);
      Atomics.store(ctrl, ERR, index + 1);
    }
  }
  Atomics.add(ctrl, DONE, 1);
  Atomics.notify(ctrl, DONE);  // a main thread that may block (Node) sleeps on DONE
}

if (typeof port.on === 'function') port.on('message', onMessage);
else port.onmessage = (ev) => onMessage(ev.data);
