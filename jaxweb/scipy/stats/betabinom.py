"""`jaxweb.scipy.stats.betabinom`."""
from jaxweb._src.scipy.stats.betabinom import logpmf, pmf  # noqa: F401
