"""Write docs/compat.md: each public name of JAX and whether jaxweb has it.

    PYTHONPATH=$PWD python scripts/compat_table.py          # writes docs/compat.md
    PYTHONPATH=$PWD python scripts/compat_table.py --check  # exit 1 if docs/compat.md is stale
    PYTHONPATH=$PWD python scripts/compat_table.py --compare REV  # per-namespace table: REV's docs/compat.md vs now

JAX's names come from scripts/data/jax_public_api.json (recorded once with
scripts/record_jax_api.py); the status of each comes from importing jaxweb and
looking the name up, so the table follows the package. A name counts as present
when the matching jaxweb module has it; NOTES below qualifies names that exist
with a known limitation.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "scripts", "data", "jax_public_api.json")
OUT = os.path.join(ROOT, "docs", "compat.md")
README = os.path.join(ROOT, "README.md")
_MARK = re.compile(r"(<!-- compat-headline -->)(.*?)(<!-- /compat-headline -->)", re.S)

#: Names that exist with a limitation worth saying (module -> name -> note).
NOTES: dict[str, dict[str, str]] = {
    "jax.numpy.linalg": {
        "eig": "eigenvalues in the Schur form's order, which may differ from LAPACK's",
    },
    "jax.scipy.linalg": {
        "schur": "the complex Schur form only (output='complex' or complex input)",
    },
    "jax.numpy": {
        "poly": "not for a square matrix argument (needs a general eigensolver)",
        "ufunc": "the class and its methods (jnp.frompyfunc); jnp.add & co. are plain functions, without "
                 ".reduce/.outer/.at",
    },
    "jax.lax": {
        "custom_linear_solve": "reverse mode only (JAX also has forward mode); `solve` must not close over "
                               "values being differentiated",
        "composite": "no JVP or batching rule, as in JAX 0.10",
    },
    "jax": {
        "allow_f16_reductions": "accepted; 16-bit reductions are always allowed",
        "debug_key_reuse": "accepted; key reuse is not tracked",
        "custom_batching": "custom_vmap's derivative differentiates the function (its rule is not used under jvp)",
        "dlpack": "copies through numpy's DLPack support (copy=False raises); from_dlpack is jnp.from_dlpack",
        "experimental": "jax.experimental.ode only",
        "pure_callback": "eager and under jit (jit currently runs the callback between equations)",
        "new_ref": "eager, and inside one traced function; not as a jit argument",
    },
}

#: Names that do not apply to one device in one browser tab (module -> name -> reason):
#: they count in "of N public names" but not among the applicable ones.
_XLA = "XLA/StableHLO-specific (jaxweb compiles to WebAssembly/WGSL, not through XLA)"
_INTERNAL = "JAX's internal machinery, not a user API (jaxweb's differs)"
_MULTI = "multi-device/multi-process execution; one browser tab has one device and one process"
INAPPLICABLE: dict[str, dict[str, str]] = {
    "jax": {
        "export": _XLA + ": serializes StableHLO", "ffi": _XLA + ": XLA custom calls", "lib": _XLA,
        "interpreters": _INTERNAL, "core": _INTERNAL, "api_util": _INTERNAL, "ad": _INTERNAL,
        "distributed": _MULTI, "memory": "device memory kinds (pinned host, device HBM): one memory per device here",
        "Shard": _MULTI + " (the per-device pieces of an array)", "auto_pcast": _MULTI + " (varying-manual-axes casts)",
        "remove_size_one_mesh_axis_from_type": _MULTI + " (mesh typing flag)",
        "jax2tf_associative_scan_reductions": "jax2tf flag (TensorFlow export)",
        "array_garbage_collection_guard": "XLA buffer GC diagnostics (Python owns lifetimes here)",
        "thread_guard": _MULTI + " (multi-threaded dispatch guard)",
        "make_user_context": _INTERNAL + " (error-context plumbing)",
    },
    "jax.lax": {n: _MULTI for n in ("ragged_all_to_all", "ragged_all_to_all_p", "psend", "precv", "pcast",
                                    "pbroadcast_p", "sharding_constraint_p",
                                    "with_sharding_constraint", "device_put_p")} | {
        n: _XLA + " (tokens and ordering effects)" for n in ("after_all", "after_all_p", "create_token",
                                                             "create_token_p", "optimization_barrier_p")},
    "jax.debug": {n: _MULTI + " (sharding visualization)" for n in ("inspect_array_sharding",
                                                                    "visualize_array_sharding", "visualize_sharding")},
}
INAPPLICABLE["jax.lax"].update({n: "symbolic-dimension constraints of jax.export's shape polymorphism (export "
                                   "does not apply)" for n in ("eq_to_p", "le_to_p", "lt_to_p")})

#: Names that apply but jaxweb does not have, with the reason (module -> name -> reason):
#: they stay in the applicable count, as missing.
_NARROW = ("narrow storage dtype: ml_dtypes is not in Pyodide and the wasm/WGSL kernels have no 8-, 6-, 4-, 2- or "
           "1-bit types (emulated storage with float32 compute is possible, not done)")
_MX = "block-scaled (MX) float8/float4 matmul: needs the narrow float dtypes"
MISSING: dict[str, dict[str, str]] = {
    "jax.numpy": {n: _NARROW for n in (
        "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
        "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "int1", "int2",
        "int4", "uint1", "uint2", "uint4")},
    "jax.nn": {n: _MX for n in ("get_scaled_dot_general_config", "scaled_dot_general", "scaled_matmul")},
    "jax.lax": {"scaled_dot": _MX,
                "rng_bit_generator": "XLA's counter-based bit generators (Philox, ThreeFry over a 4-word key) are "
                                     "not reproduced; jax.random's threefry is",
                "rng_bit_generator_p": "see rng_bit_generator",
                "rng_uniform": "XLA's stateful RNG (deprecated in JAX, 'its use is discouraged')",
                "rng_uniform_p": "see rng_uniform",
                "reduce_p": "lax.reduce takes the monoid computations (add, mul, max, min, and, or, xor); a general "
                            "computation has no primitive yet",
                "reduce_window_p": "lax.reduce_window takes the monoid computations; see reduce_p",
                "select_and_scatter_p": "max-pool derivatives use jaxweb's window_gather/window_scatter primitives",
                "select_and_scatter_add_p": "see select_and_scatter_p",
                "select_and_gather_add_p": "see select_and_scatter_p",
                "linear_solve_p": "custom_linear_solve is a custom_vjp here, not a primitive",
                "dce_sink_p": "dce_sink needs no primitive here (nothing unread is computed)"},
    "jax.random": {"random_gamma_p": "jax.random.gamma is a composition of lax operations, not a primitive"},
    "jax.custom_derivatives": {"remat_opt_p": "an internal primitive of JAX's checkpoint optimization"},
    "jax.scipy.special": {n: "not implemented yet" for n in ("hyp1f1", "hyp2f1", "owens_t", "sph_harm_y")},
}


def _jaxweb_module(jax_name: str) -> Any:
    """The jaxweb module standing for `jax_name`, or None when it does not exist."""
    name = "jaxweb" + jax_name[len("jax"):]
    try:
        return importlib.import_module(name)
    except ImportError:
        pass
    parent, _, attr = name.rpartition(".")  # namespaces that are objects (jax.scipy.stats.norm)
    try:
        return getattr(importlib.import_module(parent), attr, None)
    except ImportError:
        return None


def statuses(api: dict) -> dict[str, list[tuple[str, str, bool, str]]]:
    """module -> [(name, kind, present, note)]."""
    out = {}
    for mod, names in api["modules"].items():
        ours = _jaxweb_module(mod)
        rows = []
        for name, kind in names.items():
            present = ours is not None and hasattr(ours, name)
            why = INAPPLICABLE.get(mod, {}).get(name, "")
            note = NOTES.get(mod, {}).get(name, "") if present else (
                f"not applicable: {why}" if why else MISSING.get(mod, {}).get(name, ""))
            rows.append((name, kind, present, note))
        out[mod] = rows
    return out


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def render(api: dict, table: dict) -> str:
    total = sum(len(r) for r in table.values())
    have = sum(p for r in table.values() for _, _, p, _ in r)
    skip = sum(1 for m, r in table.items() for n, _, p, _ in r if not p and n in INAPPLICABLE.get(m, {}))
    applicable = total - skip
    lines = [
        "# jaxweb's coverage of JAX's public API",
        "",
        "<!-- generated by scripts/compat_table.py: do not edit by hand -->",
        "",
        f"**{have} of {total} public names ({_pct(have, total)})** of JAX {api['jax_version']} "
        "exist in jaxweb under the same module path; "
        f"**{have} of {applicable} names that apply on one device ({_pct(have, applicable)})** "
        f"({skip} names do not apply in a browser tab: listed with their reason below).",
        "",
        "The list of JAX's names is `scripts/data/jax_public_api.json` (recorded once from JAX "
        "with `scripts/record_jax_api.py`); each status comes from importing jaxweb, so "
        "`PYTHONPATH=$PWD python scripts/compat_table.py` regenerates this page. A name is "
        "present when the jaxweb module has it; that says nothing about every argument being "
        "supported (notes name the known limits). Names in namespaces still being built "
        "(`jax.random`, `jax.nn`, `jax.scipy`, control flow) show as missing until they land.",
        "",
        "| module | present | of | coverage |",
        "| --- | ---: | ---: | ---: |",
    ]
    for mod, rows in table.items():
        n = sum(p for _, _, p, _ in rows)
        lines.append(f"| [`{mod}`](#{_anchor(mod)}) | {n} | {len(rows)} | {_pct(n, len(rows))} |")
    for mod, rows in table.items():
        n = sum(p for _, _, p, _ in rows)
        lines += ["", f"## {mod}", "", f"{n} of {len(rows)} ({_pct(n, len(rows))}).", "",
                  "| name | kind | jaxweb |", "| --- | --- | --- |"]
        for name, kind, present, note in rows:
            mark = "yes" if present else ("n/a" if note.startswith("not applicable") else "**missing**")
            lines.append(f"| `{name}` | {kind} | {mark}{' — ' + note if note else ''} |")
    return "\n".join(lines) + "\n"


def _anchor(mod: str) -> str:
    return mod.replace(".", "")


def headline() -> tuple[int, int]:
    with open(DATA) as f:
        api = json.load(f)
    table = statuses(api)
    return (sum(p for r in table.values() for _, _, p, _ in r), sum(len(r) for r in table.values()))


def readme_text(have: int, total: int) -> str | None:
    """README.md with its headline figure updated (None if it has no marker)."""
    try:
        with open(README) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    figure = f"**{have} of {total} names ({_pct(have, total)})**"
    return _MARK.sub(lambda m: m.group(1) + figure + m.group(3), text) if _MARK.search(text) else None


_ROW = re.compile(r"^\| \[`([^`]+)`\]\(#[^)]*\) \| (\d+) \| (\d+) \|")
_HEAD = re.compile(r"\*\*(\d+) of (\d+) names that apply")


def _summary(text: str) -> tuple[dict[str, tuple[int, int]], tuple[int, int] | None]:
    """({module: (present, of)}, (present, applicable)) from a docs/compat.md text."""
    rows = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in map(_ROW.match, text.splitlines()) if m}
    head = _HEAD.search(text)
    return rows, ((int(head.group(1)), int(head.group(2))) if head else None)


def compare(rev: str) -> str:
    """Markdown: each namespace's coverage in `rev`'s committed docs/compat.md and in the package now."""
    import subprocess  # noqa: PLC0415
    old_text = subprocess.run(["git", "show", f"{rev}:docs/compat.md"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
    with open(DATA) as f:
        api = json.load(f)
    old, old_head = _summary(old_text)
    new, new_head = _summary(render(api, statuses(api)))
    lines = [f"| module | {rev} | now | ratio |", "| --- | ---: | ---: | ---: |"]
    same = 0
    for mod, (n, d) in new.items():
        o = old.get(mod, (0, d))
        if o == (n, d):
            same += 1
            continue
        ratio = f"{n / o[0]:.2f}x" if o[0] else "-"
        lines.append(f"| `{mod}` | {o[0]}/{o[1]} ({_pct(*o)}) | {n}/{d} ({_pct(n, d)}) | {ratio} |")
    lines.append(f"| ({same} other namespaces unchanged) | | | |")
    tot_o = (sum(v[0] for v in old.values()), sum(v[1] for v in old.values()))
    tot_n = (sum(v[0] for v in new.values()), sum(v[1] for v in new.values()))
    lines.append(f"| **all names** | {tot_o[0]}/{tot_o[1]} ({_pct(*tot_o)}) | {tot_n[0]}/{tot_n[1]} "
                 f"({_pct(*tot_n)}) | {tot_n[0] / tot_o[0]:.2f}x |")
    if old_head and new_head:
        lines.append(f"| **applicable on one device** | {old_head[0]}/{old_head[1]} ({_pct(*old_head)}) | "
                     f"{new_head[0]}/{new_head[1]} ({_pct(*new_head)}) | {new_head[0] / old_head[0]:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/compat.md is out of date")
    parser.add_argument("--compare", metavar="REV", help="print REV's per-namespace coverage beside today's")
    args = parser.parse_args(argv)
    if args.compare:
        print(compare(args.compare))
        return 0
    with open(DATA) as f:
        api = json.load(f)
    table = statuses(api)
    text = render(api, table)
    have = sum(p for r in table.values() for _, _, p, _ in r)
    total = sum(len(r) for r in table.values())
    readme = readme_text(have, total)
    if args.check:
        try:
            with open(OUT) as f:
                current = f.read()
        except FileNotFoundError:
            current = ""
        with open(README) as f:
            readme_now = f.read()
        if current != text or (readme is not None and readme != readme_now):
            print(f"{OUT} or the README figure is stale: run scripts/compat_table.py", file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)
    if readme is not None:
        with open(README, "w") as f:
            f.write(readme)
    print(f"wrote {OUT}: {have}/{total} ({_pct(have, total)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
