#!/usr/bin/env bash
# Build the self-contained bundle that runs jaxweb on the GPU machine (DEVICE.md):
# Node 24 (xz), Pyodide's core (xz), `webgpu` (Dawn) with only dist/linux-x64
# (dawn.node gzipped), the jaxweb wheel and js_shim, in .gpu_bundle/ (git-ignored,
# ~45 MB: carry it with the device tool, with .gl for the Vulkan loader).
# On the device: bash scripts/run_on_gpu.sh [script.py args | command...]
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${JAXWEB_CACHE:-$PWD/.cache}"
OUT="${1:-$PWD/.gpu_bundle}"
bash scripts/setup_browser.sh   # Node 24, webgpu, Pyodide core: cached after the first run
"${PYTHON:-python3}" serve.py --fetch-only >/dev/null   # a fresh wheel of the current sources
mkdir -p "$OUT"
rm -rf "$OUT/js_shim" "$OUT"/jaxweb-*.whl
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# Node: the 127 MB binary compresses to ~30 MB. Rebuilt only when the binary changed.
if [ ! -f "$OUT/node.xz" ] || [ "$CACHE/node24/bin/node" -nt "$OUT/node.xz" ]; then
  xz -6 -T0 -c "$CACHE/node24/bin/node" > "$OUT/node.xz"
fi

# Pyodide: only the files loadPyodide() fetches.
PYO="$(ls -d "$CACHE"/pyodide-*/ | head -1)"
if [ ! -f "$OUT/pyodide.tar.xz" ] || [ "$PYO/pyodide.asm.wasm" -nt "$OUT/pyodide.tar.xz" ]; then
  tar -C "$PYO" -cJf "$OUT/pyodide.tar.xz" pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json
fi

# webgpu: the package without other platforms' builds; dawn.node gzipped.
if [ ! -f "$OUT/webgpu.tar" ]; then
  W="$CACHE/npm/node_modules/webgpu"
  mkdir -p "$stage/webgpu/dist/linux-x64"
  cp "$W/index.js" "$W/package.json" "$stage/webgpu/"
  [ -f "$W/LICENSE.md" ] && cp "$W/LICENSE.md" "$stage/webgpu/"
  gzip -9 -c "$W/dist/linux-x64/dawn.node" > "$stage/webgpu/dist/linux-x64/dawn.node.gz"
  tar -C "$stage" -cf "$OUT/webgpu.tar" webgpu
fi

cp "$CACHE"/wheels/jaxweb-*.whl "$OUT/"
cp -r js_shim "$OUT/js_shim"
{
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "node: $("$CACHE/node24/bin/node" --version)"
  echo "pyodide: $(basename "$PYO")"
  echo "wheel: $(cd "$OUT" && ls jaxweb-*.whl)"
} > "$OUT/MANIFEST"
du -sh "$OUT" | awk '{print "gpu bundle: " $2 " (" $1 ")"}'
