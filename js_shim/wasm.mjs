// WebAssembly handles for jaxweb's wasm device, driven from Python in Pyodide.
//
// Python generates the Wasm bytes and owns every decision (layout, allocation,
// which export to call with which offsets); this module only holds the JS
// objects Python cannot: memories, compiled modules and instances. They live
// in tables and cross the boundary as small ints, so a kernel call from Python
// is one FFI call with int arguments. No numerics here.

const memories = [null];   // id 0 is never valid: a 0 handle from Python is a bug
const modules = [null];
const instances = [null];

function put(table, obj) {
  table.push(obj);
  return table.length - 1;
}

function get(table, id, what) {
  const obj = table[id];
  if (obj == null) throw new RangeError(`jaxweb wasm shim: no ${what} with handle ${id}`);
  return obj;
}

/** Whether memories can be shared with Workers (needs crossOriginIsolated in a page). */
export function canShareMemory() {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  return typeof globalThis.crossOriginIsolated === 'boolean' ? globalThis.crossOriginIsolated : true;
}

/** A new linear memory of `initial` 64 KiB pages (growable to `maximum`). */
export function createMemory(initial, maximum, shared) {
  const desc = { initial, maximum };
  if (shared && canShareMemory()) desc.shared = true;
  return put(memories, new WebAssembly.Memory(desc));
}

/**
 * Grow by `delta` pages; returns the previous size in pages, or -1 when the
 * engine refuses (past the maximum, or out of memory: a RangeError). The memory
 * is then unchanged and still usable, so Python raises a recoverable error.
 */
export function growMemory(mem, delta) {
  const memory = get(memories, mem, 'memory');
  try {
    return memory.grow(delta);
  } catch (e) {
    if (e instanceof RangeError) return -1;
    throw e;
  }
}

export function memoryPages(mem) {
  return get(memories, mem, 'memory').buffer.byteLength >>> 16;
}

export function memoryBytes(mem) {
  return get(memories, mem, 'memory').buffer.byteLength;
}

export function isShared(mem) {
  const buf = get(memories, mem, 'memory').buffer;
  return typeof SharedArrayBuffer !== 'undefined' && buf instanceof SharedArrayBuffer;
}

/** Compile Wasm bytes (a Uint8Array) synchronously; returns a module handle. */
export function compile(bytes) {
  return put(modules, new WebAssembly.Module(bytes));
}

/** Same, without blocking the page's main thread on large modules. */
export async function compileAsync(bytes) {
  return put(modules, await WebAssembly.compile(bytes));
}

/** Imports a kernel module may declare: the memory, and Math's functions. */
function importsFor(module, memory) {
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    let value;
    if (imp.kind === 'memory') value = memory;
    else if (imp.kind === 'function' && typeof Math[imp.name] === 'function') value = Math[imp.name];
    else throw new TypeError(`jaxweb wasm shim: cannot satisfy import ${imp.module}.${imp.name} (${imp.kind})`);
    (imports[imp.module] ??= {})[imp.name] = value;
  }
  return imports;
}

/** Instantiate a compiled module against memory `mem`; returns an instance handle. */
export function instantiate(mod, mem) {
  const module = get(modules, mod, 'module');
  const memory = mem ? get(memories, mem, 'memory') : undefined;
  return put(instances, new WebAssembly.Instance(module, importsFor(module, memory)));
}

/** Names of an instance's exported functions, for checks from Python. */
export function exportNames(inst) {
  return Object.keys(get(instances, inst, 'instance').exports);
}

/** Call export `name` with integer arguments; returns its (number) result or undefined. */
export function call(inst, name, ...args) {
  const fn = get(instances, inst, 'instance').exports[name];
  if (typeof fn !== 'function') throw new TypeError(`jaxweb wasm shim: no export ${name}`);
  return fn(...args);
}

/** The JS function of an export, for Python to call directly (saves a lookup per call). */
export function exportFunction(inst, name) {
  const fn = get(instances, inst, 'instance').exports[name];
  if (typeof fn !== 'function') throw new TypeError(`jaxweb wasm shim: no export ${name}`);
  return fn;
}

/**
 * Run a batch of kernel launches and copies in order: `src` (an Int32Array or a Python
 * buffer of int32) holds records [instance, nBounds, bounds..., nArgs, args...] —
 * nBounds = 0 is run(...args) here, otherwise callSplit(instance, bounds, ...args) —
 * or [0, memory, dst, src, nbytes] (a copy within a memory; offsets unsigned), or
 * [-1, memory, dst, nWords, words...] (int32 words written at dst). One call from Python
 * per schedule instead of one per kernel. `pre` (optional, same format): records run
 * first — the writes of a jitted call's scalar arguments, in the same call as its replay.
 */
let batchRecord = -1;  // the record runBatch was running when it threw (for Python's error note)

/** Index of the record the last failed runBatch stopped at. */
export function batchFailedAt() {
  return batchRecord;
}

export function runBatch(src, pre) {
  if (pre != null) runBatch(pre);
  const ints = typeof src?.getBuffer === 'function' ? src.getBuffer('i32') : null;
  const p = ints ? ints.data : src;
  batchRecord = 0;
  try {
    for (let i = 0; i < p.length; batchRecord++) {
      const inst = p[i], nb = p[i + 1];
      if (inst === 0) {
        copyWithin(nb, p[i + 2] >>> 0, p[i + 3] >>> 0, p[i + 4] >>> 0);
        i += 5;
        continue;
      }
      if (inst === -1) {
        const n = p[i + 3];
        new Int32Array(get(memories, nb, 'memory').buffer, p[i + 2] >>> 0, n).set(p.subarray(i + 4, i + 4 + n));
        i += 4 + n;
        continue;
      }
      const bounds = nb ? p.slice(i + 2, i + 2 + nb) : null;
      i += 2 + nb;
      const na = p[i];
      const args = Array.prototype.slice.call(p, i + 1, i + 1 + na);
      i += 1 + na;
      if (bounds) callSplit(inst, bounds, ...args);
      else get(instances, inst, 'instance').exports.run(...args);
    }
    batchRecord = -1;
  } finally {
    ints?.release();
  }
}

/** Whether the engine accepts these bytes (feature probes); never throws. */
export function validate(bytes) {
  try {
    return WebAssembly.validate(bytes);
  } catch {
    return false;
  }
}

/**
 * Bytes of `src`: a Uint8Array, or a Python buffer (bytes, bytearray, memoryview)
 * passed as a PyProxy, read in place from Pyodide's heap: one copy, not two.
 * Calls `use(u8)` and releases the view afterwards.
 */
function withBytes(src, use) {
  if (typeof src?.getBuffer !== 'function') return use(src);
  const view = src.getBuffer('u8');
  try {
    return use(view.data);
  } finally {
    view.release();
  }
}

/** Copy `src` (Uint8Array or Python buffer) into memory `mem` at byte `offset`. */
export function write(mem, offset, src) {
  const buffer = get(memories, mem, 'memory').buffer;
  withBytes(src, (u8) => new Uint8Array(buffer, offset, u8.length).set(u8));
}

/** Write int32 `words` at byte `offset` (a multiple of 4): a few bytes (a jitted call's scalar
 * argument) as int arguments, cheaper across Pyodide's FFI than a buffer. */
export function writeWords(mem, offset, ...words) {
  new Int32Array(get(memories, mem, 'memory').buffer, offset, words.length).set(words);
}

/** A copy of `nbytes` bytes of memory `mem` from `offset`, as a Uint8Array. */
export function read(mem, offset, nbytes) {
  return new Uint8Array(get(memories, mem, 'memory').buffer, offset, nbytes).slice();
}

/** Copy memory from `offset` into `dst` (a writable Python buffer or Uint8Array), filling it. */
export function readInto(mem, offset, dst) {
  const buffer = get(memories, mem, 'memory').buffer;
  withBytes(dst, (u8) => u8.set(new Uint8Array(buffer, offset, u8.length)));
}

/** Copy `nbytes` from one offset of a memory to another (memmove semantics). */
export function copyWithin(mem, dst, src, nbytes) {
  new Uint8Array(get(memories, mem, 'memory').buffer).copyWithin(dst, src, src + nbytes);
}

/** Fill `nbytes` at `offset` with the byte `value`. */
export function fill(mem, offset, nbytes, value) {
  new Uint8Array(get(memories, mem, 'memory').buffer, offset, nbytes).fill(value);
}

/** Drop a handle so the JS object can be collected. kind: 'memory'|'module'|'instance'. */
export function release(kind, id) {
  const table = { memory: memories, module: modules, instance: instances }[kind];
  if (table && id > 0 && id < table.length) table[id] = null;
}

// ---------------------------------------------------------------- thread pool
// Workers (wasm_worker.mjs) mirror every instance on the one shared Memory. A
// kernel launch over [0, total) writes its chunk bounds and int args into a
// shared control block, wakes the workers through Atomics, runs chunk 0 here
// and spins until all are done: no message and no promise per launch, so
// Python's call stays synchronous. Spinning (not Atomics.wait) is what a page's
// main thread is allowed to do.
const CTRL = { SEQ: 0, DONE: 1, INST: 2, NARGS: 3, ERR: 4, LOADED: 8, BOUNDS: 40, ARGS: 120, SIZE: 256 };
const MAX_WORKERS = 31;
const pool = { workers: [], ctrl: null, retired: null };

// A page's main thread may not Atomics.wait (it throws): it spins. Node's main
// thread and workers may: they sleep, which matters when cores are oversubscribed.
let mayBlock = null;

// A worker that never answers (crashed, terminated, or stuck in a kernel) must not
// hang the page: past this bound callSplit throws (Python adds the kernel's name), and
// the pool is retired: later kernels run whole on this thread, since a late worker's
// count would corrupt the next launch's.
let stallMs = 120000;

/** Change the stall bound (ms), e.g. for a page that prefers to fail sooner; returns the old one. */
export function setStallMs(ms) {
  const old = stallMs;
  stallMs = ms;
  return old;
}

/** Spin (or sleep where allowed) until `ready()`; false after `stallMs`. */
function waitUntil(ready, slot, value) {
  const t0 = Date.now();
  for (let i = 0; !ready(); i++) {
    if ((i & 0xfff) === 0 && Date.now() - t0 > stallMs) return false;
    if (mayBlock === null) {
      try {
        Atomics.wait(pool.ctrl, slot, Atomics.load(pool.ctrl, slot) + 1, 0);  // never equal: returns at once
        mayBlock = true;
      } catch {
        mayBlock = false;
      }
    }
    if (mayBlock) Atomics.wait(pool.ctrl, slot, value(), 5);
  }
  return true;
}

function retire(why) {
  pool.retired = why;
  console.error(`jaxweb wasm shim: ${why}; the thread pool is retired, kernels now run on one thread`);
  return new Error(`jaxweb wasm shim: ${why}`);
}

/** Whether a pool can run here: shared memory plus Atomics.waitAsync for the workers. */
export function canUseThreads() {
  const isNode = typeof process !== 'undefined' && !!process.versions?.node;
  return canShareMemory() && typeof Atomics.waitAsync === 'function' && (typeof Worker !== 'undefined' || isNode);
}

/**
 * Start `n` workers (the main thread is one more); resolves to the pool size. `workerURL`:
 * where wasm_worker.mjs is (a Blob or data: URL when the shim came out of the wheel).
 */
export async function startPool(n, workerURL = new URL('./wasm_worker.mjs', import.meta.url)) {
  if (pool.workers.length || n <= 0 || !canUseThreads()) return pool.workers.length;
  n = Math.min(n, MAX_WORKERS);
  pool.ctrl = new Int32Array(new SharedArrayBuffer(CTRL.SIZE * 4));
  const url = workerURL;
  const NodeWorker = typeof Worker === 'undefined' ? (await import('node:worker_threads')).Worker : null;
  const ready = [];
  for (let index = 0; index < n; index++) {
    const w = NodeWorker ? new NodeWorker(url) : new Worker(url, { type: 'module' });
    if (NodeWorker) w.unref();  // never keep a Node process alive
    ready.push(new Promise((resolve, reject) => {
      const onMsg = (m) => { if ((m.data ?? m).type === 'ready') resolve(); };
      if (NodeWorker) { w.on('message', onMsg); w.on('error', reject); } else { w.onmessage = onMsg; w.onerror = (e) => reject(new Error(e.message)); }
    }));
    w.postMessage({ type: 'init', ctrl: pool.ctrl, index });
    pool.workers.push(w);
  }
  await Promise.all(ready);
  return pool.workers.length;
}

export function poolSize() {
  return pool.workers.length;
}

/** Give the workers memory `mem` (shared); instances made after this run on it. */
export function poolAttachMemory(mem) {
  const memory = get(memories, mem, 'memory');
  if (!(memory.buffer instanceof SharedArrayBuffer)) throw new TypeError('jaxweb wasm shim: pool memory must be shared');
  for (const w of pool.workers) w.postMessage({ type: 'memory', mem, memory });
}

/** Drop instance `inst` in every worker (its module will not be called again). */
export function poolRelease(inst) {
  for (const w of pool.workers) w.postMessage({ type: 'release', handle: inst });
}

/** Instantiate module `mod` on memory `mem` in every worker, under the main thread's handle `inst`. */
export function poolInstantiate(mod, inst, mem) {
  const module = get(modules, mod, 'module');
  for (const w of pool.workers) w.postMessage({ type: 'instantiate', module, handle: inst, mem });
}

/**
 * run(start, end, ...args) of instance `inst` over chunks: `bounds` (Int32Array,
 * nWorkers + 2 entries, increasing) gives chunk i = [bounds[i], bounds[i+1]);
 * chunk 0 runs here, chunk i + 1 on worker i (an empty chunk for idle workers).
 */
export function callSplit(inst, bounds, ...args) {
  const c = pool.ctrl;
  const n = pool.workers.length;
  if (pool.retired) {
    get(instances, inst, 'instance').exports.run(bounds[0], bounds[bounds.length - 1], ...args);
    return;
  }
  for (let w = 0; w < n; w++) {  // each worker must have instantiated `inst` (messages are async)
    if (!waitUntil(() => Atomics.load(c, CTRL.LOADED + w) >= inst, CTRL.LOADED + w, () => Atomics.load(c, CTRL.LOADED + w))) {
      throw retire(`worker ${w} did not load module ${inst} in ${stallMs / 1000} s`);
    }
  }
  for (let i = 0; i <= n; i++) {
    const lo = i + 1 < bounds.length ? bounds[i] : 0;
    const hi = i + 1 < bounds.length ? bounds[i + 1] : 0;
    c[CTRL.BOUNDS + 2 * i] = lo;
    c[CTRL.BOUNDS + 2 * i + 1] = hi;
  }
  c[CTRL.INST] = inst;
  c[CTRL.NARGS] = args.length;
  for (let i = 0; i < args.length; i++) c[CTRL.ARGS + i] = args[i];
  Atomics.store(c, CTRL.ERR, 0);
  Atomics.store(c, CTRL.DONE, 0);
  Atomics.add(c, CTRL.SEQ, 1);
  Atomics.notify(c, CTRL.SEQ);
  let mainError = null;
  if (bounds[0] < bounds[1]) {
    try {
      get(instances, inst, 'instance').exports.run(bounds[0], bounds[1], ...args);
    } catch (e) {
      mainError = e;
    }
  }
  if (!waitUntil(() => Atomics.load(c, CTRL.DONE) >= n, CTRL.DONE, () => Atomics.load(c, CTRL.DONE))) {
    throw retire(`${n - Atomics.load(c, CTRL.DONE)} of ${n} worker(s) did not finish module ${inst}'s chunk in ${stallMs / 1000} s`);
  }
  if (mainError) throw mainError;
  const err = Atomics.load(c, CTRL.ERR);
  if (err) throw new Error(`jaxweb wasm shim: worker ${err - 1} trapped (see the console)`);
}

/** Terminate pool worker `index`: what a crashed worker looks like (diagnostics, tests). */
export function poolTerminateWorker(index) {
  pool.workers[index].terminate();
}
