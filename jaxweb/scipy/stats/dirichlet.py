"""`jaxweb.scipy.stats.dirichlet`."""
from jaxweb._src.scipy.stats.dirichlet import logpdf, pdf  # noqa: F401
