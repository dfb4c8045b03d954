"""`jaxweb.scipy.stats.gennorm`."""
from jaxweb._src.scipy.stats.gennorm import logpdf, pdf, cdf  # noqa: F401
