"""`jaxweb.scipy.stats.binom`."""
from jaxweb._src.scipy.stats.binom import logpmf, pmf  # noqa: F401
