// Build a Pyodide memory snapshot with jaxweb imported: `node snapshot.mjs PYODIDE_DIR WHEEL OUT`.
//
// Most of a page's load is Python starting up inside Pyodide (2-4 s on an idle CI box,
// more when it is busy). A snapshot is the interpreter's whole linear memory taken
// after start-up and `import jaxweb` (Pyodide's `_makeSnapshot` / `_loadSnapshot`):
// a page that boots from it skips both and only re-attaches the JS side. What goes
// into it is `snapshotImport` in js_shim/jaxweb.mjs, the same code the loader checks
// against, so the two cannot drift. Prints the metadata the loader checks before
// using it (Pyodide's version, the wheel's SHA-256, its mount path) as one JSON line.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { snapshotImport } from '../js_shim/jaxweb.mjs';

const [pyodideDir, wheelPath, out] = process.argv.slice(2).map((p) => resolve(p));
if (!out) {
  console.error('usage: node snapshot.mjs PYODIDE_DIR WHEEL OUT');
  process.exit(2);
}
const { loadPyodide, version } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, _makeSnapshot: true });
const wheel = await readFile(wheelPath);
const wheelMount = snapshotImport(pyodide, wheel, basename(wheelPath));
const snapshot = pyodide.makeMemorySnapshot();
await writeFile(out, snapshot);
console.log(JSON.stringify({
  pyodide: version,
  wheel_sha256: createHash('sha256').update(wheel).digest('hex'),
  wheel_path: wheelMount,
  bytes: snapshot.length,
}));
process.exit(0);
