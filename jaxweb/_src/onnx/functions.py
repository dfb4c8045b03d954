"""Model-local functions (ModelProto.functions): a FunctionProto called like an operator.
Its body runs inline with the call's inputs; attributes the body takes by reference
(`ref_attr_name`) come from the calling node or the function's defaults."""
from __future__ import annotations

from . import graph as graphs
from .registry import OpDef


class _Function:
    def __init__(self, proto: dict, opset: int):
        self.proto, self.opset = proto, opset
        self.defaults = {a["name"]: a for a in proto["attribute_proto"]}
        self._bodies: dict = {}

    def body(self, call: "graphs.Node") -> list:
        """The body's nodes with the call's attribute values substituted (built once per call)."""
        key = id(call)
        if key not in self._bodies:
            nodes = []
            for n in self.proto["node"]:
                plain = {**n, "attribute": [a for a in n["attribute"] if not a.get("ref_attr_name")]}
                node = graphs.Node(plain, self.opset, None, {})
                for a in n["attribute"]:
                    ref = a.get("ref_attr_name")
                    if ref and ref in call.attrs:
                        node.attrs[a["name"]] = call.attrs[ref]
                    elif ref and ref in self.defaults:
                        node.attrs[a["name"]] = graphs._attribute(self.defaults[ref], self.opset, None, {})
                nodes.append(node)
            self._bodies[key] = (call, nodes)
        return self._bodies[key][1]

    def __call__(self, call: "graphs.Node", *args):
        env = {name: value for name, value in zip(self.proto["input"], args) if value is not None}
        for node in self.body(call):
            graphs.run_node(node, env, {})
        return tuple(env[name] for name in self.proto["output"])


def local_functions(protos: list, model_opsets: dict, default_opset: int) -> dict:
    """(domain, name) -> an OpDef running that function's body."""
    out = {}
    for p in protos:
        own = {o.get("domain", ""): o.get("version", 1) for o in p["opset_import"]}
        fn = _Function(p, own.get("", own.get("ai.onnx", default_opset)))
        out[(p.get("domain", ""), p.get("name", ""))] = OpDef(p.get("name", ""), 1, fn, (), None)
    return out
