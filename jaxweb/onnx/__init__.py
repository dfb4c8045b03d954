"""`jaxweb.onnx`: run ONNX models as jaxweb functions (jit, grad, vmap; wasm, webgpu).

    model = jaxweb.onnx.load("model.onnx")       # path, bytes or a binary file
    y = model(x)                                 # == model.apply(model.params, x)
    grads = jax.grad(lambda p: loss(model.apply(p, x)))(model.params)

    sess = jaxweb.onnx.InferenceSession("model.onnx")   # onnxruntime's interface
    [y] = sess.run(None, {sess.get_inputs()[0].name: x})

The file is read by jaxweb's own protobuf reader (no `onnx` package needed, so it works in
Pyodide). Operators of the default domain, opsets 7-22; `supported_ops()` lists them. An
unsupported operator raises NotImplementedError at load time naming the op, opset and node.
int64 tensors compute as int32 unless x64 is on, as everywhere in jaxweb.
"""
from jaxweb._src.onnx.model import InferenceSession, Model, NodeArg, load
from jaxweb._src.onnx.registry import Unsupported, supported_ops
from jaxweb._src.onnx.tensors import HostTensor

__all__ = ["HostTensor", "InferenceSession", "Model", "NodeArg", "Unsupported", "load", "supported_ops"]
