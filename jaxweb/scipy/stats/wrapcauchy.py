"""`jaxweb.scipy.stats.wrapcauchy`."""
from jaxweb._src.scipy.stats.wrapcauchy import logpdf, pdf  # noqa: F401
