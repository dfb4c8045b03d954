"""`jaxweb.scipy.stats`: JAX's distributions, one module each (logpdf, pdf, cdf, ...)."""
from jaxweb.scipy.stats import norm  # noqa: F401
from jaxweb.scipy.stats import uniform  # noqa: F401
from jaxweb.scipy.stats import bernoulli  # noqa: F401
from jaxweb.scipy.stats import beta  # noqa: F401
from jaxweb.scipy.stats import gamma  # noqa: F401
from jaxweb.scipy.stats import multivariate_normal  # noqa: F401
from jaxweb.scipy.stats import t  # noqa: F401
from jaxweb.scipy.stats import poisson  # noqa: F401
from jaxweb.scipy.stats import expon  # noqa: F401
from jaxweb.scipy.stats import laplace  # noqa: F401
from jaxweb.scipy.stats import logistic  # noqa: F401
from jaxweb.scipy.stats import cauchy  # noqa: F401
from jaxweb.scipy.stats import chi2  # noqa: F401
from jaxweb.scipy.stats import dirichlet  # noqa: F401
from jaxweb.scipy.stats import binom  # noqa: F401
from jaxweb.scipy.stats import geom  # noqa: F401
