"""`jaxweb.scipy.stats.gumbel_r`."""
from jaxweb._src.scipy.stats.gumbel_r import logpdf, pdf, logcdf, cdf, logsf, sf, ppf  # noqa: F401
