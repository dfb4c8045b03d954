"""jaxweb internals. Public names live in jaxweb, jaxweb.numpy, jaxweb.lax, ..."""
