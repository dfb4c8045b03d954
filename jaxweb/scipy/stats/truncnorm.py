"""`jaxweb.scipy.stats.truncnorm`."""
from jaxweb._src.scipy.stats.truncnorm import logpdf, pdf, logcdf, cdf, logsf, sf  # noqa: F401
