"""`optax.tree_utils` on jaxweb: arithmetic on pytrees (`tree_add`, `tree_norm`, ...)."""
from jaxweb._src.optax.tree_utils import *  # noqa: F401,F403
from jaxweb._src.optax.tree_utils import tree_get, tree_get_all_with_path  # noqa: F401
