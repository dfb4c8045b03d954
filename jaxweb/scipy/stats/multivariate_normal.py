"""`jaxweb.scipy.stats.multivariate_normal`."""
from jaxweb._src.scipy.stats.multivariate_normal import logpdf, pdf  # noqa: F401
