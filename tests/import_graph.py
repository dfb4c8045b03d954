"""jaxweb's import graph, parsed with `ast` (nothing is imported): who imports whom, from where.

`python tests/import_graph.py [ROOT]` prints the counts issue 24 tracks: function-local
imports of the project's own modules, `importlib.import_module("jaxweb...")` calls, the
largest import cycle (all edges, and module-level edges alone), arrows that point up a
floor (see tests/floors.py), and a per-floor table. `tests/test_layers.py` uses the same
parse to fail on upward arrows and on cycles that leave one package.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floors import FLOORS, floor_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Edge:
    src: str           # importing module
    dst: str           # imported module (resolved to the deepest module that exists)
    kind: str          # "module" (module level), "local" (inside a function/class body of a function), "importlib"
    line: int


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    lines: int
    edges: list[Edge] = field(default_factory=list)


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts = parts[:-1]
    return ".".join(parts), is_pkg


def _resolve(name: str, known: set[str]) -> str | None:
    """The deepest known module that `name` names or lies in (`pkg.mod.attr` -> `pkg.mod`)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _jaxweb_string(node: ast.AST) -> str | None:
    """The module named by an import_module argument: a literal, or an f-string's literal head."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        head = str(node.values[0].value).rstrip(".")
        return head
    return None


class _Visitor(ast.NodeVisitor):
    def __init__(self, mod: Module, known: set[str]):
        self.mod, self.known, self.depth = mod, known, 0
        self.pkg = mod.name if mod.is_package else mod.name.rpartition(".")[0]

    def _add(self, target: str, line: int, kind: str | None = None):
        dst = _resolve(target, self.known)
        if dst is not None and dst != self.mod.name:
            self.mod.edges.append(Edge(self.mod.name, dst, kind or ("local" if self.depth else "module"), line))

    def _func(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _func

    def visit_Import(self, node: ast.Import):
        for a in node.names:
            if a.name.split(".")[0] == "jaxweb":
                self._add(a.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level:
            base = self.pkg.split(".")
            base = base[:len(base) - (node.level - 1)]
            base_name = ".".join(base + ([node.module] if node.module else []))
        else:
            base_name = node.module or ""
        if base_name.split(".")[0] != "jaxweb":
            return
        # One edge per statement: to the submodule when every imported name is one, else to the base.
        targets = {_resolve(f"{base_name}.{a.name}", self.known) for a in node.names}
        subs = {t for t in targets if t and t != _resolve(base_name, self.known)}
        if subs:
            for t in sorted(subs):
                self._add(t, node.lineno)
            if len(subs) < len(node.names):
                self._add(base_name, node.lineno)
        else:
            self._add(base_name, node.lineno)

    def visit_Call(self, node: ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name == "import_module" and node.args:
            s = _jaxweb_string(node.args[0])
            if s and s.split(".")[0] == "jaxweb":
                self._add(s, node.lineno, "importlib")
        self.generic_visit(node)


def parse(root: Path = ROOT) -> dict[str, Module]:
    """Every module under root/jaxweb with its import edges into jaxweb."""
    files = sorted((root / "jaxweb").rglob("*.py"))
    mods: dict[str, Module] = {}
    for p in files:
        name, is_pkg = _module_name(p, root)
        mods[name] = Module(name, p, is_pkg, p.read_text().count("\n"))
    known = set(mods)
    for m in mods.values():
        _Visitor(m, known).visit(ast.parse(m.path.read_text(), str(m.path)))
    return mods


def edges(mods: dict[str, Module], kinds=("module", "local", "importlib")) -> list[Edge]:
    return [e for m in mods.values() for e in m.edges if e.kind in kinds]


def sccs(nodes, es: list[Edge]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), largest first."""
    graph: dict[str, set[str]] = {n: set() for n in nodes}
    for e in es:
        graph[e.src].add(e.dst)
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return sorted(out, key=len, reverse=True)


def local_statements(es: list[Edge]) -> list[Edge]:
    """Function-local import statements of project modules (one per statement, however many
    modules it names)."""
    return list({(e.src, e.line): e for e in es if e.kind == "local"}.values())


def upward(es: list[Edge]) -> list[Edge]:
    return [e for e in es if floor_of(e.dst) > floor_of(e.src)]


def report(root: Path = ROOT) -> str:
    mods = parse(root)
    src = {n: m for n, m in mods.items() if n.startswith("jaxweb._src")}
    all_e = edges(mods)
    local = local_statements(all_e)
    imp = [e for e in all_e if e.kind == "importlib"]
    lines_total = sum(m.lines for m in mods.values())
    comps = sccs(mods, all_e)
    comps_mod = sccs(mods, edges(mods, ("module",)))
    up = upward(all_e)
    up_local = [e for e in up if e.kind != "module"]
    out = [f"root: {root}",
           f"modules: {len(mods)} ({len(src)} under jaxweb/_src), {lines_total} lines",
           f"function-local project imports: {len(local)} ({1000 * len(local) / lines_total:.1f} per 1,000 lines)",
           f"importlib.import_module('jaxweb...') calls: {len(imp)}",
           f"largest cycle (all edges): {len(comps[0])} files",
           f"largest cycle (module-level edges): {len(comps_mod[0])} files",
           f"upward arrows: {len({(e.src, e.dst) for e in up})} module pairs / {len(up)} import statements "
           f"({len(up_local)} of them local or importlib)",
           "",
           f"{'floor':<10} {'files':>5} {'lines':>6} {'local':>6} {'importlib':>9} {'up pairs':>8}"]
    for i, (name, _) in enumerate(FLOORS):
        ms = [m for m in mods.values() if floor_of(m.name) == i]
        es = [e for m in ms for e in m.edges]
        out.append(f"{name:<10} {len(ms):>5} {sum(m.lines for m in ms):>6} "
                   f"{len(local_statements(es)):>6} {sum(e.kind == 'importlib' for e in es):>9} "
                   f"{len({(e.src, e.dst) for e in up if floor_of(e.src) == i}):>8}")
    if "-v" in sys.argv:
        out += ["", "largest cycle:", "  " + " ".join(c.removeprefix("jaxweb._src.") for c in comps[0]),
                "", "upward arrows:"]
        out += [f"  {e.src} -> {e.dst} ({e.kind}, line {e.line})" for e in sorted(up, key=lambda e: (e.src, e.line))]
    return "\n".join(out)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    print(report(Path(args[0]).resolve() if args else ROOT))
