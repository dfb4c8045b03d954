"""`import jaxweb` imports only what it needs (a page compiles every module it imports),
yet every public submodule and jnp name is there as an attribute, whatever the import order."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip()


def test_import_jaxweb_leaves_the_heavy_submodules_for_later():
    out = run("import sys, jaxweb\n"
              "print(sum(m.startswith('jaxweb') for m in sys.modules) < 130)\n"
              "print(sorted(m for m in ('jaxweb.scipy', 'jaxweb.nn', 'jaxweb.random', 'jaxweb.numpy.linalg', 'jaxweb.numpy.fft',"
              " 'jaxweb._src.numpy.polynomial') if m in sys.modules))\n"
              "print(jaxweb.scipy.special.__name__, jaxweb.nn.relu.__name__, 'nn' in dir(jaxweb))")
    assert out.splitlines() == ["True", "[]", "jaxweb.scipy.special relu True"]


@pytest.mark.parametrize("first", ["import jaxweb.numpy.linalg", "from jaxweb.numpy import linalg",
                                   "import jaxweb.numpy.fft",
                                   "import jaxweb.scipy.linalg", "from jaxweb.numpy import *"])
def test_jnp_names_whatever_was_imported_first(first):
    out = run(f"{first}\nimport jaxweb.numpy as jnp\n"
              "print(jnp.sort(jnp.array([3, 1, 2])).tolist(), jnp.polyval(jnp.array([1.0, 0.0]), 2.0).tolist(),"
              " jnp.linalg.norm(jnp.ones(4)).tolist(), 'sort' in dir(jnp), 'sort' in jnp.__all__,"
              " jnp.fft.fft(jnp.ones(4)).real.tolist())")
    assert out == "[1, 2, 3] 2.0 2.0 True True [4.0, 0.0, 0.0, 0.0]"


def test_unknown_names_still_raise_attribute_error():
    out = run("import jaxweb, jaxweb.numpy as jnp\n"
              "for m, n in ((jaxweb, 'nope'), (jnp, 'nope'), (jnp, '__path_hooks__')):\n"
              "    try:\n        getattr(m, n)\n    except AttributeError as e:\n        print(e)")
    assert out.splitlines() == ["module 'jaxweb' has no attribute 'nope'",
                                "module 'jaxweb.numpy' has no attribute 'nope'",
                                "module 'jaxweb.numpy' has no attribute '__path_hooks__'"]
