"""optax's API on jaxweb: gradient transformations, optimizers, schedules, losses.

Public namespace: `jaxweb.optax` (`import jaxweb.optax as optax`). optax's published
update formulas are the specification; every update is plain elementwise jnp over each
leaf (so a fusing compiler turns a pytree's update into one kernel per leaf).
"""
