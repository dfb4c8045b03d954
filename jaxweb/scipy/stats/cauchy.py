"""`jaxweb.scipy.stats.cauchy`."""
from jaxweb._src.scipy.stats.cauchy import logpdf, pdf, cdf, logcdf, sf, logsf, isf, ppf  # noqa: F401
