// The benchmark page: every case on every device, one worker call per case (the table
// fills as results come), then a bar chart (uPlot, log scale). Tests read window.__bench.

import uPlot from '/vendor/uplot.mjs';
import { startPython } from '/shared/boot.mjs';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const result = { done: false, rows: {}, devices: [] };
window.__bench = result;

function table(cases, devices) {
  $('table').tHead.innerHTML = '';
  const head = $('table').tHead.insertRow();
  for (const h of ['case', ...devices.map((d) => `${d}`), 'unit']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.append(th);
  }
  const body = $('table').tBodies[0];
  body.replaceChildren();
  const cells = {};
  for (const [name, label] of cases) {
    const row = body.insertRow();
    row.insertCell().textContent = label;
    cells[name] = {};
    for (const d of devices) {
      const c = row.insertCell();
      c.className = 'pending figure';
      c.textContent = '…';
      cells[name][d] = c;
    }
    cells[name].unit = row.insertCell();
  }
  return cells;
}

function chart(cases, devices) {
  $('chart').replaceChildren();
  const colors = ['#2f6fde', '#e8710a', '#1b7f3b'];
  const data = [cases.map((_, i) => i), ...devices.map((d) => cases.map(([n]) => result.rows[n]?.[d]?.value ?? null))];
  const bars = uPlot.paths.bars({ size: [0.7 / devices.length, 60], align: 0 });
  new uPlot({
    title: 'throughput (log scale: GFLOP/s or GB/s)', width: Math.min(900, $('chart').clientWidth || 900), height: 260,
    scales: { x: { time: false, range: [-0.5, cases.length - 0.5] }, y: { distr: 3 } },
    axes: [{ values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) ? cases[t]?.[0] ?? '' : '')), stroke: 'currentColor' },
      { stroke: 'currentColor' }],
    legend: { show: devices.length > 1 },
    series: [{}, ...devices.map((d, i) => ({ label: d, fill: colors[i % 3], stroke: colors[i % 3],
      paths: bars, points: { show: false } }))],
  }, data, $('chart'));
}

async function runAll(py, devices) {
  $('run').disabled = true;
  result.done = false;
  const cases = (await py.run(`import _jaxweb_worker
bench = await _jaxweb_worker.import_url("/bench/bench.py", "jaxweb_bench")
bench.cases(QUICK)`, { json: true, vars: { QUICK: $('quick').checked } })).json;
  const cells = table(cases, devices);
  for (const [name] of cases) {
    for (const d of devices) {
      $('status').textContent = `running ${name} on ${d}…`;
      const r = await py.run('bench.run(CASE, MIN_S)', { json: true, device: d, vars: { CASE: name, MIN_S: $('quick').checked ? 0.2 : 0.5 } });
      const cell = cells[name][d];
      cell.classList.remove('pending');
      if (r.ok) {
        (result.rows[name] ??= {})[d] = r.json;
        cell.textContent = r.json.value >= 100 ? r.json.value.toFixed(0) : r.json.value.toFixed(2);
        cell.title = `${r.json.ms.toFixed(2)} ms per call (median of ${r.json.calls})`;
        cells[name].unit.textContent = r.json.unit;
      } else {
        cell.textContent = 'error';
        cell.title = r.error.text;
        cell.classList.add('error');
        (result.rows[name] ??= {})[d] = { error: r.error.text };
      }
    }
  }
  chart(cases, devices);
  $('status').textContent = 'done';
  result.done = true;
  $('run').disabled = false;
}

$('quick').checked = params.has('quick');
const { py, info } = await startPython({ loadingBox: $('loading') });
result.devices = info.devices;
$('run').onclick = () => runAll(py, info.devices);
await runAll(py, info.devices);
