"""`jaxweb.ref`: JAX's jax.ref, mutable array references (see jaxweb/_src/refs.py)."""
from jaxweb._src.refs import AbstractRef, Ref, addupdate, empty_ref, free_ref, freeze, get, new_ref, set, swap  # noqa: F401,A004

__all__ = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get", "new_ref", "set", "swap"]
