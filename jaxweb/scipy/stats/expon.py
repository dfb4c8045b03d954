"""`jaxweb.scipy.stats.expon`."""
from jaxweb._src.scipy.stats.expon import logpdf, pdf, cdf, logsf, sf, logcdf, ppf  # noqa: F401
