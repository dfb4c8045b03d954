"""`jaxweb.scipy.stats.chi2`."""
from jaxweb._src.scipy.stats.chi2 import logpdf, pdf, cdf, logcdf, sf, logsf  # noqa: F401
