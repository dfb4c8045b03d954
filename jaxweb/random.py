"""`jaxweb.random`: JAX's random module, bit-identical to JAX for the same key.

Keys are threefry2x32 (`key`, `PRNGKey`, `split`, `fold_in`, with
`jax_threefry_partitionable` on by default as in current JAX); every sampler follows
JAX's algorithm, so the same key, shape and dtype give the same values as JAX.
Implementation: jaxweb/_src/random/.
"""
from jaxweb._src.random.prng import (  # noqa: F401
    PRNGKey, PRNGSpec, bits, clone, default_prng_impl, fold_in, key, key_data, key_dtype,
    key_impl, resolve_prng_impl, split, wrap_key_data)
from jaxweb._src.random.keys import PRNGImpl, PRNGKeyArray  # noqa: F401
from jaxweb._src.random.floats import bernoulli, normal, truncated_normal, uniform  # noqa: F401

__all__ = [
    "PRNGKey", "bernoulli", "bits", "clone", "fold_in", "key", "key_data", "key_dtype", "key_impl",
    "normal", "split", "truncated_normal", "uniform", "wrap_key_data",
]
from jaxweb._src.random.univariate import (  # noqa: F401
    cauchy, double_sided_maxwell, exponential, geometric, gumbel, laplace, logistic, lognormal,
    maxwell, pareto, rademacher, rayleigh, triangular, wald, weibull_min)

__all__ += [
    "cauchy", "double_sided_maxwell", "exponential", "geometric", "gumbel", "laplace", "logistic",
    "lognormal", "maxwell", "pareto", "rademacher", "rayleigh", "triangular", "wald", "weibull_min",
]
from jaxweb._src.random.discrete import categorical, choice, permutation, randint  # noqa: F401

__all__ += ["categorical", "choice", "permutation", "randint"]
from jaxweb._src.random.multivariate import multivariate_normal, orthogonal  # noqa: F401

__all__ += ["multivariate_normal", "orthogonal"]
from jaxweb._src.random.gamma import gamma, loggamma  # noqa: F401

__all__ += ["gamma", "loggamma"]
from jaxweb._src.random.gamma_family import (  # noqa: F401
    ball, beta, chisquare, dirichlet, f, generalized_normal, t)

__all__ += ["ball", "beta", "chisquare", "dirichlet", "f", "generalized_normal", "t"]
from jaxweb._src.random.counts import binomial, multinomial, poisson  # noqa: F401

__all__ += ["binomial", "multinomial", "poisson"]
