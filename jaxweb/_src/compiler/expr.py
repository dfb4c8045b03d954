"""Kernel expressions: hash-consed, typed, simplified on construction.

An `Expr` is a node of the kernel IR: constants, loop indices, loads from input
buffers (through index and validity expressions that views produce), ALU ops, casts,
selects, reductions over their own loop indices (`reduce`) and the accumulator of a
kernel's top-level reduction. Identical expressions are the same object, so common
subexpressions are shared for free, and a kernel's text (`key_of`, linear in the
number of distinct nodes: shared nodes are numbered, never re-rendered) is a cache
key. Integer expressions carry value bounds, which drive the index simplifications
that keep view arithmetic cheap.
"""
from __future__ import annotations

import struct
import weakref
from typing import Any

from .. import dtypes
from ..dtypes import DType

UNARY = frozenset("""neg abs sign floor ceil round round_even exp exp2 log log1p expm1 sqrt
rsqrt cbrt sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf erfc erf_inv
lgamma digamma logistic is_finite not population_count clz imag real conj""".split())
BINARY = frozenset("""add sub mul div rem pow max min atan2 nextafter and or xor shl shr_logical
shr_arith lt le gt ge eq ne""".split())
COMPARISONS = frozenset("lt le gt ge eq ne".split())
REDUCE_OPS = ("add", "mul", "max", "min")


class Expr:
    """One IR node. Build with the module functions; never mutate."""

    __slots__ = ("op", "dtype", "src", "arg", "vmin", "vmax", "_key", "__weakref__")

    def __repr__(self) -> str:
        return self.render()

    def render(self) -> str:
        return render([self])

    # Operator sugar for index arithmetic in views and lowering rules.
    def __add__(self, o): return binary("add", self, _lift(o, self.dtype))
    def __radd__(self, o): return binary("add", _lift(o, self.dtype), self)
    def __sub__(self, o): return binary("sub", self, _lift(o, self.dtype))
    def __rsub__(self, o): return binary("sub", _lift(o, self.dtype), self)
    def __mul__(self, o): return binary("mul", self, _lift(o, self.dtype))
    def __rmul__(self, o): return binary("mul", _lift(o, self.dtype), self)
    def __floordiv__(self, o): return binary("div", self, _lift(o, self.dtype))
    def __mod__(self, o): return binary("rem", self, _lift(o, self.dtype))
    def __neg__(self): return unary("neg", self)
    def __lt__(self, o): return binary("lt", self, _lift(o, self.dtype))
    def __le__(self, o): return binary("le", self, _lift(o, self.dtype))
    def __gt__(self, o): return binary("gt", self, _lift(o, self.dtype))
    def __ge__(self, o): return binary("ge", self, _lift(o, self.dtype))
    def __and__(self, o): return binary("and", self, _lift(o, self.dtype))
    def __or__(self, o): return binary("or", self, _lift(o, self.dtype))
    __hash__ = object.__hash__
    __eq__ = object.__eq__

    @property
    def is_const(self) -> bool:
        return self.op == "const"


_CACHE: "weakref.WeakValueDictionary[tuple, Expr]" = weakref.WeakValueDictionary()


def _mk(op: str, dtype: DType, src: tuple = (), arg: Any = None,
        vmin: Any = None, vmax: Any = None) -> Expr:
    key = (op, dtype.name, tuple(id(s) for s in src), _hashable(arg))
    e = _CACHE.get(key)
    if e is not None:
        return e
    e = Expr.__new__(Expr)
    e.op, e.dtype, e.src, e.arg, e._key = op, dtype, src, arg, key
    if vmin is None and dtype.kind in "iub":
        vmin, vmax = _bounds(op, dtype, src, arg)
    e.vmin, e.vmax = vmin, vmax
    _CACHE[key] = e
    return e


def _hashable(arg: Any) -> Any:
    """`arg` as a key part: a float as its IEEE bytes, which tell -0.0 from 0.0 and make a NaN
    equal to itself (the float would do neither); packing is one C call, where the sign and
    `repr` it replaces cost ~0.6 us per constant (every scalar a training step makes is one)."""
    if isinstance(arg, float):
        return ("f", _F64(arg))
    if isinstance(arg, complex):
        return ("c", _C128(arg.real, arg.imag))
    return arg


_F64, _C128 = struct.Struct("<d").pack, struct.Struct("<dd").pack


def _lift(x: Any, dtype: DType) -> Expr:
    return x if isinstance(x, Expr) else const(x, dtype)


# ---------------------------------------------------------------- constructors
def const(value: Any, dtype: DType) -> Expr:
    """A scalar constant, normalized to the dtype's Python type and range."""
    value = normalize_scalar(value, dtype)
    return _mk("const", dtype, (), value, *((value, value) if dtype.kind in "iub" else (None, None)))


def normalize_scalar(value: Any, dtype: DType) -> Any:
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        v = int(value)
        bits = dtype.itemsize * 8
        v &= (1 << bits) - 1
        if dtype.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v
    if dtype.kind == "c":  # only in graph consts and fn bodies: legalized into real parts
        return complex(value)
    return float(value)


#: the largest int32: index arithmetic that can pass it is done in int64
INT32_MAX = (1 << 31) - 1


def idx(name: str, extent: int) -> Expr:
    """A loop index in [0, extent) (int64 only past int32's range)."""
    dt = dtypes.int64 if extent - 1 > INT32_MAX else dtypes.int32
    return _mk("idx", dt, (), (name, extent), 0, max(extent - 1, 0))


def load(slot: int, dtype: DType, index: Expr, valid: Expr | None = None) -> Expr:
    """Read input buffer `slot` at flat element `index`; 0 where `valid` is false."""
    if valid is not None and valid.is_const:
        if not valid.arg:
            return const(0, dtype)
        valid = None
    src = (index,) if valid is None else (index, valid)
    return _mk("load", dtype, src, slot)


def acc(dtype: DType, name: str | None = None) -> Expr:
    """The accumulated value of the kernel's reduction (used in its epilogue); with a name,
    the running value of a nested reduction (inside a code generator)."""
    return _mk("acc", dtype, (), name)


def reduce(op: str, body: Expr, ranges: tuple[Expr, ...]) -> Expr:
    """`op`-reduction of `body` over the loop indices `ranges` (idx nodes that only this
    reduction binds). Empty ranges of extent 0 give the identity; no ranges give `body`."""
    assert op in REDUCE_OPS, op
    if not ranges:
        return body
    if any(r.arg[1] == 0 for r in ranges):
        return identity(op, body.dtype)
    return _mk("reduce", body.dtype, (body,), (op, tuple(r.arg for r in ranges)))


REDUCE_IDENTITY = {
    "add": lambda dt: 0,
    "mul": lambda dt: 1,
    "max": lambda dt: _lowest(dt),
    "min": lambda dt: _highest(dt),
}


def _lowest(dt: DType) -> Any:
    if dt.kind == "f":
        return float("-inf")
    if dt.kind == "c":  # numpy's (lexicographic) order of complex numbers
        return complex(float("-inf"), float("-inf"))
    if dt.kind == "b":
        return False
    return dtypes.iinfo(dt).min


def _highest(dt: DType) -> Any:
    if dt.kind == "f":
        return float("inf")
    if dt.kind == "c":
        return complex(float("inf"), float("inf"))
    if dt.kind == "b":
        return True
    return dtypes.iinfo(dt).max


def identity(op: str, dt: DType) -> Expr:
    """The identity of reduce op `op` in dtype `dt` (the value of an empty reduction)."""
    return const(REDUCE_IDENTITY[op](dt), dt)


def reduce_ranges(e: Expr) -> tuple[Expr, ...]:
    """The idx nodes a `reduce` node binds."""
    return tuple(idx(name, n) for name, n in e.arg[1])


def cast(x: Expr, dtype: DType) -> Expr:
    if x.dtype is dtype:
        return x
    if x.is_const and dtype.kind in "iub" and x.dtype.kind in "iub":
        return const(x.arg, dtype)
    if x.is_const and dtype.kind == "f" and x.dtype.kind in "iub":
        return const(float(x.arg), dtype) if dtype.name in ("float32", "float64") else _mk("cast", dtype, (x,))
    return _mk("cast", dtype, (x,))


def bitcast(x: Expr, dtype: DType) -> Expr:
    return x if x.dtype is dtype else _mk("bitcast", dtype, (x,))


def where(c: Expr, a: Expr, b: Expr) -> Expr:
    if c.is_const:
        return a if c.arg else b
    if a is b:
        return a
    return _mk("where", a.dtype, (c, a, b))


def unary(op: str, x: Expr) -> Expr:
    assert op in UNARY, op
    dt = dtypes.bool_ if op == "is_finite" else x.dtype
    if x.is_const and x.dtype.kind in "iub":
        folded = _fold_int(op, (x.arg,), dt)
        if folded is not None:
            return const(folded, dt)
    return _mk(op, dt, (x,))


def binary(op: str, a: Expr, b: Expr) -> Expr:
    assert op in BINARY, op
    assert a.dtype is b.dtype, f"{op}: {a.dtype} vs {b.dtype}"
    dt = dtypes.bool_ if op in COMPARISONS else a.dtype
    simplified = _simplify(op, a, b, dt)
    if simplified is not None:
        return simplified
    if op in ("add", "mul", "max", "min", "and", "or", "xor", "eq", "ne") and _order(a) > _order(b):
        a, b = b, a  # canonical operand order for commutative ops: constants last
    return _mk(op, dt, (a, b))


def _order(e: Expr) -> int:
    return 1 if e.is_const else 0


# ---------------------------------------------------------------- simplification
def _simplify(op: str, a: Expr, b: Expr, dt: DType) -> Expr | None:
    """Integer/boolean algebra for index and mask expressions. Floats are left alone
    (x*0 is not 0 for NaN, x+0 is not x for -0.0), except exact folds below."""
    if a.dtype.kind not in "iub":
        return None
    if a.is_const and b.is_const:
        v = _fold_int(op, (a.arg, b.arg), dt)
        if v is not None:
            return const(v, dt)
    if b.is_const:
        rule = _RIGHT_CONST_RULES.get((op, a.dtype.kind == "b", b.arg))
        if rule is not None:
            return rule(a)
    if a.is_const and op in ("add", "mul", "and", "or"):
        rule = _RIGHT_CONST_RULES.get((op, a.dtype.kind == "b", a.arg))
        if rule is not None:
            return rule(b)
    if op in COMPARISONS and a.vmin is not None and b.vmin is not None:
        v = _compare_by_bounds(op, a, b)
        if v is not None:
            return const(v, dtypes.bool_)
    if op in ("div", "rem") and b.is_const and b.arg > 0 and a.vmin is not None and a.vmin >= 0:
        return _divmod_simplify(op, a, b.arg)
    if op == "add" and b.is_const and a.op == "add" and a.src[1].is_const:
        return a.src[0] + (a.src[1].arg + b.arg)
    if op == "mul" and b.is_const and a.op == "mul" and a.src[1].is_const:
        return a.src[0] * (a.src[1].arg * b.arg)
    if op == "mul" and b.is_const and a.op == "add" and a.src[1].is_const:
        return a.src[0] * b.arg + a.src[1].arg * b.arg
    if op == "and" and a is b or op == "or" and a is b:
        return a
    return None


# (op, operands are bool, constant operand) -> simplification of the other operand
_RIGHT_CONST_RULES = {
    ("add", False, 0): lambda x: x, ("sub", False, 0): lambda x: x, ("mul", False, 1): lambda x: x,
    ("mul", False, 0): lambda x: const(0, x.dtype), ("div", False, 1): lambda x: x,
    ("rem", False, 1): lambda x: const(0, x.dtype), ("and", False, 0): lambda x: const(0, x.dtype),
    ("or", False, 0): lambda x: x, ("xor", False, 0): lambda x: x,
    ("and", True, True): lambda x: x, ("and", True, False): lambda x: const(False, x.dtype),
    ("or", True, False): lambda x: x, ("or", True, True): lambda x: const(True, x.dtype),
}


def _compare_by_bounds(op: str, a: Expr, b: Expr) -> bool | None:
    if op == "lt":
        return True if a.vmax < b.vmin else False if a.vmin >= b.vmax else None
    if op == "le":
        return True if a.vmax <= b.vmin else False if a.vmin > b.vmax else None
    if op == "gt":
        return _compare_by_bounds("lt", b, a)
    if op == "ge":
        return _compare_by_bounds("le", b, a)
    if op == "eq" and (a.vmax < b.vmin or a.vmin > b.vmax):
        return False
    if op == "ne" and (a.vmax < b.vmin or a.vmin > b.vmax):
        return True
    return None


def _terms(e: Expr) -> list[Expr]:
    return _terms(e.src[0]) + _terms(e.src[1]) if e.op == "add" else [e]


def _coeff(t: Expr) -> tuple[Expr | None, int]:
    if t.is_const:
        return None, t.arg
    if t.op == "mul" and t.src[1].is_const:
        return t.src[0], t.src[1].arg
    return t, 1


def _sum(terms: list[Expr], dt: DType) -> Expr:
    out = const(0, dt)
    for t in terms:
        out = out + t
    return out


def _divmod_simplify(op: str, a: Expr, c: int) -> Expr | None:
    """(sum of terms) // c or % c for non-negative a: split off multiples of c."""
    if a.vmax < c:
        return const(0, a.dtype) if op == "div" else a
    terms = _terms(a)
    whole, rest = [], []
    for t in terms:
        base, k = _coeff(t)
        if k % c == 0:
            whole.append(const(k // c, a.dtype) if base is None else base * (k // c))
        else:
            rest.append(t)
    if not whole:
        if a.op == "div" and a.src[1].is_const and op == "div" and a.src[0].vmin >= 0:
            return a.src[0] // (a.src[1].arg * c)
        return None
    r = _sum(rest, a.dtype)
    if any(_coeff(t)[1] < 0 for t in terms) or r.vmin < 0:
        return None
    if op == "rem":
        return r % c
    return _sum(whole, a.dtype) + r // c


def _fold_int(op: str, args: tuple, dt: DType) -> Any:
    fn = _INT_FOLDS.get(op)
    if fn is None:
        return None
    try:
        return fn(*args)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_INT_FOLDS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _trunc_div, "rem": lambda a, b: a - b * _trunc_div(a, b),
    "max": max, "min": min, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b, "neg": lambda a: -a, "abs": abs,
}


def _bounds(op: str, dt: DType, src: tuple, arg: Any) -> tuple[Any, Any]:
    """Conservative [vmin, vmax] of an integer/bool expression."""
    lo_t, hi_t = _type_range(dt)
    if op in COMPARISONS or dt.kind == "b":
        return 0, 1
    if any(s.vmin is None for s in src) or op not in _BOUND_RULES:
        return lo_t, hi_t
    lo, hi = _BOUND_RULES[op](*src)
    if lo < lo_t or hi > hi_t:  # it can wrap around: then any value of the type
        return lo_t, hi_t
    return lo, hi


def _type_range(dt: DType) -> tuple[int, int]:
    if dt.kind == "b":
        return 0, 1
    bits = dt.itemsize * 8
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt.kind == "i" else (0, (1 << bits) - 1)


def _mul_bounds(a: Expr, b: Expr) -> tuple[int, int]:
    c = [a.vmin * b.vmin, a.vmin * b.vmax, a.vmax * b.vmin, a.vmax * b.vmax]
    return min(c), max(c)


def _div_bounds(a: Expr, b: Expr) -> tuple[int, int]:
    if b.is_const and b.arg > 0 and a.vmin >= 0:
        return a.vmin // b.arg, a.vmax // b.arg
    m = max(abs(a.vmin), abs(a.vmax))
    return -m, m


def _rem_bounds(a: Expr, b: Expr) -> tuple[int, int]:
    if b.is_const and b.arg > 0 and a.vmin >= 0:
        return 0, min(a.vmax, b.arg - 1)
    m = max(abs(b.vmin), abs(b.vmax))
    return -m, m


_BOUND_RULES = {
    "add": lambda a, b: (a.vmin + b.vmin, a.vmax + b.vmax),
    "sub": lambda a, b: (a.vmin - b.vmax, a.vmax - b.vmin),
    "mul": _mul_bounds, "div": _div_bounds, "rem": _rem_bounds,
    "max": lambda a, b: (max(a.vmin, b.vmin), max(a.vmax, b.vmax)),
    "min": lambda a, b: (min(a.vmin, b.vmin), min(a.vmax, b.vmax)),
    "neg": lambda a: (-a.vmax, -a.vmin),
    "where": lambda c, a, b: (min(a.vmin, b.vmin), max(a.vmax, b.vmax)),
    "cast": lambda a: (a.vmin, a.vmax),
}


# ---------------------------------------------------------------- rendering
def _atom(e: Expr) -> str | None:
    if e.op == "const":
        return f"{e.arg!r}:{e.dtype.name}"
    if e.op == "idx":
        return e.arg[0]
    if e.op == "acc":
        return "acc"
    return None


def _node_text(e: Expr, inner: str) -> str:
    if e.op == "load":
        return f"in{e.arg}[{inner}]"
    if e.op in ("cast", "bitcast"):
        return f"{e.op}<{e.dtype.name}>({inner})"
    if e.op == "reduce":
        ranges = ",".join(f"{n}<{k}" for n, k in e.arg[1])
        return f"reduce_{e.arg[0]}[{ranges}]({inner})"
    return f"{e.op}({inner})"


def render(roots, names: dict | None = None) -> str:
    """Readable text of expressions: nodes used more than once are bound once as `%k`
    (so the text stays linear in the DAG's size), the rest inline."""
    roots = list(roots)
    uses: dict[int, int] = {}
    order = []
    for n in walk_all(roots):
        order.append(n)
        for s in n.src:
            uses[id(s)] = uses.get(id(s), 0) + 1
    for r in roots:
        uses[id(r)] = uses.get(id(r), 0) + 1
    root_ids = {id(r) for r in roots}
    text: dict[int, str] = {}
    lets = []
    for n in order:
        a = _atom(n)
        if a is not None:
            text[id(n)] = a
            continue
        t = _node_text(n, ", ".join(text[id(s)] for s in n.src))
        if uses.get(id(n), 0) > 1 and id(n) not in root_ids:
            name = f"%{len(lets)}"
            lets.append(f"{name} = {t}")
            t = name
        text[id(n)] = t
    body = "; ".join(text[id(r)] for r in roots)
    return body if not lets else "let " + "; ".join(lets) + " in " + body


def key_of(roots) -> str:
    """A compact text identifying the expressions exactly: every distinct node once, in
    post-order, referring to its operands by position (linear in the number of nodes)."""
    pos: dict[int, int] = {}
    parts = []
    for n in walk_all(roots):
        pos[id(n)] = len(parts)
        a = _atom(n)
        if a is not None:
            parts.append(a)
            continue
        arg = "" if n.arg is None else repr(n.arg)
        parts.append(f"{n.op}:{n.dtype.name}:{arg}(" + ",".join(str(pos[id(s)]) for s in n.src) + ")")
    return ";".join(parts) + "|" + ",".join(str(pos[id(r)]) for r in roots)


def walk_all(roots, seen: set | None = None, stop=None):
    """Post-order traversal of the distinct nodes under several roots."""
    seen = set() if seen is None else seen
    for r in roots:
        yield from walk(r, seen, stop)


def walk(e: Expr, seen: set | None = None, stop=None):
    """Post-order traversal of distinct nodes; a node for which `stop(node)` is true is
    visited but not entered (its sources are not walked through it)."""
    seen = set() if seen is None else seen
    stack = [(e, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in seen:
            continue
        if done:
            seen.add(id(n))
            yield n
        else:
            stack.append((n, True))
            if stop is None or not stop(n):
                stack.extend((s, False) for s in reversed(n.src))


def free_indices(roots, free: dict | None = None) -> dict[int, frozenset]:
    """id(node) -> names of the loop indices it depends on (a reduction binds its own);
    `free`: a map of earlier roots' nodes to extend (those are not walked again)."""
    free = {} if free is None else free
    empty = frozenset()
    for e in walk_all(roots, set(free)):
        if e.op == "idx":
            free[id(e)] = frozenset((e.arg[0],))
        elif not e.src:
            free[id(e)] = empty
        elif e.op == "reduce":
            free[id(e)] = free[id(e.src[0])] - {name for name, _ in e.arg[1]}
        elif len(e.src) == 1:
            free[id(e)] = free[id(e.src[0])]
        else:
            acc = free[id(e.src[0])]
            for s in e.src[1:]:
                acc = acc | free[id(s)]
            free[id(e)] = acc
    return free


def rewrite(roots, fn) -> list[Expr]:
    """`roots` rebuilt bottom-up (shared nodes once): a node for which `fn(node, new_srcs)`
    returns an expression becomes it; the others are rebuilt over their new sources, or kept
    when those are unchanged. The expansions of transcendental ops are written with it."""
    memo: dict[int, Expr] = {}
    for n in walk_all(roots):
        if not n.src:
            memo[id(n)] = n
            continue
        srcs = tuple(memo[id(s)] for s in n.src)
        new = fn(n, srcs)
        if new is None:
            new = n if all(a is b for a, b in zip(srcs, n.src)) else rebuild(n, srcs)
        memo[id(n)] = new
    return [memo[id(r)] for r in roots]


def substitute(e: Expr, mapping: dict) -> Expr:
    """Rebuild `e` with nodes replaced per `mapping` (keyed by node id)."""
    memo: dict[int, Expr] = {}
    for n in walk(e):
        if id(n) in mapping:
            memo[id(n)] = mapping[id(n)]
            continue
        if not n.src:
            memo[id(n)] = n
            continue
        srcs = tuple(memo[id(s)] for s in n.src)
        memo[id(n)] = rebuild(n, srcs)
    return memo[id(e)]


def rebuild(n: Expr, srcs: tuple) -> Expr:
    if n.op == "reduce":
        return reduce(n.arg[0], srcs[0], reduce_ranges(n))
    if n.op == "load":
        return load(n.arg, n.dtype, srcs[0], srcs[1] if len(srcs) > 1 else None)
    if n.op == "cast":
        return cast(srcs[0], n.dtype)
    if n.op == "bitcast":
        return bitcast(srcs[0], n.dtype)
    if n.op == "where":
        return where(*srcs)
    if n.op in UNARY:
        return unary(n.op, srcs[0])
    return binary(n.op, *srcs)
