"""`jaxweb.scipy.stats.laplace`."""
from jaxweb._src.scipy.stats.laplace import logpdf, pdf, cdf  # noqa: F401
