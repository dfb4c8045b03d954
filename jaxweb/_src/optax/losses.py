"""Losses as in `optax.losses`: elementwise (or per-example) values, never averaged,
so the caller decides how to reduce them."""
from __future__ import annotations

import math
import operator
from typing import Any

from ... import numpy as jnp
from . import _nn


def _check_floating(x: Any, name: str = "predictions") -> None:
    if not jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating):
        raise ValueError(f"{name} must be of a floating dtype, got {jnp.asarray(x).dtype}")


def _check_shapes_equal(a: Any, b: Any) -> None:
    if jnp.shape(a) != jnp.shape(b):
        raise ValueError(f"shapes differ: {jnp.shape(a)} != {jnp.shape(b)}")


# ---------------------------------------------------------------- regression
def squared_error(predictions: Any, targets: Any = None) -> Any:
    """`(predictions - targets) ** 2`."""
    _check_floating(predictions)
    if targets is not None:
        _check_shapes_equal(predictions, targets)
    errors = predictions - targets if targets is not None else predictions
    return errors ** 2


def l2_loss(predictions: Any, targets: Any = None) -> Any:
    """Half the squared error (optax's convention)."""
    return 0.5 * squared_error(jnp.asarray(predictions), targets)


def huber_loss(predictions: Any, targets: Any = None, *, delta: Any = 1.0) -> Any:
    """Quadratic within `delta` of the target, linear beyond."""
    _check_floating(predictions)
    errors = predictions - targets if targets is not None else predictions
    abs_errors = jnp.abs(errors)
    quadratic = jnp.minimum(abs_errors, delta)
    return 0.5 * quadratic ** 2 + delta * (abs_errors - quadratic)


def log_cosh(predictions: Any, targets: Any = None) -> Any:
    _check_floating(predictions)
    errors = predictions - targets if targets is not None else predictions
    return jnp.logaddexp(errors, -errors) - jnp.asarray(math.log(2.0), errors.dtype)


def cosine_similarity(predictions: Any, targets: Any, *, epsilon: Any = 0.0, axis: Any = -1,
                      where: Any = None) -> Any:
    """The cosine of the angle between predictions and targets along `axis`."""
    _check_floating(predictions)
    _check_floating(targets, "targets")
    a_norm = jnp.sqrt(jnp.clip(jnp.sum(jnp.square(predictions), axis=axis, where=where, keepdims=True), epsilon))
    b_norm = jnp.sqrt(jnp.clip(jnp.sum(jnp.square(targets), axis=axis, where=where, keepdims=True), epsilon))
    return jnp.sum((predictions / a_norm) * (targets / b_norm), axis=axis, where=where)


def cosine_distance(predictions: Any, targets: Any, *, epsilon: Any = 0.0, axis: Any = -1,
                    where: Any = None) -> Any:
    return 1.0 - cosine_similarity(predictions, targets, epsilon=epsilon, axis=axis, where=where)


# ---------------------------------------------------------------- classification
def sigmoid_binary_cross_entropy(logits: Any, labels: Any) -> Any:
    """`-labels * log(sigmoid(logits)) - (1 - labels) * log(1 - sigmoid(logits))`, stably."""
    _check_floating(logits, "logits")
    labels = jnp.asarray(labels).astype(logits.dtype)
    return -labels * _nn.log_sigmoid(logits) - (1.0 - labels) * _nn.log_sigmoid(-logits)


def softmax_cross_entropy(logits: Any, labels: Any, axis: Any = -1, where: Any = None) -> Any:
    """Cross entropy of a categorical distribution `labels` against `softmax(logits)`."""
    _check_floating(logits, "logits")
    if where is not None and where.ndim != logits.ndim:
        where = jnp.expand_dims(where, axis)
    log_probs = _nn.log_softmax(logits, axis, where)
    prod = labels * log_probs if where is None else jnp.where(where, labels * log_probs, 0.0)
    return -jnp.sum(prod, axis=axis)


def safe_softmax_cross_entropy(logits: Any, labels: Any) -> Any:
    """`softmax_cross_entropy` that is finite (0 contribution) where a label is 0 and
    its logit is -inf."""
    _check_floating(logits, "logits")
    log_probs = _nn.log_softmax(logits, axis=-1)
    return -jnp.sum(jnp.where(labels != 0.0, labels * log_probs, 0.0), axis=-1)


def softmax_cross_entropy_with_integer_labels(logits: Any, labels: Any, axis: int = -1,
                                              where: Any = None) -> Any:
    """Cross entropy with the class index in `labels` (`logsumexp(logits) - logits[label]`)."""
    _check_floating(logits, "logits")
    if not jnp.issubdtype(jnp.asarray(labels).dtype, jnp.integer):
        raise ValueError(f"labels must be integers, got {jnp.asarray(labels).dtype}")
    if where is not None and where.ndim != logits.ndim:
        where = jnp.expand_dims(where, axis)
    if not isinstance(axis, int):
        raise ValueError(f"Keyword argument 'axis' must be of type 'int' here, got {type(axis)}.")
    ax = operator.index(axis) % logits.ndim
    label_logits = jnp.take(jnp.take_along_axis(logits, jnp.expand_dims(labels, ax), axis=ax), 0, axis=ax)
    out = _nn.logsumexp(logits, axis=ax, where=where) - label_logits
    if where is not None:
        out = jnp.where(jnp.any(where, ax), out, 0.0)
    return out


def hinge_loss(predictor_outputs: Any, targets: Any) -> Any:
    """`max(0, 1 - outputs * targets)` for targets in {-1, 1}."""
    return jnp.maximum(0, 1 - predictor_outputs * targets)


def kl_divergence(log_predictions: Any, targets: Any, axis: Any = -1, where: Any = None) -> Any:
    """`sum(targets * (log(targets) - log_predictions))`, 0 where a target is 0."""
    _check_floating(log_predictions, "log_predictions")
    loss = targets * (jnp.where(targets == 0, 0, jnp.log(targets)) - log_predictions)
    return jnp.sum(loss, axis=axis, where=where)


def smooth_labels(labels: Any, alpha: Any, *, axis: Any = -1, where: Any = None) -> Any:
    """Mix one-hot labels with the uniform distribution: `(1 - alpha) * labels + alpha / K`."""
    _check_floating(labels, "labels")
    k = jnp.shape(labels)[axis] if where is None else jnp.sum(where, axis, keepdims=True)
    return (1.0 - alpha) * labels + alpha / k


__all__ = ["cosine_distance", "cosine_similarity", "hinge_loss", "huber_loss", "kl_divergence",
           "l2_loss", "log_cosh", "safe_softmax_cross_entropy", "sigmoid_binary_cross_entropy",
           "smooth_labels", "softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels",
           "squared_error"]
