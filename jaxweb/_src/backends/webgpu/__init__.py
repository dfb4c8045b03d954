"""The webgpu device: kernel IR -> WGSL (codegen, matmul), run by wgpu-py or js_shim/gpu.mjs."""
