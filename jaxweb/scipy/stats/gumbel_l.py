"""`jaxweb.scipy.stats.gumbel_l`."""
from jaxweb._src.scipy.stats.gumbel_l import logpdf, pdf, logcdf, cdf, logsf, sf, ppf  # noqa: F401
