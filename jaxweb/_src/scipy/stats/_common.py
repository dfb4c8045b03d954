"""Shared imports and helpers of the distribution modules."""
from __future__ import annotations

import math
from typing import Any

from .... import numpy as jnp  # noqa: F401
from ...lax import elementwise as lax  # noqa: F401
from ...nn.util import promote_args_inexact, promote_dtypes_inexact  # noqa: F401

Array = Any
inf, nan, pi = math.inf, math.nan, math.pi


def standardized(x: Array, loc: Array, scale: Array) -> Array:
    """(x - loc) / scale."""
    return lax.div(lax.sub(x, loc), scale)
