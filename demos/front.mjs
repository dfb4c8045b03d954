// The front page: a try-it box on a Python worker, what this browser got, and the
// snippet page (/snippet.html) shown as source and running in an iframe, started after
// the worker is ready so the two Pyodide boots do not compete for the CPU.
// window.__demoResult: the snippet's output (tests/test_pyodide_host.py reads it).

import { startPython } from '/shared/boot.mjs';

const $ = (id) => document.getElementById(id);

fetch('/snippet.html').then((r) => r.text()).then((t) => { $('snippet-source').textContent = t.trim(); });

function facts(info) {
  const rows = [
    ['default device', info.default],
    ['devices', info.devices.join(', ')],
    ['WebGPU adapter', info.host.webgpu ? (info.devices.includes('webgpu') ? 'available' : 'available (this jaxweb build has no webgpu device)') : 'none here (jaxweb uses wasm)'],
    ['wasm threads', String(info.host.wasmThreads)],
    ['cross-origin isolated', info.host.crossOriginIsolated ? 'yes (Stop interrupts, threads work)' : 'no'],
    ['Pyodide', info.pyodide],
    ['Python ready after', `${(window.__pageReady.ms / 1000).toFixed(1)} s`],
  ];
  $('facts').replaceChildren(...rows.flatMap(([k, v]) => {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    return [dt, dd];
  }));
}

function watchSnippet() {
  const frame = $('snippet-frame');
  frame.src = '/snippet.html';
  const poll = setInterval(() => {
    const out = frame.contentDocument?.getElementById('out')?.textContent ?? '';
    if (out && !out.startsWith('loading')) {
      clearInterval(poll);
      window.__demoResult = out;
    }
  }, 200);
}

let py = null;
async function run() {
  $('run').disabled = true;
  $('out').textContent = '';
  $('out').classList.remove('error');
  const r = await py.run($('code').value, { onStream: (name, text) => { $('out').textContent += text; } });
  if (!r.ok) {
    $('out').classList.add('error');
    $('out').textContent += r.error.text;
  } else if (r.repr !== null) {
    $('out').textContent += r.repr;
  }
  $('out').textContent = $('out').textContent.replace(/\n$/, '');
  $('run').disabled = false;
}

try {
  const started = await startPython({ loadingBox: $('loading') });
  py = started.py;
  $('status').textContent = `ready: jaxweb on ${started.info.default}`;
  facts(started.info);
  $('run').disabled = false;
  $('run').onclick = run;
  $('code').addEventListener('keydown', (ev) => { if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); run(); } });
  watchSnippet();
} catch (e) {
  $('status').textContent = `could not start: ${e.message}`;
  $('status').classList.add('error');
  window.__demoResult = `error: ${e.message}`;
}
