"""ONNX models as jaxweb functions: `load` and onnxruntime's `InferenceSession`.

`load` parses the file (its own protobuf reader: no `onnx` package, so it works in Pyodide),
resolves every node's operator (an unsupported one raises here, naming op, opset and node),
and splits the initializers: floating-point ones become `params`, a pytree (dict) of device
arrays that `apply` takes as its first argument, so `grad` reaches them; integer and boolean
ones stay static host values (shapes, axes, indices). `apply(params, *inputs)` and
`__call__(*inputs)` are plain traceable functions: jit, grad and vmap apply.
"""
from __future__ import annotations

import os
from typing import Any

import jaxweb.numpy as jnp

from ..api import jit
from ..device import devices

from . import graph as graphs
from .protobuf import decode
from .functions import local_functions
from .schema import MODEL
from .tensors import HostTensor, onnx_dtype
from .util import arr, canon


def _read(source: Any) -> tuple[memoryview, str | None]:
    """The model's bytes and the folder its external data lives in."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return memoryview(source), None
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return memoryview(f.read()), os.path.dirname(os.path.abspath(source))
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        return memoryview(source.read()), os.path.dirname(os.path.abspath(name)) if isinstance(name, str) else None
    if hasattr(source, "SerializeToString"):  # an onnx.ModelProto, natively
        return memoryview(source.SerializeToString()), None
    raise TypeError(f"jaxweb.onnx.load: expected a path, bytes or a binary file, got {type(source).__name__}")


class Model:
    """A loaded ONNX model: `inputs`/`outputs` (ValueInfo), `params` (floating-point
    initializers as arrays), `opset`, and `apply`/`__call__` as traceable functions."""

    def __init__(self, proto: dict, base_dir: str | None = None):
        opsets = {o.get("domain", ""): o.get("version", 1) for o in proto["opset_import"]}
        self.opset = opsets.get("", opsets.get("ai.onnx", 1))
        self.ir_version = proto.get("ir_version", 0)
        self.producer = f"{proto.get('producer_name', '')} {proto.get('producer_version', '')}".strip()
        if "graph" not in proto:
            raise ValueError("jaxweb.onnx.load: the model has no graph")
        functions = local_functions(proto["functions"], opsets, self.opset)
        self.graph = graphs.Graph.build(proto["graph"], self.opset, base_dir, functions)
        self.inputs, self.outputs = self.graph.inputs, self.graph.outputs
        inits = self.graph.initializers
        self.params = {k: v.array() for k, v in inits.items() if v.dtype.kind in "fc"}
        self.constants = {k: v for k, v in inits.items() if k not in self.params}
        for v in self.inputs + self.outputs:
            if v.elem_type:
                onnx_dtype(v.elem_type, f"graph {'input' if v in self.inputs else 'output'} {v.name!r}")
        self.static_inputs = self.graph.static_inputs()
        self._jits: dict = {}

    def _feed(self, info: graphs.ValueInfo, value: Any) -> Any:
        """An input value as an array of the dtype the graph declares for it."""
        if isinstance(value, HostTensor):
            return value
        want = canon(onnx_dtype(info.elem_type, f"input {info.name!r}")) if info.elem_type else None
        return jnp.asarray(value, dtype=want)

    def apply(self, params: dict, *inputs: Any, **named: Any) -> Any:
        """The graph's outputs for `inputs` (positional in graph order, or by name), with
        `params` in place of the loaded floating-point initializers. One output comes back
        as an array, several as a tuple."""
        env: dict = dict(self.constants)
        env.update(params)
        if len(inputs) > len(self.inputs):
            raise TypeError(f"the model takes {len(self.inputs)} inputs, got {len(inputs)}")
        given = dict(zip((i.name for i in self.inputs), inputs))
        given.update(named)
        for info in self.inputs:
            if info.name not in given:
                raise TypeError(f"missing model input {info.name!r}")
            env[info.name] = self._feed(info, given[info.name])
        outs = [arr(v) for v in graphs.run(self.graph, env)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def __call__(self, *inputs: Any, **named: Any) -> Any:
        return self.apply(self.params, *inputs, **named)

    def jitted(self, params: dict, feeds: dict) -> Any:
        """`apply(params, **feeds)` through `jit`, with the static inputs (those a shape or
        axes is computed from) as static arguments: one compilation per distinct value of
        them, as onnxruntime plans per shape. Graphs with value-dependent shapes (NonZero)
        run eagerly."""
        statics, dynamic = {}, {}
        infos = {i.name: i for i in self.inputs}
        for name, value in feeds.items():
            if name in self.static_inputs and name in infos:
                statics[name] = HostTensor.from_value(value, onnx_dtype(infos[name].elem_type))
            else:
                dynamic[name] = value
        if self.graph.dynamic_shapes():
            return self.apply(params, **statics, **dynamic)
        key = tuple((k, v.dtype.name, v.shape, tuple(v.values)) for k, v in sorted(statics.items()))
        fn = self._jits.get(key)
        if fn is None:
            fn = self._jits[key] = jit(lambda p, d: self.apply(p, **statics, **d))
        return fn(params, dynamic)

    def __repr__(self) -> str:
        ins = ", ".join(f"{i.name}: {i.type}{list(i.shape) if i.shape is not None else ''}" for i in self.inputs)
        return f"<jaxweb.onnx model opset {self.opset}, {len(self.graph.nodes)} nodes ({ins})>"


def load(source: Any, base_dir: str | None = None) -> Model:
    """Load an ONNX model from a path, bytes or a binary file."""
    data, where = _read(source)
    return Model(decode(data, MODEL), base_dir if base_dir is not None else where)


class NodeArg:
    """onnxruntime's description of an input or output: name, type string, shape."""

    def __init__(self, info: graphs.ValueInfo):
        self.name, self.type = info.name, info.type
        self.shape = list(info.shape) if info.shape is not None else None

    def __repr__(self) -> str:
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


class InferenceSession:
    """onnxruntime's interface over a jitted model: `get_inputs()`, `get_outputs()`,
    `run(output_names | None, {input_name: array}) -> list of arrays`."""

    def __init__(self, path_or_bytes: Any, sess_options: Any = None, providers: Any = None, **kwargs: Any):
        self.model = load(path_or_bytes)

    def get_inputs(self) -> list[NodeArg]:
        return [NodeArg(i) for i in self.model.inputs]

    def get_outputs(self) -> list[NodeArg]:
        return [NodeArg(o) for o in self.model.outputs]

    def get_providers(self) -> list[str]:
        return [f"jaxweb:{devices()[0].platform}"]

    def run(self, output_names: list[str] | None, input_feed: dict, run_options: Any = None) -> list:
        known = {i.name: i for i in self.model.inputs}
        unknown = [k for k in input_feed if k not in known]
        if unknown:
            raise ValueError(f"unknown input name(s) {unknown}; the model's inputs are {list(known)}")
        feeds = dict(input_feed)
        out = self.model.jitted(self.model.params, feeds)
        outs = dict(zip((o.name for o in self.model.outputs), out if isinstance(out, tuple) else (out,)))
        names = output_names or list(outs)
        missing = [n for n in names if n not in outs]
        if missing:
            raise ValueError(f"unknown output name(s) {missing}; the model's outputs are {list(outs)}")
        return [outs[n] for n in names]
