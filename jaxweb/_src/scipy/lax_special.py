"""lax.igamma_grad_a, lax.random_gamma_grad and lax.polygamma. The first two: derivatives of the regularized incomplete
gamma function P(a, x) with respect to a (the first by autodiff of gammainc, the second
the implicit-reparameterization derivative of a Gamma(a) sample x: -(∂P/∂a) / (∂P/∂x))."""
from __future__ import annotations

from typing import Any

from ... import numpy as jnp
from ..api import grad, vmap
from .igamma import gammainc
from .special_basic import gammaln
from .zeta import polygamma as _sp_polygamma


def _dp_da(a: Any, x: Any) -> Any:
    a, x = jnp.broadcast_arrays(jnp.asarray(a, jnp.result_type(a, x, float)), jnp.asarray(x, jnp.result_type(a, x, float)))
    f = grad(lambda aa, xx: gammainc(aa, xx))
    return vmap(f)(a.ravel(), x.ravel()).reshape(a.shape)


def igamma_grad_a(a: Any, x: Any) -> Any:
    """∂P(a, x)/∂a."""
    return _dp_da(a, x)


def random_gamma_grad(a: Any, x: Any) -> Any:
    """d sample / d a for a Gamma(a, 1) sample x: -(∂P/∂a) / (∂P/∂x), ∂P/∂x the density."""
    a, x = jnp.broadcast_arrays(jnp.asarray(a, jnp.result_type(a, x, float)), jnp.asarray(x, jnp.result_type(a, x, float)))
    density = jnp.exp((a - 1) * jnp.log(x) - x - gammaln(a))
    return -_dp_da(a, x) / density


def polygamma(m: Any, x: Any) -> Any:
    """lax.polygamma: m and x share a float dtype (m integral-valued), unlike scipy's."""
    m = jnp.asarray(m)
    return _sp_polygamma(m.astype(jnp.int32) if jnp.issubdtype(m.dtype, jnp.floating) else m, x)
