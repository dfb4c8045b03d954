"""The `wasm` device: kernel IR compiled to WebAssembly (see backend.py)."""
