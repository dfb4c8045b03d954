"""`jaxweb.optax`: optax's API on jaxweb — `import jaxweb.optax as optax`.

Gradient transformations (`GradientTransformation(init, update)`, `chain`,
`apply_updates`), the optimizers (`sgd`, `adam`, `adamw`, ...), wrappers (`masked`,
`multi_transform`, `apply_if_finite`, `MultiSteps`, `inject_hyperparams`), schedules and
losses, with optax's names, state layouts and update formulas. States are pytrees of
jaxweb arrays: they jit, vmap and save (`jaxweb.io.save`) like parameters.
Implementation: `jaxweb/_src/optax/`.
"""
from jaxweb._src.optax.alias import (
    adabelief, adafactor, adagrad, adam, adamax, adamaxw, adamw, amsgrad, fromage, lamb, lars, lion, nadam,
    nadamw, radam, rmsprop, sgd, sign_sgd, signum, yogi)
from jaxweb._src.optax.base import (
    EmptyState, GradientTransformation, GradientTransformationExtraArgs, OptState, Params, Schedule,
    ScalarOrSchedule, Updates, apply_updates, chain, identity, incremental_update, init_empty_state,
    named_chain, periodic_update, set_to_zero, stateless, stateless_with_tree_map, with_extra_args_support)
from jaxweb._src.optax.factorized import FactoredState, scale_by_factored_rms
from jaxweb._src.optax.inject import (
    InjectHyperparamsState, InjectStatefulHyperparamsState, WrappedSchedule, inject_hyperparams,
    inject_stateful_hyperparams)
from jaxweb._src.optax.losses import (
    cosine_distance, cosine_similarity, hinge_loss, huber_loss, kl_divergence, l2_loss, log_cosh,
    safe_softmax_cross_entropy, sigmoid_binary_cross_entropy, smooth_labels, softmax_cross_entropy,
    softmax_cross_entropy_with_integer_labels, squared_error)
from jaxweb._src.optax.moments import (
    ScaleByAdamState, ScaleByAmsgradState, ScaleByBeliefState, ScaleByLionState, ScaleByRmsState,
    ScaleByRmsWithCountState, ScaleByRssState, ScaleByRStdDevState, ScaleByRStdDevWithCountState,
    scale_by_adam, scale_by_adamax, scale_by_amsgrad, scale_by_belief, scale_by_lion, scale_by_radam,
    scale_by_rms, scale_by_rss, scale_by_stddev, scale_by_yogi)
from jaxweb._src.optax.numerics import (
    global_norm, safe_increment, safe_int32_increment, safe_norm, safe_root_mean_squares)
from jaxweb._src.optax.schedules import (
    constant_schedule, cosine_decay_schedule, cosine_onecycle_schedule, exponential_decay, join_schedules,
    linear_onecycle_schedule, linear_schedule, piecewise_constant_schedule, piecewise_interpolate_schedule,
    polynomial_schedule, sgdr_schedule, warmup_constant_schedule, warmup_cosine_decay_schedule,
    warmup_exponential_decay_schedule)
from jaxweb._src.optax.transforms import (
    ApplyEvery, EmaState, ScaleByScheduleState, TraceState, WeightDecaySchedule, add_decayed_weights,
    apply_every, centralize, clip, clip_by_block_rms, clip_by_global_norm, ema, normalize_by_update_norm,
    scale, scale_by_learning_rate, scale_by_param_block_norm, scale_by_param_block_rms, scale_by_schedule,
    scale_by_sign, scale_by_trust_ratio, trace)
from jaxweb._src.optax.wrappers import (
    ApplyIfFiniteState, ConditionallyMaskState, MaskedNode, MaskedState, MultiSteps, MultiStepsState,
    MultiTransformState, PartitionState, apply_if_finite, conditionally_mask, masked, multi_transform,
    partition, skip_large_updates, skip_not_finite)
from jaxweb._src.optax import base as _base
from jaxweb.optax import losses, schedules, tree, tree_utils  # noqa: F401  (optax's subpackages)

ScaleState = AddDecayedWeightsState = ScaleByTrustRatioState = EmptyState
NO_PARAMS_MSG = _base.NO_PARAMS_MSG
