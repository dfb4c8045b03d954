"""einsum's argument forms and contraction order: the sublist form, `einsum_path`.

The sublist form `einsum(a, [0, 1], b, [1, 2], [0, 2])` is rewritten into a subscripts
string. The contraction order is a greedy pairwise path, as opt_einsum's 'greedy':
repeatedly contract the pair whose result is smallest (ties: the cheaper product, then
the earlier pair), appending each result to the end of the operand list; so a path is
the list of position pairs numpy, opt_einsum and JAX print, and `einsum` follows it.
"""
from __future__ import annotations

__all__ = ["einsum_path"]

import string
from typing import Any, Sequence
from .linalg_ops import _label_sizes, _parse

_LETTERS = string.ascii_letters


def is_sublist_form(subscripts: Any) -> bool:
    return not isinstance(subscripts, str)


def sublists_to_subscripts(args: Sequence[Any]) -> tuple[str, list]:
    """(subscripts string, operands) for `op0, sub0, op1, sub1, ..., [out]`."""
    args = list(args)
    out = args.pop() if len(args) % 2 else None
    ops, subs = args[0::2], args[1::2]

    def letters(sub: Sequence[Any]) -> str:
        text = []
        for s in sub:
            if s is Ellipsis:
                text.append("...")
                continue
            try:
                i = int(s)
            except TypeError:
                raise TypeError(f"einsum: sublist entries must be integers or Ellipsis, got {s!r}") from None
            if not 0 <= i < len(_LETTERS):
                raise ValueError(f"einsum: subscript {i} out of range [0, {len(_LETTERS)})")
            text.append(_LETTERS[i])
        return "".join(text)

    subscripts = ",".join(letters(s) for s in subs)
    if out is not None:
        subscripts += "->" + letters(out)
    return subscripts, ops


def _size(labels: str, sizes: dict[str, int]) -> int:
    n = 1
    for c in labels:
        n *= sizes.get(c, 1)
    return n


def _result_labels(a: str, b: str, rest: list[str], out: str) -> str:
    keep = set(out).union(*map(set, rest))
    seen = []
    for c in a + b:
        if c in keep and c not in seen:
            seen.append(c)
    return "".join(seen)


def greedy_path(labels: list[str], out: str, sizes: dict[str, int]) -> list[tuple[int, ...]]:
    """Pairs of positions to contract, smallest intermediate first."""
    terms = list(labels)
    if len(terms) == 1:
        return [(0,)]
    path = []
    while len(terms) > 1:
        best = None
        for i in range(len(terms)):
            for j in range(i + 1, len(terms)):
                rest = [t for k, t in enumerate(terms) if k not in (i, j)]
                res = _result_labels(terms[i], terms[j], rest, out)
                cost = (_size(res, sizes), _size("".join(set(terms[i] + terms[j])), sizes))
                if best is None or cost < best[0]:
                    best = (cost, i, j, res)
        _, i, j, res = best
        path.append((i, j))
        terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [res]
    return path


class EinsumPathInfo:
    """What `einsum_path` returns second: the contraction and its costs, printable."""

    def __init__(self, subscripts: str, path: list, naive: int, optimized: int, largest: int,
                 steps: list[str]):
        self.eq, self.path, self.naive_cost, self.opt_cost = subscripts, path, naive, optimized
        self.largest_intermediate, self.steps = largest, steps
        self.speedup = naive / optimized if optimized else 1.0

    def __repr__(self) -> str:
        lines = [f"  Complete contraction:  {self.eq}",
                 f"      Naive FLOP count:  {self.naive_cost:.3e}",
                 f"  Optimized FLOP count:  {self.opt_cost:.3e}",
                 f"   Theoretical speedup:  {self.speedup:.3e}",
                 f"  Largest intermediate:  {self.largest_intermediate:.3e} elements",
                 "-" * 60, f"{'current':>30}  {'remaining':>26}", "-" * 60]
        lines += self.steps
        return "\n".join(lines)

    __str__ = __repr__


def path_info(subscripts: str, labels: list[str], out: str, sizes: dict[str, int],
              path: list) -> EinsumPathInfo:
    """Costs of following `path` (a multiply-add counts 2, as opt_einsum counts)."""
    all_labels = "".join(sorted(set("".join(labels)) | set(out)))
    naive = max(len(labels) - 1, 1) * _size(all_labels, sizes) * (2 if len(labels) > 1 else 1)
    terms, cost, largest, steps = list(labels), 0, 0, []
    for pair in path:
        picked = [terms[k] for k in pair]
        rest = [t for k, t in enumerate(terms) if k not in pair]
        res = out if not rest else (_result_labels(picked[0], picked[-1], rest, out)
                                    if len(pair) == 2 else picked[0])
        cost += _size("".join(set("".join(picked))), sizes) * (2 if len(pair) == 2 else 1)
        largest = max(largest, _size(res, sizes))
        terms = rest + [res]
        steps.append(f"{','.join(picked) + '->' + res:>30}  {','.join(terms) + '->' + out:>26}")
    return EinsumPathInfo(subscripts, path, naive, cost, largest, steps)


def einsum_path(subscripts: Any, *operands: Any, optimize: Any = "greedy") -> tuple[list, Any]:
    """`jnp.einsum_path`: (contraction path, description) for these operands' shapes."""
    if is_sublist_form(subscripts):
        subscripts, operands = sublists_to_subscripts((subscripts, *operands))
    shapes = [tuple(getattr(o, "shape", ())) for o in operands]
    labels, out = _parse(subscripts, shapes)
    sizes = _label_sizes(labels, shapes)
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        path = [tuple(p) for p in optimize[1:]]
    elif isinstance(optimize, (list, tuple)):
        path = [tuple(p) for p in optimize]
    elif optimize is False or optimize is None:
        path = [(0, 1)] * (len(labels) - 1) if len(labels) > 1 else [(0,)]
    else:
        path = greedy_path(labels, out, sizes)
    return path, path_info(subscripts, labels, out, sizes, path)
