"""`jax.test_util`: gradient checks against finite differences (no numpy needed)."""
from jaxweb._src.test_util import check_grads, check_jvp, check_vjp

__all__ = ["check_grads", "check_jvp", "check_vjp"]
