"""`jax.ad_checkpoint`: rematerialization (`checkpoint`) and its policies and names."""
from jaxweb._src.checkpoint import (Offloadable, Recompute, Saveable, checkpoint, checkpoint_name,
                                    checkpoint_policies, remat)
from jaxweb._src.residuals import print_saved_residuals

__all__ = ["Offloadable", "Recompute", "Saveable", "checkpoint", "checkpoint_name",
           "checkpoint_policies", "print_saved_residuals", "remat"]
