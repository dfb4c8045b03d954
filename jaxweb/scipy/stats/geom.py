"""`jaxweb.scipy.stats.geom`."""
from jaxweb._src.scipy.stats.geom import logpmf, pmf  # noqa: F401
