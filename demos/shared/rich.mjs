// Rich output on the page: arrays as images, line plots (uPlot, vendored from npm).
// The worker sends plain JSON (worker_runtime.py: display, plot); this draws it.

import uPlot from '/vendor/uplot.mjs';

const COLORS = ['#2f6fde', '#e8710a', '#1b7f3b', '#b3261e', '#8e44ad', '#00838f'];

/** A uPlot line chart in `el`; `series` names the y series. Returns the uPlot instance. */
export function lineChart(el, { title = '', series = ['y'], width = 520, height = 240, xLabel = '', yRange, legend = true } = {}) {
  const opts = {
    title, width, height, legend: { show: legend, live: false },  // names only: no 'Value: --' row
    scales: { x: { time: false }, ...(yRange ? { y: { range: yRange } } : {}) },
    axes: [{ label: xLabel, stroke: 'currentColor' }, { stroke: 'currentColor' }],
    series: [{ label: xLabel || 'x' }, ...series.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length], width: 1.5 }))],
  };
  return new uPlot(opts, [[], ...series.map(() => [])], el);
}

/** The worker's `plot(...)` payload as a chart element. */
export function renderPlot(payload) {
  const box = document.createElement('div');
  box.className = 'rich plot';
  const chart = lineChart(box, { title: payload.title, series: payload.labels });
  chart.setData([payload.x, ...payload.series]);
  return box;
}

/** The worker's `display(array)` payload (gray, RGB or RGBA bytes) as a scaled-up canvas. */
export function renderImage(payload) {
  const { width, height, channels, data, title } = payload;
  const box = document.createElement('div');
  box.className = 'rich';
  if (title) {
    const t = document.createElement('div');
    t.className = 'title';
    t.textContent = title;
    box.append(t);
  }
  const canvas = document.createElement('canvas');
  canvas.className = 'image';
  canvas.width = width;
  canvas.height = height;
  const zoom = Math.max(1, Math.floor(256 / Math.max(width, height)));
  canvas.style.width = `${width * zoom}px`;
  canvas.style.height = `${height * zoom}px`;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(width, height);
  for (let i = 0; i < width * height; i++) {
    const px = data.slice(i * channels, i * channels + channels);
    const [r, g, b] = channels === 1 ? [px[0], px[0], px[0]] : px;
    img.data.set([r, g, b, channels === 4 ? px[3] : 255], i * 4);
  }
  ctx.putImageData(img, 0, 0);
  box.append(canvas);
  return box;
}

/** Any display payload as an element (text falls back to a <pre>). */
export function renderDisplay(kind, payload) {
  if (kind === 'image') return renderImage(payload);
  if (kind === 'plot') return renderPlot(payload);
  const pre = document.createElement('pre');
  pre.className = 'out';
  pre.textContent = (payload.title ? `${payload.title}\n` : '') + payload.text;
  return pre;
}
