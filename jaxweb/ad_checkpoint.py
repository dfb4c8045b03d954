"""`jax.ad_checkpoint`: rematerialization (`checkpoint`) and its policies and names."""
from jaxweb._src.checkpoint import checkpoint, checkpoint_name, checkpoint_policies, remat

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "remat"]
