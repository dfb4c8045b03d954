"""The generated compatibility table: statuses come from the package, and the committed
docs/compat.md and README figure are what the script produces now (rerun
`PYTHONPATH=$PWD python scripts/compat_table.py` after adding or merging names)."""
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _script():
    spec = importlib.util.spec_from_file_location("compat_table", os.path.join(ROOT, "scripts", "compat_table.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_statuses_follow_the_package():
    ct = _script()
    with open(ct.DATA) as f:
        api = json.load(f)
    assert api["jax_version"].startswith("0.10") and len(api["modules"]["jax.numpy"]) > 400
    table = {mod: {name: present for name, _, present, _ in rows} for mod, rows in ct.statuses(api).items()}
    assert table["jax.numpy"]["select"] and table["jax.numpy"]["interp"] and table["jax.numpy.linalg"]["svd"]
    assert table["jax"]["pure_callback"] and table["jax.debug"]["print"] and table["jax.lax"]["tile"]
    assert table["jax.numpy.fft"]["fft"] and table["jax.lax"]["fft"] and table["jax.lax"]["FftType"]
    have, total = ct.headline()
    assert 0 < have < total == sum(len(v) for v in api["modules"].values())
    text = ct.render(api, ct.statuses(api))
    assert f"**{have} of {total} public names" in text and "| `select` | function | yes |" in text


def test_committed_table_and_readme_are_fresh():
    assert _script().main(["--check"]) == 0, "docs/compat.md is stale: run scripts/compat_table.py"
