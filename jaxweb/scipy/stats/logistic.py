"""`jaxweb.scipy.stats.logistic`."""
from jaxweb._src.scipy.stats.logistic import logpdf, pdf, ppf, sf, isf, cdf  # noqa: F401
