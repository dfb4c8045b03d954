"""Weights in and out: .npy/.npz (numpy's format byte for byte), safetensors and whole
pytrees, in pure Python (struct, json, zipfile, mmap) so that they work in Pyodide,
where there is no numpy. Public faces: `jnp.save/savez/load`, `jaxweb.safetensors`,
`jaxweb.io`."""
