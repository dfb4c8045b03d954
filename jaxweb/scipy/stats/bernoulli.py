"""`jaxweb.scipy.stats.bernoulli`."""
from jaxweb._src.scipy.stats.bernoulli import logpmf, pmf, cdf, ppf  # noqa: F401
