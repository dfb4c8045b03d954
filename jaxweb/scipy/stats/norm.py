"""`jaxweb.scipy.stats.norm`."""
from jaxweb._src.scipy.stats.norm import logpdf, pdf, cdf, logcdf, ppf, logsf, sf, isf  # noqa: F401
