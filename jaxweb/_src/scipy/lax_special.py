"""lax's special-function primitives (igamma_p, igammac_p, igamma_grad_a_p, polygamma_p, zeta_p,
regularized_incomplete_beta_p: decomposed primitives over jax.scipy.special's functions, so
jaxprs name them as JAX's do), and lax.random_gamma_grad. igamma_grad_a and random_gamma_grad:
derivatives of the regularized incomplete gamma function P(a, x) with respect to a (the first
by autodiff of gammainc, the second the implicit-reparameterization derivative of a Gamma(a)
sample x: -(∂P/∂a) / (∂P/∂x))."""
from __future__ import annotations

from typing import Any

from ... import numpy as jnp
from ..api import grad, vmap
from ..lax.base import check_dtype
from ..lax.elementwise import asarray
from ..lax.structural import broadcast_in_dim
from ..lax.composite import decomposed_primitive
from .betainc import betainc
from .igamma import gammainc, gammaincc
from .zeta import zeta
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


# ---------------------------------------------------------------- the lax primitives
def _float_args(name: str, *args: Any) -> list:
    """JAX's lax checks: floating operands of one dtype; rank-0 operands broadcast."""
    xs = [asarray(a) for a in args]
    for i, x in enumerate(xs):
        check_dtype(name, x.aval, "f", i)
    shape = next((x.shape for x in xs if x.ndim), ())
    xs = [broadcast_in_dim(x, shape, ()) if x.ndim == 0 and shape else x for x in xs]
    if len({x.dtype for x in xs}) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(x.dtype.name for x in xs)}.")
    return xs


igamma_p = decomposed_primitive("igamma", gammainc, elementwise=True)
igammac_p = decomposed_primitive("igammac", gammaincc, elementwise=True)
igamma_grad_a_p = decomposed_primitive("igamma_grad_a", igamma_grad_a, elementwise=True)
polygamma_p = decomposed_primitive("polygamma", polygamma, elementwise=True)
zeta_p = decomposed_primitive("zeta", zeta, elementwise=True)
regularized_incomplete_beta_p = decomposed_primitive("regularized_incomplete_beta", betainc, elementwise=True)


def lax_igamma(a: Any, x: Any) -> Any:
    """`lax.igamma`: the regularized lower incomplete gamma function P(a, x)."""
    return igamma_p.bind(*_float_args("igamma", a, x))


def lax_igammac(a: Any, x: Any) -> Any:
    """`lax.igammac`: Q(a, x) = 1 - P(a, x)."""
    return igammac_p.bind(*_float_args("igammac", a, x))


def lax_igamma_grad_a(a: Any, x: Any) -> Any:
    """`lax.igamma_grad_a`: ∂P(a, x)/∂a."""
    return igamma_grad_a_p.bind(*_float_args("igamma_grad_a", a, x))


def lax_polygamma(m: Any, x: Any) -> Any:
    """`lax.polygamma`: the m-th derivative of the digamma function (m integral-valued)."""
    return polygamma_p.bind(*_float_args("polygamma", m, x))


def lax_zeta(x: Any, q: Any) -> Any:
    """`lax.zeta`: the Hurwitz zeta function ζ(x, q)."""
    return zeta_p.bind(*_float_args("zeta", x, q))


def lax_betainc(a: Any, b: Any, x: Any) -> Any:
    """`lax.betainc`: the regularized incomplete beta function I_x(a, b)."""
    return regularized_incomplete_beta_p.bind(*_float_args("regularized_incomplete_beta", a, b, x))
