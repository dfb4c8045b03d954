"""`jax.scipy.special`'s names, collected from the implementation modules."""
from .special_basic import (  # noqa: F401
    beta, betaln, boxcox, boxcox1p, comb, digamma, entr, erf, erfc, erfinv, expit, factorial,
    gamma, gammaln, gammasgn, kl_div, loggamma, logit, multigammaln, poch, rel_entr, xlog1py,
    xlogy)
from .ndtr import log_ndtr, ndtr, ndtri  # noqa: F401
from .igamma import gammainc, gammaincc  # noqa: F401
from .betainc import betainc  # noqa: F401
from .zeta import polygamma, zeta  # noqa: F401
from .bessel import i0, i0e, i1, i1e  # noqa: F401
from .special_more import bernoulli, erfcx, exp1, expi  # noqa: F401
from .special_extra import bessel_jn, dawsn, expn, fresnel, sici, spence, wofz  # noqa: F401
from ..nn.softmax import logsumexp  # noqa: F401
from ..nn.softmax import log_softmax as _nn_log_softmax, softmax as _nn_softmax

__all__ = ["bernoulli", "erfcx", "exp1", "expi", "bessel_jn", "dawsn", "expn", "fresnel", "sici", "spence", "wofz",
           "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "digamma", "entr", "erf",
           "erfc", "erfinv", "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammaln",
           "gammasgn", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "loggamma",
           "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "poch", "polygamma", "rel_entr",
           "softmax", "xlog1py", "xlogy", "zeta"]


def softmax(x, /, *, axis=None):
    """scipy.special.softmax: jax.nn.softmax with scipy's default axis=None (all axes)."""
    return _nn_softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """scipy.special.log_softmax: jax.nn.log_softmax with scipy's default axis=None."""
    return _nn_log_softmax(x, axis=axis)
