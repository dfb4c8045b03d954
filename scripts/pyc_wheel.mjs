// Add Pyodide's bytecode to a pure-Python wheel: `node pyc_wheel.mjs PYODIDE_DIR IN.whl OUT.whl`.
//
// A page imports jaxweb by compiling every imported module from source: most of
// `import jaxweb`'s time in Pyodide. .pyc files must come from the same interpreter
// version (Pyodide's CPython 3.14, its magic number), so Pyodide itself compiles them,
// here in Node, at build time. The loader (js_shim/jaxweb.mjs, mountWheel) imports
// straight from the wheel on sys.path, so they sit beside their sources (zipimport's
// layout; an unpacked install ignores them and uses the sources) and are "unchecked-hash"
// pycs (no mtime to compare). Their file names are where the loader puts the wheel,
// /lib/jaxweb_wheels/NAME.whl, for tracebacks. An installer that unpacks the wheel
// (micropip, as in JupyterLite or PyScript) imports from __pycache__/ instead: the same
// bytecode goes there too, its file names those of Pyodide's site-packages. RECORD lists
// the new files.
import { readFile, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [pyodideDir, inWheel, outWheel] = process.argv.slice(2).map((p) => resolve(p));
if (!outWheel) {
  console.error('usage: node pyc_wheel.mjs PYODIDE_DIR IN.whl OUT.whl');
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/` });
pyodide.FS.writeFile('/tmp/in.whl', await readFile(inWheel));
const ddir = `/lib/jaxweb_wheels/${basename(outWheel)}`;  // mountWheel's path for it
pyodide.runPython(`
import base64, compileall, hashlib, io, os, py_compile, shutil, sysconfig, zipfile

def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"

src = zipfile.ZipFile("/tmp/in.whl")
root = "/tmp/unpacked"
shutil.rmtree(root, ignore_errors=True)
src.extractall(root)
ok = compileall.compile_dir(root, ddir="${ddir}", quiet=1, workers=1, legacy=True,
                            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
ok = ok and compileall.compile_dir(root, ddir=sysconfig.get_paths()["purelib"], quiet=1, workers=1,
                                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
if not ok:
    raise SystemExit("compileall failed")
pycs = []
for dirpath, _, files in os.walk(root):
    for f in sorted(files):
        if f.endswith(".pyc"):
            pycs.append(os.path.relpath(os.path.join(dirpath, f), root))
record = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD"))
out = zipfile.ZipFile("/tmp/out.whl", "w", zipfile.ZIP_DEFLATED)
for info in src.infolist():
    data = src.read(info)
    if info.filename == record:
        lines = data.decode().rstrip("\\n").split("\\n")
        lines[-1:-1] = [_record_line(p, open(os.path.join(root, p), "rb").read()) for p in sorted(pycs)]
        data = ("\\n".join(lines) + "\\n").encode()
    out.writestr(info, data)
for p in sorted(pycs):
    out.write(os.path.join(root, p), p)
out.close()
print(f"{len(pycs)} modules compiled by Python {sysconfig.get_python_version()} (Pyodide)")
`);
await writeFile(outWheel, pyodide.FS.readFile('/tmp/out.whl'));
