"""`jaxweb.scipy.stats.vonmises`."""
from jaxweb._src.scipy.stats.vonmises import logpdf, pdf  # noqa: F401
