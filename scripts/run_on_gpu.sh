#!/usr/bin/env bash
# On the GPU machine (no network): unpack .gpu_bundle/ (scripts/build_gpu_bundle.sh)
# and run jaxweb in Pyodide under Node 24 with Dawn's WebGPU on the real GPU.
#   bash scripts/run_on_gpu.sh                  every benchmarks/*.py, a table last
#   bash scripts/run_on_gpu.sh script.py args   one Python script in Pyodide
#   bash scripts/run_on_gpu.sh command args     any command, with $JAXWEB_RUN set
# Carry `.gpu_bundle` (and `.gl`, the Vulkan loader debs, see DEVICE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE="${JAXWEB_BUNDLE:-$PWD/.gpu_bundle}"
DEST="${JAXWEB_UNPACK:-${TMPDIR:-/tmp}/jaxweb-gpu}"
[ -f "$BUNDLE/MANIFEST" ] || { echo "run_on_gpu: no bundle at $BUNDLE (run scripts/build_gpu_bundle.sh here first)" >&2; exit 2; }

# 1. Unpack once per bundle.
if ! cmp -s "$BUNDLE/MANIFEST" "$DEST/MANIFEST" 2>/dev/null; then
  rm -rf "$DEST"; mkdir -p "$DEST/pyodide"
  xz -dc "$BUNDLE/node.xz" > "$DEST/node"; chmod +x "$DEST/node"
  tar -C "$DEST/pyodide" -xJf "$BUNDLE/pyodide.tar.xz"
  tar -C "$DEST" -xf "$BUNDLE/webgpu.tar"
  gzip -dc "$DEST/webgpu/dist/linux-x64/dawn.node.gz" > "$DEST/webgpu/dist/linux-x64/dawn.node"
  rm "$DEST/webgpu/dist/linux-x64/dawn.node.gz"
  cp "$BUNDLE/MANIFEST" "$DEST/MANIFEST"
fi

# 2. Vulkan: the loader debs if carried, and NVIDIA's ICD when present.
if [ -d .gl ] && ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
NV_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$NV_ICD" ]; then
  export VK_DRIVER_FILES="$NV_ICD"
elif [ -f /usr/lib/chromium/vk_swiftshader_icd.json ] && [ -z "${VK_ICD_FILENAMES:-}" ]; then
  export VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json  # CPU machine: SwiftShader
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

WHEEL="$(ls "$BUNDLE"/jaxweb-*.whl | head -1)"
export JAXWEB_NODE="$DEST/node"
export JAXWEB_RUN="$DEST/node $BUNDLE/js_shim/node_run.mjs --pyodide $DEST/pyodide --wheel $WHEEL --webgpu $DEST/webgpu"

# 3. Run.
if [ $# -gt 0 ]; then
  if [[ "$1" == *.py ]]; then exec $JAXWEB_RUN "$@"; fi
  exec "$@"
fi
shopt -s nullglob
table=()
for f in benchmarks/*.py; do
  echo "=== $f"
  start=$(date +%s%N)
  if out=$($JAXWEB_RUN "$f" 2>&1); then status=ok; else status="FAILED($?)"; fi
  echo "$out"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  table+=("$(printf '%-40s %-10s %6d.%01ds  %s' "$f" "$status" $((ms / 1000)) $((ms % 1000 / 100)) "$(echo "$out" | grep -v '^\s*$' | tail -1 | cut -c1-80)")")
done
echo
echo "=== jaxweb in Pyodide + Node $("$DEST/node" --version) + Dawn: benchmarks/"
printf '%-40s %-10s %9s  %s\n' benchmark status time "last line"
for row in "${table[@]}"; do echo "$row"; done
