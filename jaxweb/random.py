"""`jaxweb.random`: JAX's random module, bit-identical to JAX for the same key.

Keys are threefry2x32: typed keys (`key(0)`, dtype `key<fry>`) and legacy raw keys
(`PRNGKey(0)`, uint32[2]); `split` and `fold_in` derive keys exactly as JAX does, with
`jax_threefry_partitionable` on by default as in current JAX. Every sampler follows
JAX's algorithm and XLA's rounding, so the same key, shape and dtype give JAX's
values (see tests/random_util.py for where transcendental functions differ by an ulp).
Implementation: jaxweb/_src/random/.
"""
from jaxweb._src.random.prng import (  # noqa: F401
    PRNGKey, bits, clone, fold_in, key, key_data, key_dtype, key_impl, split, wrap_key_data)
from jaxweb._src.random.floats import bernoulli, normal, truncated_normal, uniform  # noqa: F401
from jaxweb._src.random.univariate import (  # noqa: F401
    cauchy, double_sided_maxwell, exponential, geometric, gumbel, laplace, logistic, lognormal,
    maxwell, pareto, rademacher, rayleigh, triangular, wald, weibull_min)
from jaxweb._src.random.discrete import categorical, choice, permutation, randint  # noqa: F401
from jaxweb._src.random.multivariate import multivariate_normal, orthogonal  # noqa: F401
from jaxweb._src.random.gamma import gamma, loggamma  # noqa: F401
from jaxweb._src.random.gamma_family import (  # noqa: F401
    ball, beta, chisquare, dirichlet, f, generalized_normal, t)
from jaxweb._src.random.counts import binomial, multinomial, poisson  # noqa: F401

__all__ = [
    "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare",
    "choice", "clone", "dirichlet", "double_sided_maxwell", "exponential", "f", "fold_in", "gamma",
    "generalized_normal", "geometric", "gumbel", "key", "key_data", "key_dtype", "key_impl", "laplace",
    "logistic", "loggamma", "lognormal", "maxwell", "multinomial", "multivariate_normal", "normal",
    "orthogonal", "pareto", "permutation", "poisson", "rademacher", "randint", "rayleigh", "split", "t",
    "triangular", "truncated_normal", "uniform", "wald", "weibull_min", "wrap_key_data",
]
