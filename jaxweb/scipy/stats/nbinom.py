"""`jaxweb.scipy.stats.nbinom`."""
from jaxweb._src.scipy.stats.nbinom import logpmf, pmf  # noqa: F401
