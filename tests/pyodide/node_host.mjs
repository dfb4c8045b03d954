// Node 24 host for the in-Pyodide suite: `node node_host.mjs MANIFEST.json`.
//
// Node 24 has JSPI on by default, so Pyodide behaves as in Chrome. When the
// manifest names the `webgpu` npm package (Dawn), navigator.gpu is installed
// first, as in a browser. The result is printed as one marked JSON line last.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { runSuite } from './suite.mjs';

const MARK = '@@JAXWEB_RESULT@@';

async function installWebGPU(dir) {
  try {
    const { create, globals } = await import(pathToFileURL(`${dir}/index.js`).href);
    Object.assign(globalThis, globals);
    Object.defineProperty(globalThis.navigator, 'gpu', { value: create([]), configurable: true });
  } catch (e) {
    console.info(`node host: no WebGPU (${e.message})`);
  }
}

const manifest = JSON.parse(readFileSync(process.argv[2], 'utf8'));
if (manifest.nodeWebgpu) await installWebGPU(manifest.nodeWebgpu);
try {
  const result = await runSuite(manifest, (s) => console.log(s));
  console.log(MARK + JSON.stringify(result));
  process.exit(0);
} catch (e) {
  console.log(MARK + JSON.stringify({ error: String(e.stack ?? e) }));
  process.exit(1);
}
