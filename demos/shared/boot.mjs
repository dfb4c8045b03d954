// What every page does first: start Python in a worker, show real loading progress,
// fill the device picker, and record load-to-ready (window.__pageReady, read by
// tests/test_pages.py; `performance.now()` counts from navigation start).

import { PythonWorker } from '/js_shim/python_worker.mjs';

/** The page's longest main-thread task so far (ms): with Python in a worker it stays short. */
let longestTask = 0;
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longestTask = Math.max(longestTask, e.duration);
  }).observe({ type: 'longtask', buffered: true });
} catch { /* no Long Tasks API here */ }

/**
 * A progress bar that never sits still: the worker reports stage boundaries
 * (fractions), and between two reports the bar creeps towards the next boundary
 * (at most 80 % of the way), slowing as it nears it, so a long stage still moves.
 */
function progressBar(box) {
  const bar = box.querySelector('progress');
  const stage = box.querySelector('.stage');
  let reported = 0, shown = 0, since = performance.now(), raf = 0;
  const cap = () => reported + 0.8 * (Math.min(1, reported + 0.25) - reported);
  const tick = () => {
    const t = (performance.now() - since) / 1000;
    shown = Math.max(shown, reported + (cap() - reported) * (1 - Math.exp(-t / 1.5)));
    bar.value = shown;
    if (reported < 1) raf = requestAnimationFrame(tick);
  };
  raf = requestAnimationFrame(tick);
  return {
    set(fraction, message) {
      reported = Math.max(reported, fraction);
      since = performance.now();
      stage.textContent = `${message}…`;
      if (reported >= 1) {
        cancelAnimationFrame(raf);
        bar.value = 1;
        box.classList.add('done');
      }
    },
    fail(message) {
      cancelAnimationFrame(raf);
      stage.textContent = message;
      stage.classList.add('error');
    },
  };
}

/** Loader options from the page's URL: `?snapshot=0` boots Python from scratch (no memory snapshot). */
function urlOptions() {
  const q = new URLSearchParams(location.search);
  return q.get('snapshot') === '0' ? { snapshot: false } : {};
}

/** Start the worker; resolves to {py, info} once `import jaxweb` is done there. */
export async function startPython({ loadingBox, onStream, onDisplay, options } = {}) {
  options = { ...urlOptions(), ...options };
  const bar = loadingBox ? progressBar(loadingBox) : null;
  const py = new PythonWorker({ onProgress: (f, m) => bar?.set(f * 0.97, m), onStream, onDisplay, options });
  try {
    const info = await py.ready;
    bar?.set(1, 'ready');
    markReady(info);
    return { py, info };
  } catch (e) {
    bar?.fail(`could not start Python: ${e.message}`);
    window.__pageReady = { error: String(e.message ?? e) };
    throw e;
  }
}

function markReady(info) {
  const ms = performance.now();
  window.__pageReady = { ms, workerLoadMs: info.loadMs, stages: info.stages, longestTaskMs: longestTask, devices: info.devices, default: info.default,
    crossOriginIsolated: !!globalThis.crossOriginIsolated, snapshot: !!info.host?.snapshot };
  const badge = document.querySelector('.device-badge');
  if (badge) {
    badge.textContent = `device: ${info.default} · ready in ${(ms / 1000).toFixed(1)} s`
      + (info.interrupt ? '' : ' · Stop restarts Python (page not cross-origin isolated)');
  }
}

/** Fill a <select> with the devices that started, the default first and selected. */
export function fillDevices(select, info) {
  select.replaceChildren();
  for (const name of info.devices) {
    const opt = document.createElement('option');
    opt.value = name;
    opt.textContent = name + (name === info.default ? ' (default)' : '');
    select.append(opt);
  }
  select.value = info.default;
  select.disabled = false;
}
