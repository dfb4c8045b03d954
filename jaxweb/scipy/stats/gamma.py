"""`jaxweb.scipy.stats.gamma`."""
from jaxweb._src.scipy.stats.gamma import logpdf, pdf, cdf, logcdf, sf, logsf  # noqa: F401
