// The drawing pad and its MNIST-style preprocessing.
//
// MNIST digits were size-normalised to fit a 20x20 box, then placed in 28x28 so
// that their centre of mass sits at the centre. A drawn digit gets the same
// treatment, or a small digit in a corner would look like nothing the model saw.

const INK = 0.1;  // a pixel brighter than this counts as ink

/** Wire pointer drawing on `canvas`; `onChange()` fires while drawing (throttled) and at stroke end. */
export function drawingPad(canvas, onChange, { lineWidth = 20, throttleMs = 120 } = {}) {
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const clear = () => { ctx.fillStyle = '#000'; ctx.fillRect(0, 0, canvas.width, canvas.height); };
  clear();
  let drawing = false, last = null, lastFire = 0;
  const at = (ev) => {
    const r = canvas.getBoundingClientRect();
    return [(ev.clientX - r.left) * canvas.width / r.width, (ev.clientY - r.top) * canvas.height / r.height];
  };
  const line = (a, b) => {
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = lineWidth;
    ctx.lineCap = ctx.lineJoin = 'round';
    ctx.beginPath();
    ctx.moveTo(...a);
    ctx.lineTo(...b);
    ctx.stroke();
  };
  canvas.addEventListener('pointerdown', (ev) => {
    drawing = true;
    last = at(ev);
    line(last, last);
    canvas.setPointerCapture?.(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!drawing) return;
    const p = at(ev);
    line(last, p);
    last = p;
    if (performance.now() - lastFire > throttleMs) {
      lastFire = performance.now();
      onChange();
    }
  });
  const end = () => {
    if (!drawing) return;
    drawing = false;
    onChange();
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointerleave', end);
  return { clear };
}

/** 784 values in 0..1 (28x28, row-major) from the pad, MNIST-normalised; null when empty. */
export function toMnist(canvas) {
  const { width: w, height: h } = canvas;
  const src = canvas.getContext('2d', { willReadFrequently: true }).getImageData(0, 0, w, h).data;
  let x0 = w, y0 = h, x1 = -1, y1 = -1, mass = 0, mx = 0, my = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = src[(y * w + x) * 4] / 255;
      if (v <= INK) continue;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      mass += v; mx += v * x; my += v * y;
    }
  }
  if (x1 < 0) return null;
  const scale = 20 / Math.max(x1 - x0 + 1, y1 - y0 + 1);
  // Two steps (pad -> 112 -> 28) so that the browser's bilinear filter averages
  // the strokes instead of skipping pixels, as a single 10x shrink would.
  const mid = document.createElement('canvas');
  mid.width = mid.height = 112;
  const m = mid.getContext('2d');
  m.fillStyle = '#000';
  m.fillRect(0, 0, 112, 112);
  m.imageSmoothingEnabled = true;
  m.imageSmoothingQuality = 'high';
  const cx = mx / mass, cy = my / mass;
  const s4 = scale * 4;
  m.drawImage(canvas, x0, y0, x1 - x0 + 1, y1 - y0 + 1,
    56 - (cx - x0) * s4, 56 - (cy - y0) * s4, (x1 - x0 + 1) * s4, (y1 - y0 + 1) * s4);
  const out = document.createElement('canvas');
  out.width = out.height = 28;
  const o = out.getContext('2d');
  o.imageSmoothingEnabled = true;
  o.imageSmoothingQuality = 'high';
  o.drawImage(mid, 0, 0, 28, 28);
  const px = o.getImageData(0, 0, 28, 28).data;
  const values = new Array(784);
  for (let i = 0; i < 784; i++) values[i] = px[i * 4] / 255;
  return values;
}
