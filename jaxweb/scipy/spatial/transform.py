"""`jaxweb.scipy.spatial.transform`: Rotation and Slerp (see jaxweb/_src/scipy/spatial_transform.py)."""
from jaxweb._src.scipy.spatial_transform import Rotation, Slerp  # noqa: F401

__all__ = ["Rotation", "Slerp"]
