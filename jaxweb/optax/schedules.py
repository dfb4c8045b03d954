"""`optax.schedules` on jaxweb."""
from jaxweb._src.optax.inject import (  # noqa: F401
    InjectHyperparamsState, InjectStatefulHyperparamsState, WrappedSchedule, inject_hyperparams,
    inject_stateful_hyperparams)
from jaxweb._src.optax.schedules import *  # noqa: F401,F403
