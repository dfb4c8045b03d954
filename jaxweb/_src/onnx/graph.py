"""ONNX graphs as Python objects, and their execution as jaxweb code.

`Graph.build` turns a decoded GraphProto into nodes whose attributes are parsed and whose
operator implementation is resolved once, at load time: an operator jaxweb.onnx lacks
raises there, naming the op, the opset and the node. `run` walks the nodes in order
(ONNX graphs are topologically sorted) over an environment of named values; it is plain
traceable code, so `jit`, `grad` and `vmap` apply to it.
"""
from __future__ import annotations

from typing import Any

from jaxweb._src import core

from . import registry
from .registry import unsupported
from .schema import ATTRIBUTE_FIELD
from .tensors import DTYPE_NAMES, HostTensor, from_proto

DATA_DEPENDENT = ("NonZero", "Unique")
HOST_LIMIT = 4096  # elements: beyond this, shape-like arithmetic runs on the device


class ValueInfo:
    """A graph input or output: name, ONNX element type, and shape (ints, or strings for
    symbolic dimensions, None for unknown ones; `shape` is None when the rank is unknown)."""
    __slots__ = ("name", "elem_type", "shape")

    def __init__(self, name: str, elem_type: int, shape: tuple | None):
        self.name, self.elem_type, self.shape = name, elem_type, shape

    @classmethod
    def from_proto(cls, v: dict) -> "ValueInfo":
        t = v.get("type", {})
        tt = t.get("tensor_type")
        if tt is None:
            if t:
                kind = next(iter(t)).replace("_type", "")
                raise registry.Unsupported(f"jaxweb.onnx: value {v.get('name', '')!r} is a {kind}; "
                                           "only tensors are supported")
            return cls(v.get("name", ""), 0, None)
        shape = None
        if "shape" in tt:
            shape = tuple(d["dim_value"] if "dim_value" in d else d.get("dim_param") for d in tt["shape"]["dim"])
        return cls(v.get("name", ""), tt.get("elem_type", 0), shape)

    @property
    def type(self) -> str:
        """onnxruntime's spelling of the type: 'tensor(float)'."""
        name = DTYPE_NAMES.get(self.elem_type, "undefined")
        return f"tensor({ {'float32': 'float', 'float64': 'double', 'bool': 'bool'}.get(name, name) })"

    def __repr__(self) -> str:
        return f"ValueInfo(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


def _attribute(a: dict, opset: int, base_dir: str | None, functions: dict) -> Any:
    kind = a.get("type", 0)
    field = ATTRIBUTE_FIELD.get(kind)
    if field is None:  # old files without `type`: the one value field present
        field = next((f for f in ("f", "i", "s", "t", "g") if f in a), None) or next(
            (f for f in ("floats", "ints", "strings", "tensors", "graphs") if a.get(f)), "ints")
    v = a.get(field)
    if field == "s":
        return bytes(v).decode("utf-8", "replace")
    if field == "strings":
        return [bytes(s).decode("utf-8", "replace") for s in v]
    if field == "t":
        return from_proto(v, base_dir)
    if field == "tensors":
        return [from_proto(t, base_dir) for t in v]
    if field == "g":
        return Graph.build(v, opset, base_dir, functions)
    if field == "graphs":
        return [Graph.build(g, opset, base_dir, functions) for g in v]
    if field in ("floats", "ints"):
        return list(v)
    return v


class Node:
    """One operator application: attributes parsed, implementation resolved."""
    __slots__ = ("op_type", "domain", "name", "inputs", "outputs", "attrs", "opset", "opdef")

    def __init__(self, proto: dict, opset: int, base_dir: str | None, functions: dict):
        self.op_type, self.domain = proto.get("op_type", ""), proto.get("domain", "")
        self.name = proto.get("name", "") or f"{self.op_type}->{','.join(proto.get('output', []))}"
        self.inputs, self.outputs, self.opset = list(proto["input"]), list(proto["output"]), opset
        self.attrs = {a["name"]: _attribute(a, opset, base_dir, functions) for a in proto["attribute"]}
        self.opdef = registry.lookup(self.domain, self.op_type, opset)
        if self.opdef is None:
            self.opdef = functions.get((self.domain, self.op_type))
        if self.opdef is None:
            where = f"domain {self.domain!r}, " if self.domain not in registry.DEFAULT_DOMAINS else ""
            raise unsupported(self, f"{where}operator not supported by jaxweb.onnx")

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)


class Graph:
    __slots__ = ("name", "nodes", "inputs", "outputs", "initializers")

    @classmethod
    def build(cls, proto: dict, opset: int, base_dir: str | None = None, functions: dict | None = None) -> "Graph":
        registry._load_families()
        g = cls()
        g.name = proto.get("name", "")
        g.initializers = {t.get("name", ""): from_proto(t, base_dir) for t in proto["initializer"]}
        for sp in proto["sparse_initializer"]:
            g.initializers[sp["values"].get("name", "")] = _densify(sp, base_dir)
        g.inputs = [ValueInfo.from_proto(v) for v in proto["input"] if v.get("name") not in g.initializers]
        g.outputs = [ValueInfo.from_proto(v) for v in proto["output"]]
        g.nodes = [Node(n, opset, base_dir, functions or {}) for n in proto["node"]]
        return g

    def static_inputs(self) -> list[str]:
        """Graph inputs whose values must be known at trace time: they reach an operand that
        must be static (a Reshape's shape, a reduction's axes), directly or through
        operators that fold on the host (subgraphs included). Jitted calls treat them as
        static arguments."""
        needed = self.needs_static()
        return [i.name for i in self.inputs if i.name in needed]

    def needs_static(self) -> set:
        """Names (this graph's or outer ones) whose values must be static here."""
        needed: set = set()
        for node in reversed(self.nodes):
            d = node.opdef
            for i in getattr(d, "static", ()):
                if i < len(node.inputs) and node.inputs[i]:
                    needed.add(node.inputs[i])
            if (getattr(d, "host", None) is not None or d.scope) and any(o in needed for o in node.outputs):
                needed.update(n for n in node.inputs if n)
            for v in node.attrs.values():
                for sub in (v if isinstance(v, list) else [v]):
                    if isinstance(sub, Graph):
                        needed |= sub.needs_static() - sub.defined()
        return needed

    def defined(self) -> set:
        return {o for n in self.nodes for o in n.outputs} | {i.name for i in self.inputs} | set(self.initializers)

    def dynamic_shapes(self) -> bool:
        """Whether an output shape depends on values (NonZero): such graphs run eagerly."""
        return any(n.op_type in DATA_DEPENDENT for n in self.all_nodes())

    def all_nodes(self):
        """Every node, those of subgraphs (If/Loop/Scan bodies) included."""
        for n in self.nodes:
            yield n
            for v in n.attrs.values():
                for sub in (v if isinstance(v, list) else [v]):
                    if isinstance(sub, Graph):
                        yield from sub.all_nodes()


def _densify(sp: dict, base_dir: str | None) -> HostTensor:
    values, dims = from_proto(sp["values"], base_dir), tuple(sp["dims"])
    idx = from_proto(sp["indices"], base_dir).ints()
    size = 1
    for d in dims:
        size *= d
    flat = [0] * size
    if len(idx) == values.size * len(dims) and len(dims) > 1:  # [NNZ, rank] coordinates
        strides = [1] * len(dims)
        for i in range(len(dims) - 2, -1, -1):
            strides[i] = strides[i + 1] * dims[i + 1]
        idx = [sum(idx[k * len(dims) + j] * strides[j] for j in range(len(dims))) for k in range(values.size)]
    for i, v in zip(idx, values.values):
        flat[i] = v
    return HostTensor(values.dtype, dims, values=flat)


def _is_small_host(x: Any) -> bool:
    return x is None or (isinstance(x, HostTensor) and x.size <= HOST_LIMIT)


def to_static(node: Node, x: Any, position: int, graph_inits: dict) -> HostTensor:
    """An input that must be known at trace time, as a HostTensor."""
    if isinstance(x, HostTensor):
        return x
    name = node.inputs[position]
    if name in graph_inits:  # an initializer passed as a parameter: its loaded value
        return graph_inits[name]
    if isinstance(x, core.Tracer):
        raise ValueError(f"jaxweb.onnx: {node.op_type} (node {node.name!r}) needs input {position} "
                         f"({name!r}) to be known at trace time, but it is computed from traced values")
    flat = x.reshape(-1).tolist()
    return HostTensor(x.dtype, x.shape, values=flat)


def run_node(node: Node, env: dict, inits: dict) -> None:
    args = [env[name] if name else None for name in node.inputs]
    opdef = node.opdef
    for i in opdef.static:
        if i < len(args) and args[i] is not None:
            args[i] = to_static(node, args[i], i, inits)
    out = None
    try:
        if opdef.host is not None and all(_is_small_host(a) for a in args):
            out = opdef.host(node, *args)
        if out is None or out is NotImplemented:
            out = opdef.fn(node, Scope(env, inits), *args) if opdef.scope else opdef.fn(node, *args)
    except registry.Unsupported:
        raise
    except Exception as e:  # keep the type; say which node raised
        if not getattr(e, "_onnx_noted", False):
            e.add_note(f"in ONNX node {node.name!r} ({node.op_type}, opset {node.opset})")
            e._onnx_noted = True
        raise
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for name, value in zip(node.outputs, outs):
        if name:
            env[name] = value


class Scope:
    """The names visible where a control-flow node runs: its subgraphs read outer values."""
    __slots__ = ("env", "inits")

    def __init__(self, env: dict, inits: dict):
        self.env, self.inits = env, inits

    def run(self, graph: Graph, inputs: list) -> list:
        """Run subgraph `graph` with its formal inputs bound to `inputs`."""
        env = dict(self.env)
        env.update(graph.initializers)
        for info, value in zip(graph.inputs, inputs):
            env[info.name] = value
        return run(graph, env, self.inits)


def run(graph: Graph, env: dict, inits: dict | None = None) -> list:
    """Evaluate `graph` over `env` (names -> values; outer scopes' values included) and
    return its outputs' values."""
    inits = graph.initializers if inits is None else {**inits, **graph.initializers}
    for node in graph.nodes:
        run_node(node, env, inits)
    return [env[o.name] for o in graph.outputs]
