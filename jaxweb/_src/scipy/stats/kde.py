"""`jax.scipy.stats.gaussian_kde`: a Gaussian kernel density estimate of a (d, n) dataset.

The bandwidth (Scott's or Silverman's rule, a scalar, or a callable of the estimator)
scales the dataset's weighted covariance; densities are weighted sums of Gaussians,
evaluated through the Cholesky factor of that covariance. A pytree, as JAX's."""
from __future__ import annotations

import math
from typing import Any

from ...nn.softmax import logsumexp
from ...random.discrete import choice
from ...random.multivariate import multivariate_normal
from ...random.prng import split
from ...tree_util import register_pytree_node_class
from .. import linalg as sla
from ..ndtr import ndtr
from ._common import Array, jnp


@register_pytree_node_class
class gaussian_kde:
    """Gaussian KDE (scipy.stats.gaussian_kde's interface; integrate_box and set_bandwidth
    raise NotImplementedError, as in JAX)."""

    def __init__(self, dataset: Any, bw_method: Any = None, weights: Any = None):
        data = jnp.atleast_2d(jnp.asarray(dataset))
        if jnp.issubdtype(data.dtype, jnp.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not data.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        if not jnp.issubdtype(data.dtype, jnp.inexact):
            data = data.astype(jnp.float32)
        d, n = data.shape
        if weights is not None:
            w = jnp.atleast_1d(jnp.asarray(weights)).astype(data.dtype)
            if w.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if w.shape[0] != n:
                raise ValueError("`weights` input should be of length n")
            w = w / jnp.sum(w)
        else:
            w = jnp.full((n,), 1.0 / n, data.dtype)
        self.dataset, self.weights = data, w
        self.neff = 1.0 / jnp.sum(w * w)
        if bw_method is None or bw_method == "scott":
            factor = self.neff ** (-1.0 / (d + 4))
        elif bw_method == "silverman":
            factor = (self.neff * (d + 2) / 4.0) ** (-1.0 / (d + 4))
        elif callable(bw_method):
            factor = bw_method(self)
        elif jnp.ndim(bw_method) == 0 and not isinstance(bw_method, str):
            factor = bw_method
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        cov = jnp.atleast_2d(jnp.cov(data, rowvar=True, bias=False, aweights=w))
        self.covariance = cov * factor ** 2
        self.inv_cov = jnp.linalg.inv(self.covariance)

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data: Any, children: Any) -> "gaussian_kde":
        kde = object.__new__(cls)
        kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
        return kde

    @property
    def d(self) -> int:
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        return self.dataset.shape[1]

    def _points(self, points: Any) -> Array:
        p = jnp.atleast_2d(jnp.asarray(points))
        if p.shape[0] != self.d:
            if p.ndim == 2 and p.shape[1] == self.d and p.shape[0] == 1:
                p = p.T
            else:
                raise ValueError(f"points have dimension {p.shape[0]}, dataset has dimension {self.d}")
        return p.astype(self.dataset.dtype)

    def _log_terms(self, points: Any) -> Array:
        """log(w_i N(x_j; data_i, cov)) as a (m, n) matrix."""
        p = self._points(points)
        chol = jnp.linalg.cholesky(self.covariance)
        diff = (p[:, :, None] - self.dataset[:, None, :]).reshape(self.d, -1)
        white = sla.solve_triangular(chol, diff, lower=True)
        maha = jnp.sum(white * white, axis=0).reshape(p.shape[1], self.n)
        logdet = 2 * jnp.sum(jnp.log(jnp.diagonal(chol)))
        return -0.5 * maha - 0.5 * (logdet + self.d * math.log(2 * math.pi)) + jnp.log(self.weights)

    def evaluate(self, points: Any) -> Array:
        """The density at each point (shape (m,))."""
        return jnp.sum(jnp.exp(self._log_terms(points)), axis=1)

    __call__ = pdf = evaluate

    def logpdf(self, x: Any) -> Array:
        """log density, summed in log space."""
        return logsumexp(self._log_terms(x), axis=1)

    def integrate_gaussian(self, mean: Any, cov: Any) -> Array:
        """∫ kde(x) N(x; mean, cov) dx."""
        mean = jnp.atleast_1d(jnp.squeeze(jnp.asarray(mean)))
        cov = jnp.atleast_2d(jnp.asarray(cov))
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        return _convolve(self.covariance + cov, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low: Any, high: Any) -> Array:
        """The mass in [low, high] of a one-dimensional estimate."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        sd = jnp.sqrt(self.covariance[0, 0])
        hi = (high - self.dataset[0]) / sd
        lo = (low - self.dataset[0]) / sd
        return jnp.sum(self.weights * (ndtr(hi) - ndtr(lo)))

    def integrate_kde(self, other: "gaussian_kde") -> Array:
        """∫ self(x) other(x) dx."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        total = 0.0
        for i in range(other.n):
            total = total + other.weights[i] * _convolve(self.covariance + other.covariance, self.dataset,
                                                         self.weights, other.dataset[:, i])
        return total

    def resample(self, key: Any, shape: tuple = ()) -> Array:
        """Draws of shape (d, *shape): a weighted choice of data points plus kernel noise."""
        k1, k2 = split(key)
        ind = choice(k1, self.n, shape=shape, p=self.weights)
        eps = multivariate_normal(k2, jnp.zeros(self.d, self.covariance.dtype), self.covariance,
                                         shape=shape, dtype=self.dataset.dtype)
        return self.dataset[:, ind] + jnp.moveaxis(eps, -1, 0)

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Array:
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method: Any = None) -> None:
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")


def _convolve(cov: Array, data: Array, weights: Array, mean: Array) -> Array:
    chol = jnp.linalg.cholesky(cov)
    norm = 1.0 / (jnp.prod(jnp.diagonal(chol)) * (2 * math.pi) ** (data.shape[0] / 2))
    white = sla.solve_triangular(chol, data - mean[:, None], lower=True)
    return norm * jnp.sum(jnp.exp(-0.5 * jnp.sum(white * white, axis=0)) * weights)
