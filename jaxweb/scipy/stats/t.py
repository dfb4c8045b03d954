"""`jaxweb.scipy.stats.t`."""
from jaxweb._src.scipy.stats.t import logpdf, pdf  # noqa: F401
