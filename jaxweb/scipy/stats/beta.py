"""`jaxweb.scipy.stats.beta`."""
from jaxweb._src.scipy.stats.beta import logpdf, pdf, cdf, logcdf, sf, logsf  # noqa: F401
