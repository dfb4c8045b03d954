"""`jaxweb.scipy.stats.poisson`."""
from jaxweb._src.scipy.stats.poisson import logpmf, pmf, cdf, entropy  # noqa: F401
