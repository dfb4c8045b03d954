// Build a Pyodide memory snapshot with jaxweb imported: `node snapshot.mjs PYODIDE_DIR WHEEL OUT`.
//
// Most of a page's load is Python starting up inside Pyodide (2-4 s on an idle CI box,
// more when it is busy). A snapshot is the interpreter's whole linear memory taken
// after start-up and `import jaxweb` (Pyodide's `_makeSnapshot` / `_loadSnapshot`):
// a page that boots from it skips both and only re-attaches the JS side.
//
// It also holds the modules a page imports next: jaxweb imports its backends, compiler and
// code generators when devices start and a first computation runs, and some submodules on
// first use (hundreds of ms in a page). They are found by doing exactly that in a scratch
// Pyodide here (WARM_UP: touch every public name of jaxweb and jnp, list the devices, run
// eager, jitted, grad, vmap and random work on wasm, and the page worker's own imports),
// then imported, nothing started, before the snapshot (`snapshotImport` in js_shim/jaxweb.mjs).
// Should one of them hold a JS object (which a snapshot cannot), the snapshot is made with
// jaxweb alone.
//
// Prints the metadata the loader checks before using it (Pyodide's version, the wheel's
// SHA-256, its mount path) as one JSON line.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadJaxweb, snapshotImport } from '../js_shim/jaxweb.mjs';

/** Modules of the webgpu device, which a scratch Pyodide in Node has no GPU to start. */
const ALSO = ['jaxweb._src.backends.webgpu.backend', 'jaxweb._src.backends.webgpu.runtime_pyodide'];
const WARM_UP = `
import json, sys
_before = set(sys.modules)
exec(compile(_worker_source, "_jaxweb_worker", "exec"), {"__name__": "_jaxweb_worker_warm_up"})
import jaxweb, jaxweb.numpy as jnp
from jaxweb._src import device
for _ns in (jaxweb, jnp):  # the submodules and jnp families that load on first use
    for _name in dir(_ns):
        try:
            getattr(_ns, _name)
        except Exception:
            pass
device.backends(), device.default_backend()
_x = jnp.ones((4, 4))
(jnp.arange(3.0) * 2).tolist(), jaxweb.jit(lambda x: jnp.sin(x) @ x + 1)(_x).tolist()
jaxweb.grad(lambda x: (jaxweb.nn.relu(x) ** 2).sum())(_x).tolist(), jaxweb.vmap(jnp.dot)(_x, _x).tolist()
jaxweb.random.normal(jaxweb.random.PRNGKey(0), (3,)).tolist()
json.dumps(sorted(m for m in set(sys.modules) - _before if not m.startswith("_jaxweb")))
`;

const [pyodideDir, wheelPath, out] = process.argv.slice(2).map((p) => resolve(p));
if (!out) {
  console.error('usage: node snapshot.mjs PYODIDE_DIR WHEEL OUT');
  process.exit(2);
}
const { loadPyodide, version } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const wheel = await readFile(wheelPath);
const workerSource = await readFile(resolve(dirname(fileURLToPath(import.meta.url)), '../js_shim/worker_runtime.py'), 'utf8');

async function warmModules() {
  try {
    const scratch = await loadJaxweb({ pyodideURL: `${pyodideDir}/`, wheelURL: wheelPath, wasmThreads: 1 });
    scratch.pyodide.globals.set('_worker_source', workerSource);
    return [...new Set([...JSON.parse(await scratch.runPythonAsync(WARM_UP)), ...ALSO])];
  } catch (e) {  // a broken warm-up costs a page those imports, not the snapshot
    console.error(`note: the snapshot's warm-up failed (${e.message}); it holds jaxweb's import only`);
    return ALSO;
  }
}

async function snapshot(modules) {
  const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, _makeSnapshot: true });
  const path = snapshotImport(pyodide, wheel, basename(wheelPath), modules);
  const bytes = pyodide.makeMemorySnapshot();
  // Pyodide 314 restores a snapshot into the wasm's initial memory (30 MiB) without growing it
  // ("offset is out of bounds" in a page when the warm-up grew the heap past that): boot from
  // it once here, and fall back to fewer modules where it does not.
  try {
    const again = await loadPyodide({ indexURL: `${pyodideDir}/`, _loadSnapshot: bytes });
    again.runPython('import jaxweb');
  } catch (e) {
    throw new Error(`a Pyodide booted from it fails (${e.message}; ${bytes.length} bytes)`);
  }
  return { path, bytes, modules: modules.length };
}

const modules = await warmModules();
if (process.env.JAXWEB_SNAPSHOT_DEBUG) console.error(modules.join(' '));
let made;
try {
  made = await snapshot(modules);
} catch (e) {
  console.error(`note: the snapshot holds only jaxweb and its device modules (with all ${modules.length} warm-up modules: ${e.message})`);
  try {
    made = await snapshot(ALSO);
  } catch (e2) {
    console.error(`note: no snapshot (${e2.message})`);
    process.exit(1);
  }
}
await writeFile(out, made.bytes);
console.log(JSON.stringify({
  pyodide: version,
  wheel_sha256: createHash('sha256').update(wheel).digest('hex'),
  wheel_path: made.path,
  modules: made.modules,
  bytes: made.bytes.length,
}));
process.exit(0);
