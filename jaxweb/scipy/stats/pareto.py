"""`jaxweb.scipy.stats.pareto`."""
from jaxweb._src.scipy.stats.pareto import logpdf, pdf, logsf, sf, logcdf, cdf, ppf  # noqa: F401
