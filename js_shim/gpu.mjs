// WebGPU handles for jaxweb's webgpu device, driven from Python in Pyodide.
//
// Building WebGPU descriptor objects from Python through the FFI costs ~50-75 µs
// per dispatch; calling a JS function with ints costs ~1 µs. So Python hands
// over ints, strings (WGSL) and typed arrays only, and a whole batch of work as
// one command list (an Int32Array) executed with one queue.submit. GPU objects
// live in tables here and cross the boundary as small ints. No numerics here.

let adapter = null;
let device = null;
let lastError = null;
let generation = 0;      // +1 per device made (after a loss, init makes a new one)
const losses = {};       // generation -> why that device was lost
const buffers = [null];    // id 0 is never valid
const pipelines = [null];
const bindGroups = [null];

function put(table, obj) {
  table.push(obj);
  return table.length - 1;
}

function get(table, id, what) {
  const obj = table[id];
  if (obj == null) throw new RangeError(`jaxweb gpu shim: no ${what} with handle ${id}`);
  return obj;
}

function need() {
  if (!device) throw new Error('jaxweb gpu shim: call init() first');
  return device;
}

/** Whether this host exposes WebGPU at all (navigator.gpu). */
export function available() {
  return typeof navigator !== 'undefined' && !!navigator.gpu;
}

const WANTED_FEATURES = ['shader-f16', 'subgroups', 'timestamp-query'];

/**
 * Request an adapter and a device with the adapter's full limits (once: later calls
 * return the same description and keep the same device).
 * Resolves to a JSON string describing them (null when there is no adapter),
 * which Python parses: one crossing instead of a walk over JS objects.
 */
let initPromise = null;  // the device made first, or being made: init is idempotent
let adapterFound = null;  // whether that init's adapter request found one (true/false)

export function init(powerPreference = 'high-performance', adapterName = '') {
  // Every caller shares one device (handles stay valid), also while it is still being
  // made: the loader starts it while Pyodide boots, Python's webgpu device awaits it.
  // No adapter is not remembered: a later call asks again.
  if (!initPromise) {
    let found;
    adapterFound = new Promise((resolve) => { found = resolve; });
    initPromise = makeDevice(powerPreference, adapterName, found).then((info) => {
      if (info === null) initPromise = null;
      return info;
    }, (e) => {
      initPromise = null;
      throw e;
    });
  }
  return initPromise;
}

/**
 * Whether WebGPU has an adapter here: starts `init` (if no one has) and answers once the
 * adapter request does, without waiting for the device, which goes on being made.
 */
export function hasAdapter() {
  init().catch(() => {});  // a failed device is reported to whoever awaits init()
  return adapterFound;
}

async function makeDevice(powerPreference, adapterName, found) {
  try {
    if (!available()) return null;
    const opts = { powerPreference };
    if (adapterName === 'fallback') opts.forceFallbackAdapter = true;
    adapter = await navigator.gpu.requestAdapter(opts);
    found(!!adapter);
  } finally {
    found(false);  // no adapter, or the request failed (a no-op once found)
  }
  if (!adapter) return null;
  const features = WANTED_FEATURES.filter((f) => adapter.features.has(f));
  const requiredLimits = {};
  for (const key in adapter.limits) {
    if (typeof adapter.limits[key] === 'number') requiredLimits[key] = adapter.limits[key];
  }
  device = await adapter.requestDevice({ requiredFeatures: features, requiredLimits });
  device.addEventListener?.('uncapturederror', (ev) => { lastError = String(ev.error?.message ?? ev.error); });
  const made = device;
  const gen = ++generation;
  stagingFree.length = 0;  // staging buffers of a lost device are useless
  made.lost?.then((info) => {
    losses[gen] = `${info.reason ?? 'unknown'}: ${info.message || 'no message'}`;
    console.warn(`jaxweb: WebGPU device lost (${losses[gen]})`);
    if (device === made) initPromise = null;  // the next init() makes a new device
  });
  const info = adapter.info ?? {};
  const limits = {};
  for (const key in device.limits) {
    if (typeof device.limits[key] === 'number') limits[key] = device.limits[key];
  }
  return JSON.stringify({
    vendor: info.vendor ?? '', architecture: info.architecture ?? '',
    device: info.device ?? '', description: info.description ?? '',
    isFallbackAdapter: !!(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
    features: [...device.features], limits,
  });
}

/** The number of the current device (each backend remembers the one it was made with). */
export function deviceGeneration() {
  return generation;
}

/** Why device number `gen` was lost ('' while it works). */
export function lostReason(gen) {
  return losses[gen] ?? '';
}

/** Destroy the device (giving the GPU back; a real loss, which is how tests make one). */
export function destroyDevice() {
  device?.destroy();
}

/** The last uncaptured device error message, then cleared ('' if none). */
export function takeError() {
  const e = lastError ?? '';
  lastError = null;
  return e;
}

// Usage bits are WebGPU's numbers (GPUBufferUsage), so Python passes plain ints.
export function createBuffer(size, usage) {
  const u = usage || (GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST);
  return put(buffers, need().createBuffer({ size: Math.max(4, (size + 3) & ~3), usage: u }));
}

export function destroyBuffer(id) {
  if (buffers[id]) {
    buffers[id].destroy();
    buffers[id] = null;
  }
}

/**
 * Queue a write of `data` (length a multiple of 4) at `offset`: a Uint8Array, or a
 * Python buffer passed as a PyProxy, read in place from Pyodide's heap (one copy).
 */
export function writeBuffer(id, offset, data) {
  const target = get(buffers, id, 'buffer');
  const q = need().queue;
  if (typeof data?.getBuffer !== 'function') {
    q.writeBuffer(target, offset, data);
    return;
  }
  const view = data.getBuffer('u8');
  try {
    q.writeBuffer(target, offset, view.data);
  } finally {
    view.release();
  }
}

/** A compute pipeline from WGSL text (layout 'auto'); errors surface in takeError(). */
export function createPipeline(code, entryPoint = 'main') {
  const d = need();
  const module = d.createShaderModule({ code });
  return put(pipelines, d.createComputePipeline({ layout: 'auto', compute: { module, entryPoint } }));
}

/** Same, but the promise rejects with the compiler's message on bad WGSL. */
export async function createPipelineAsync(code, entryPoint = 'main') {
  const d = need();
  d.pushErrorScope('validation');  // a rejected shader throws here, not later as an uncaptured error
  const module = d.createShaderModule({ code });
  const scoped = d.popErrorScope();
  const info = await module.getCompilationInfo?.();
  const errors = (info?.messages ?? []).filter((m) => m.type === 'error');
  if (errors.length) {
    throw new Error(errors.map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`).join('\n'));
  }
  const invalid = await scoped;
  if (invalid) throw new Error(invalid.message);
  return put(pipelines, await d.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint } }));
}

/** Bind buffers `ids` (Int32Array) to bindings 0..n-1 of group 0 of a pipeline. */
export function createBindGroup(pipelineId, ids) {
  const pipeline = get(pipelines, pipelineId, 'pipeline');
  const entries = Array.from(ids, (id, binding) => ({ binding, resource: { buffer: get(buffers, id, 'buffer') } }));
  return put(bindGroups, need().createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }));
}

export function release(kind, id) {
  const table = { pipeline: pipelines, bindGroup: bindGroups }[kind];
  if (table && id > 0 && id < table.length) table[id] = null;
}

// Command list opcodes, each followed by its int operands:
export const OP = Object.freeze({
  DISPATCH: 1,   // pipeline, bindGroup, x, y, z
  COPY: 2,       // srcBuffer, srcOffset, dstBuffer, dstOffset, size
  CLEAR: 3,      // buffer, offset, size
});
const ARITY = { 1: 5, 2: 5, 3: 3 };

/**
 * A command list (Int32Array) as the GPU objects it names: per command [op, ...operands] with
 * pipelines, bind groups and buffers looked up (a bad opcode or id throws here, before any
 * encoding). `run` encodes it at once, `record` keeps it for `replay`.
 */
function decode(cmds) {
  const list = [];
  for (let i = 0; i < cmds.length;) {
    const op = cmds[i];
    if (!(op in ARITY)) throw new RangeError(`jaxweb gpu shim: bad opcode ${op} at ${i}`);
    if (op === OP.DISPATCH) {
      list.push([op, get(pipelines, cmds[i + 1], 'pipeline'), get(bindGroups, cmds[i + 2], 'bind group'), cmds[i + 3], cmds[i + 4], cmds[i + 5]]);
    } else if (op === OP.COPY) {
      list.push([op, get(buffers, cmds[i + 1], 'buffer'), cmds[i + 2], get(buffers, cmds[i + 3], 'buffer'), cmds[i + 4], cmds[i + 5]]);
    } else {
      list.push([op, get(buffers, cmds[i + 1], 'buffer'), cmds[i + 2], cmds[i + 3]]);
    }
    i += 1 + ARITY[op];
  }
  return list;
}

/**
 * Record decoded commands (`decode`) into encoder `enc`. Consecutive dispatches share one
 * compute pass, except when `querySet` is given: then each dispatch gets its own pass
 * writing its begin and end timestamps at 2k and 2k+1.
 *
 * Each pass call crosses into Dawn (~0.6-1 µs apiece in Node, a step's largest host cost after
 * Python), so a pass sets the pipeline and the bind group only where they change (both stay set
 * across dispatches of a pass), and a one-dimensional grid is dispatched with one number.
 */
function encode(enc, list, querySet = null) {
  let pass = null;
  let pipeline = null;
  let group = null;
  let k = 0;
  for (const c of list) {
    if (c[0] === OP.DISPATCH) {
      if (querySet) {
        pass = enc.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 } });
      } else if (pass === null) {
        pass = enc.beginComputePass();
      }
      if (c[1] !== pipeline) { pass.setPipeline(c[1]); pipeline = c[1]; }
      if (c[2] !== group) { pass.setBindGroup(0, c[2]); group = c[2]; }
      if (c[4] === 1 && c[5] === 1) pass.dispatchWorkgroups(c[3]);
      else pass.dispatchWorkgroups(c[3], c[4], c[5]);
      k++;
      if (querySet) { pass.end(); pass = pipeline = group = null; }
      continue;
    }
    if (pass) { pass.end(); pass = pipeline = group = null; }
    if (c[0] === OP.COPY) enc.copyBufferToBuffer(c[1], c[2], c[3], c[4], c[5]);
    else enc.clearBuffer(c[1], c[2], c[3]);
  }
  if (pass) pass.end();
}

/** Execute a command list (Int32Array) in one command buffer and one submit; returns its length. */
export function run(cmds) {
  const d = need();
  const list = decode(cmds);
  const enc = d.createCommandEncoder();
  encode(enc, list);
  d.queue.submit([enc.finish()]);
  return list.length;
}

// Recorded command lists (a jitted call's commands, replayed every call: webgpu/replay.py),
// kept as the GPU objects they name, so a replay walks a prebuilt list: no table lookups and
// no typed-array views per command. Python forgets a recording when it is dropped.
const recordings = [null];

/** Keep command list `cmds` (Int32Array, as `run` takes it) for `replay`; returns its number. */
export function record(cmds) {
  return put(recordings, decode(cmds));
}

export function forget(id) {
  if (id > 0 && id < recordings.length) recordings[id] = null;
}

// A replay's write words, copied here and handed to writeBuffer, which copies them at once: no typed
// array made per write (a replay's scalar arguments: a few words each).
let words = new Int32Array(64);

/**
 * Run recording `id` in one command buffer and one submit, after the queue writes in `writes`
 * (int32s: per write the buffer, byte offset and word count, then the words): a jitted call's
 * changed scalar arguments cross with its replay, as plain numbers. Device number `gen` lost:
 * nothing runs and the reason comes back (Python then replaces the device), so that a call
 * needs no separate loss check. Returns `takeError()`: one crossing for the whole call.
 */
export function replay(id, gen, ...writes) {
  if (losses[gen] !== undefined) return `the device was lost (${losses[gen]})`;
  const d = need();
  const queue = d.queue;
  for (let w = 0; w < writes.length;) {
    const n = writes[w + 2];
    if (n > words.length) words = new Int32Array(n);
    for (let i = 0; i < n; i++) words[i] = writes[w + 3 + i];
    queue.writeBuffer(get(buffers, writes[w], 'buffer'), writes[w + 1], words, 0, n);
    w += 3 + n;
  }
  const list = get(recordings, id, 'recording');
  const enc = d.createCommandEncoder();
  encode(enc, list);
  queue.submit([enc.finish()]);
  return takeError();
}

/** Whether `runTimed` can time dispatches (the device has 'timestamp-query'). */
export function canTime() {
  return !!device && device.features.has('timestamp-query');
}

/**
 * `run`, with each dispatch timed by GPU timestamps (jaxweb.profiler). Resolves to a
 * Float64Array of [begin, end] nanoseconds per dispatch, relative to the first begin.
 */
export async function runTimed(cmds) {
  const d = need();
  let count = 0;
  for (let i = 0; i < cmds.length; i += 1 + (ARITY[cmds[i]] ?? 0)) count += cmds[i] === OP.DISPATCH;
  if (count === 0 || 2 * count > 4096) {  // a query set holds 4096 timestamps at most
    run(cmds);
    await d.queue.onSubmittedWorkDone();
    return new Float64Array(0);
  }
  const querySet = d.createQuerySet({ type: 'timestamp', count: 2 * count });
  const size = 16 * count;
  const resolved = d.createBuffer({ size, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const staging = d.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = d.createCommandEncoder();
  encode(enc, decode(cmds), querySet);
  enc.resolveQuerySet(querySet, 0, 2 * count, resolved, 0);
  enc.copyBufferToBuffer(resolved, 0, staging, 0, size);
  d.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const stamps = new BigInt64Array(staging.getMappedRange().slice(0));
  staging.unmap();
  for (const obj of [staging, resolved, querySet]) obj.destroy();
  const out = new Float64Array(stamps.length);
  for (let i = 0; i < stamps.length; i++) out[i] = Number(stamps[i] - stamps[0]);
  return out;
}

// Readback staging buffers (MAP_READ), reused: Dawn clears a new buffer before its first use
// (64 MB: 40-70 ms on SwiftShader), which cost more than the copy itself.
const stagingFree = [];   // unmapped, idle staging buffers, by size class
const STAGING_KEEP = 6;   // idle ones kept at most (a chunked read's window: 4)

function takeStaging(d, padded) {
  const cls = Math.max(1 << 16, 2 ** Math.ceil(Math.log2(padded)));
  const i = stagingFree.findIndex((b) => b.size === cls);
  if (i >= 0) return stagingFree.splice(i, 1)[0];
  return d.createBuffer({ size: cls, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
}

function giveStaging(buf) {
  buf.unmap();
  stagingFree.push(buf);
  while (stagingFree.length > Math.max(STAGING_KEEP, readWindow + 2)) stagingFree.shift().destroy();
}

/** Map `size` bytes of buffer `id` from `offset`; resolves to [mapped staging, its bytes]. */
async function mapped(id, offset, size) {
  const d = need();
  const padded = (size + 3) & ~3;
  const staging = takeStaging(d, padded);
  const enc = d.createCommandEncoder();
  enc.copyBufferToBuffer(get(buffers, id, 'buffer'), offset, staging, 0, padded);
  d.queue.submit([enc.finish()]);
  try {
    await staging.mapAsync(GPUMapMode.READ, 0, padded);
  } catch (e) {
    staging.destroy();
    throw e;
  }
  return [staging, new Uint8Array(staging.getMappedRange(0, padded), 0, size)];
}

/**
 * Copy `size` bytes of buffer `id` from `offset` straight into `dst`, a writable Python
 * buffer passed as a PyProxy (a bytearray): one copy from mapped memory into Pyodide's heap.
 */
export async function readInto(id, offset, size, dst) {
  if (size > readChunk) return readChunked(id, offset, size, dst);
  const t = performance.now();
  const [staging, bytes] = await mapped(id, offset, size);
  const view = heapView(dst);  // taken after the wait: the heap may have grown meanwhile
  const c = performance.now();
  try {
    view.data.set(bytes);
  } finally {
    view.release();
    giveStaging(staging);
    readSpent(c - t, performance.now() - c);
  }
}

// Where readbacks' time went, in ms since the last readTimes(): waiting for mappings (the GPU's
// copy into staging memory and mapAsync, less what overlapped a copy), copying mapped bytes
// into their destination (Pyodide's heap) and, for chunked reads, issuing the chunks' copies and
// maps and unmapping them. A benchmark probe: bench_gpu_speed.py prints it.
const readSpentMs = [0, 0, 0];
function readSpent(wait, copy, issue = 0) {
  readSpentMs[0] += wait;
  readSpentMs[1] += copy;
  readSpentMs[2] += issue;
}

/** [ms waiting for mappings, ms copying, ms issuing] of the readbacks since the last call; resets them. */
export function readTimes() {
  const out = readSpentMs.slice();
  readSpentMs.fill(0);
  return out;
}

/** {data, release} of a destination: a PyProxy's buffer in Pyodide's heap, or a Uint8Array. */
function heapView(dst) {
  return typeof dst.getBuffer === 'function' ? dst.getBuffer('u8') : { data: dst, release() {} };
}

// Big readbacks go in chunks (readChunk bytes), readWindow of them in flight: while one chunk is copied from
// mapped memory into Pyodide's heap, the GPU copies the next ones into their staging buffers
// and they are mapped (one submit and one mapAsync per chunk). The window's staging buffers
// are the pool's (takeStaging), so a 256 MB read keeps 4 x 8 MB of them, not 256 MB.
let readChunk = 8 << 20;
let readWindow = 4;

/**
 * Set the chunk size (bytes) and window of big readbacks; returns the previous [chunk, window].
 * For benchmarks (bench_gpu_speed.py compares them on the GPU host).
 */
export function setReadChunking(chunk, window) {
  const old = [readChunk, readWindow];
  readChunk = Math.max(1 << 20, chunk | 0);
  readWindow = Math.max(1, window | 0);
  return old;
}

/**
 * Milliseconds to read `size` bytes of buffer `id` into a JavaScript Uint8Array (no Python
 * heap): what the readback costs before the copy into Python's memory (a benchmark probe).
 */
export async function readProbe(id, offset, size) {
  const dst = new Uint8Array(size);
  const t = performance.now();
  await readInto(id, offset, size, dst);
  return performance.now() - t;
}

async function readChunked(id, offset, size, dst) {
  const d = need();
  const src = get(buffers, id, 'buffer');
  const chunk = readChunk;
  const n = Math.ceil(size / chunk);
  const flight = [];  // [staging, chunk, promise of its mapping]
  const start = (k) => {
    const s = performance.now();
    const len = Math.min(chunk, size - k * chunk);
    const padded = (len + 3) & ~3;
    const staging = takeStaging(d, padded);
    const enc = d.createCommandEncoder();
    enc.copyBufferToBuffer(src, offset + k * chunk, staging, 0, padded);
    d.queue.submit([enc.finish()]);
    flight.push([staging, k, len, staging.mapAsync(GPUMapMode.READ, 0, padded)]);
    readSpent(0, 0, performance.now() - s);
  };
  let next = 0;
  try {
    while (next < Math.min(n, readWindow)) start(next++);
    while (flight.length) {
      const [staging, k, len, mapping] = flight[0];
      const t = performance.now();
      await mapping;
      const view = heapView(dst);  // after the wait: the heap may have grown meanwhile
      const c = performance.now();
      try {
        view.data.set(new Uint8Array(staging.getMappedRange(0, (len + 3) & ~3), 0, len), k * chunk);
      } finally {
        view.release();
        readSpent(c - t, performance.now() - c);
      }
      flight.shift();
      const s = performance.now();
      giveStaging(staging);
      readSpent(0, 0, performance.now() - s);
      if (next < n) start(next++);
    }
  } catch (e) {
    for (const [staging] of flight) staging.destroy();
    throw e;
  }
}

/** Resolves when all submitted work has finished. */
export function finish() {
  return need().queue.onSubmittedWorkDone();
}
