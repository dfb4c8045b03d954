"""The optimizers: each is a `chain` of transformations exactly as optax composes it
(so states have optax's layout, e.g. `adam(...).init(p)[0].mu`)."""
from __future__ import annotations

import functools
from typing import Any

from ... import numpy as jnp
from . import base, factorized, moments, transforms, wrappers
from .base import chain


def sgd(learning_rate: Any, momentum: Any = None, nesterov: bool = False,
        accumulator_dtype: Any = None) -> base.GradientTransformationExtraArgs:
    """Stochastic gradient descent, optionally with (Nesterov) momentum."""
    opt = (transforms.trace(decay=momentum, nesterov=nesterov, accumulator_dtype=accumulator_dtype)
           if momentum is not None else base.identity())
    return chain(opt, transforms.scale_by_learning_rate(learning_rate))


def adam(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, eps_root: Any = 0.0,
         mu_dtype: Any = None, *, nesterov: bool = False) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_adam(b1, b2, eps, eps_root, mu_dtype, nesterov=nesterov),
                 transforms.scale_by_learning_rate(learning_rate))


nadam = functools.partial(adam, nesterov=True)


def adamw(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, eps_root: Any = 0.0,
          mu_dtype: Any = None, weight_decay: Any = 1e-4, mask: Any = None, *,
          nesterov: bool = False) -> base.GradientTransformationExtraArgs:
    """Adam with decoupled weight decay (multiplied by the learning rate, as PyTorch does)."""
    return chain(moments.scale_by_adam(b1, b2, eps, eps_root, mu_dtype, nesterov=nesterov),
                 transforms.add_decayed_weights(weight_decay, mask),
                 transforms.scale_by_learning_rate(learning_rate))


nadamw = functools.partial(adamw, nesterov=True)


def adamax(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_adamax(b1, b2, eps), transforms.scale_by_learning_rate(learning_rate))


def adamaxw(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, weight_decay: Any = 1e-4,
            mask: Any = None) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_adamax(b1, b2, eps), transforms.add_decayed_weights(weight_decay, mask),
                 transforms.scale_by_learning_rate(learning_rate))


def amsgrad(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, eps_root: Any = 0.0,
            mu_dtype: Any = None, bias_correction_mu: bool = True,
            bias_correction_nu: bool = True) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_amsgrad(b1, b2, eps, eps_root, mu_dtype, bias_correction_mu,
                                          bias_correction_nu),
                 transforms.scale_by_learning_rate(learning_rate))


def radam(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, eps_root: Any = 0.0,
          threshold: Any = 5.0, *, nesterov: bool = False) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_radam(b1, b2, eps, eps_root, threshold, nesterov=nesterov),
                 transforms.scale_by_learning_rate(learning_rate))


def adabelief(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-16, eps_root: Any = 1e-16, *,
              nesterov: bool = False) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_belief(b1, b2, eps, eps_root, nesterov=nesterov),
                 transforms.scale_by_learning_rate(learning_rate))


def rmsprop(learning_rate: Any, decay: Any = 0.9, eps: Any = 1e-8, initial_scale: Any = 0.0,
            eps_in_sqrt: bool = True, centered: bool = False, momentum: Any = None, nesterov: bool = False,
            bias_correction: bool = False) -> base.GradientTransformationExtraArgs:
    scaler = moments.scale_by_stddev if centered else moments.scale_by_rms
    return chain(scaler(decay=decay, eps=eps, initial_scale=initial_scale, eps_in_sqrt=eps_in_sqrt,
                        bias_correction=bias_correction),
                 transforms.scale_by_learning_rate(learning_rate),
                 transforms.trace(decay=momentum, nesterov=nesterov) if momentum is not None else base.identity())


def adagrad(learning_rate: Any, initial_accumulator_value: Any = 0.1,
            eps: Any = 1e-7) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_rss(initial_accumulator_value, eps),
                 transforms.scale_by_learning_rate(learning_rate))


def adafactor(learning_rate: Any = None, min_dim_size_to_factor: int = 128, decay_rate: Any = 0.8,
              decay_offset: Any = 0, multiply_by_parameter_scale: bool = True,
              clipping_threshold: Any = 1.0, momentum: Any = None, dtype_momentum: Any = jnp.float32,
              weight_decay_rate: Any = None, eps: Any = 1e-30, factored: bool = True,
              weight_decay_mask: Any = None) -> base.GradientTransformationExtraArgs:
    """Adafactor: factored second moments, update clipping, relative step sizes."""
    tx = [factorized.scale_by_factored_rms(factored, decay_rate, decay_offset, min_dim_size_to_factor, eps)]
    if clipping_threshold is not None:
        tx.append(transforms.clip_by_block_rms(clipping_threshold))
    if learning_rate is not None:
        tx.append(transforms.scale_by_learning_rate(learning_rate, flip_sign=False))
    if multiply_by_parameter_scale:
        tx.append(transforms.scale_by_param_block_rms())
    if momentum is not None:
        tx.append(transforms.ema(momentum, debias=False, accumulator_dtype=dtype_momentum))
    if weight_decay_rate is not None:
        tx.append(transforms.add_decayed_weights(weight_decay_rate, mask=weight_decay_mask))
    tx.append(transforms.scale(-1))
    return chain(*tx)


def lion(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.99, mu_dtype: Any = None, weight_decay: Any = 1e-3,
         mask: Any = None) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_lion(b1, b2, mu_dtype), transforms.add_decayed_weights(weight_decay, mask),
                 transforms.scale_by_learning_rate(learning_rate))


def lamb(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-6, eps_root: Any = 0.0,
         weight_decay: Any = 0.0, mask: Any = None) -> base.GradientTransformationExtraArgs:
    """Adam with weight decay and a layer-wise trust ratio (LAMB)."""
    return chain(moments.scale_by_adam(b1, b2, eps, eps_root), transforms.add_decayed_weights(weight_decay, mask),
                 transforms.scale_by_trust_ratio(), transforms.scale_by_learning_rate(learning_rate))


def lars(learning_rate: Any, weight_decay: Any = 0.0, weight_decay_mask: Any = True,
         trust_coefficient: Any = 0.001, eps: Any = 0.0, trust_ratio_mask: Any = True, momentum: Any = 0.9,
         nesterov: bool = False) -> base.GradientTransformationExtraArgs:
    """Momentum SGD with weight decay and a layer-wise trust ratio (LARS)."""
    return chain(transforms.add_decayed_weights(weight_decay, mask=weight_decay_mask),
                 wrappers.masked(transforms.scale_by_trust_ratio(trust_coefficient=trust_coefficient, eps=eps),
                                 mask=trust_ratio_mask),
                 transforms.scale_by_learning_rate(learning_rate),
                 transforms.trace(decay=momentum, nesterov=nesterov))


def yogi(learning_rate: Any, b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-3) -> base.GradientTransformationExtraArgs:
    return chain(moments.scale_by_yogi(b1=b1, b2=b2, eps=eps), transforms.scale_by_learning_rate(learning_rate))


def sign_sgd(learning_rate: Any) -> base.GradientTransformationExtraArgs:
    return chain(transforms.scale_by_sign(), transforms.scale_by_learning_rate(learning_rate))


def signum(learning_rate: Any, beta: Any = 0.9, accumulator_dtype: Any = None) -> base.GradientTransformationExtraArgs:
    return chain(transforms.ema(beta, debias=False, accumulator_dtype=accumulator_dtype),
                 transforms.scale_by_sign(), transforms.scale_by_learning_rate(learning_rate))


def fromage(learning_rate: Any, min_norm: Any = 1e-6) -> base.GradientTransformationExtraArgs:
    if not callable(learning_rate):
        mult = 1 / (1 + learning_rate ** 2) ** 0.5
        return chain(transforms.scale_by_trust_ratio(min_norm),
                     transforms.scale_by_learning_rate(learning_rate * mult),
                     transforms.add_decayed_weights(mult - 1))
    mult_lr = lambda c: 1 / (1 + learning_rate(c) ** 2) ** 0.5  # noqa: E731
    return chain(transforms.scale_by_trust_ratio(min_norm),
                 transforms.scale_by_learning_rate(lambda c: mult_lr(c) * learning_rate(c)),
                 transforms.add_decayed_weights(lambda c: mult_lr(c) - 1))
