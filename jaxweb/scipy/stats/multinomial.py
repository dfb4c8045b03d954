"""`jaxweb.scipy.stats.multinomial`."""
from jaxweb._src.scipy.stats.multinomial import logpmf, pmf  # noqa: F401
