"""`jaxweb.scipy.cluster.vq`: vq (see jaxweb/_src/scipy/cluster.py)."""
from jaxweb._src.scipy.cluster import vq  # noqa: F401

__all__ = ["vq"]
