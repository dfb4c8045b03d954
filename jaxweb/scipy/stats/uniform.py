"""`jaxweb.scipy.stats.uniform`."""
from jaxweb._src.scipy.stats.uniform import logpdf, pdf, cdf, ppf  # noqa: F401
