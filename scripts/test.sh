#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what it needs (idempotent and
# quiet when already done), then runs pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if ! $PY -c "import jaxweb, numpy, pytest, hypothesis, wasmtime, wgpu, xdist, onnx, onnxruntime" >/dev/null 2>&1 \
   || [ "$($PY -c 'import jaxweb, os; print(os.path.dirname(os.path.dirname(jaxweb.__file__)))' 2>/dev/null)" != "$PWD" ]; then
  echo "[setup] pip install -e .[test]"
  $PY -m pip install -q --disable-pip-version-check -e ".[test]" 2>&1 | grep -v -E "^WARNING: (Location|Running pip)" || true
fi
# Browser hosts (Chromium, Node 24, Pyodide): a failed step is reported, and the
# in-Pyodide tests then skip the missing host with its name, rather than stopping here.
bash scripts/setup_browser.sh || echo "test.sh: browser set-up incomplete (see above)" >&2
# Two workers (the CI machine's cores), a test file per worker at a time: files share
# compiled programs and browser pages between their tests. JAXWEB_TEST_WORKERS=0 runs in one process.
exec $PY -m pytest -n "${JAXWEB_TEST_WORKERS:-2}" --dist loadfile "$@"
