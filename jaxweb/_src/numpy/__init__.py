"""jaxweb.numpy, implemented with lax primitives (one module per family of functions)."""
