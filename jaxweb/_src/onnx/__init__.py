"""jaxweb.onnx's implementation: protobuf reader, tensors, graphs, the operator table."""
