"""Transformations of transformations: masking, partitioning by label, skipping
non-finite steps, gradient accumulation (MultiSteps), conditional application.

optax branches with `lax.cond`; here both branches are computed and selected leaf by
leaf with `jnp.where`, which gives the same values, stays elementwise (so it fuses)
and needs no control-flow primitive.
"""
from __future__ import annotations

from typing import Any, Callable, Hashable, Mapping, NamedTuple

from ... import numpy as jnp, tree_util
from . import base, numerics, tree_utils as tu
from .moments import _canon


class MaskedState(NamedTuple):
    inner_state: Any


class MaskedNode(NamedTuple):
    """Stands in for a masked-out leaf: a pytree node with no leaves, so inner
    transformations neither see it nor keep state for it."""


def _mask_callable(mask: Any) -> bool:
    leaves = tree_util.tree_leaves(tree_util.tree_map(callable, mask))
    return len(leaves) > 0 and all(leaves)


def _mask_pytree(pytree: Any, mask_tree: Any) -> Any:
    return tree_util.tree_map(lambda m, p: p if m else MaskedNode(), mask_tree, pytree)


def masked(inner: base.GradientTransformation, mask: Any, *,
           mask_compatible_extra_args: bool = False) -> base.GradientTransformationExtraArgs:
    """Apply `inner` only where `mask` (a tree of bools, a prefix of the params, or a
    function of them) is True; other updates pass through unchanged."""
    inner = base.with_extra_args_support(inner)

    def mask_of(tree):
        return mask(tree) if _mask_callable(mask) else mask

    def masked_extra(extra_args, updates, mask_tree):
        structure = tree_util.tree_structure(updates)
        return {k: _mask_pytree(v, mask_tree) if mask_compatible_extra_args and
                tree_util.tree_structure(v) == structure else v for k, v in extra_args.items()}

    def init_fn(params):
        return MaskedState(inner_state=inner.init(_mask_pytree(params, mask_of(params))))

    def update_fn(updates, state, params=None, **extra_args):
        base.check_state(state, MaskedState, "masked")
        mask_tree = mask_of(updates)
        new_masked, new_inner = inner.update(
            _mask_pytree(updates, mask_tree), state.inner_state,
            None if params is None else _mask_pytree(params, mask_tree),
            **masked_extra(extra_args, updates, mask_tree))
        new_updates = tree_util.tree_map(lambda m, new, old: new if m else old,
                                         mask_tree, new_masked, updates)
        return new_updates, MaskedState(inner_state=new_inner)
    return base.GradientTransformationExtraArgs(init_fn, update_fn)


class PartitionState(NamedTuple):
    inner_states: Mapping[Hashable, Any]


MultiTransformState = PartitionState


def partition(transforms: Mapping[Hashable, base.GradientTransformation], param_labels: Any, *,
              mask_compatible_extra_args: bool = False) -> base.GradientTransformationExtraArgs:
    """Apply `transforms[label]` to the parameters labelled `label` (`param_labels` is a
    tree of labels, a prefix of the params, or a function of them)."""
    transforms = {k: base.with_extra_args_support(v) for k, v in transforms.items()}

    def labels_of(tree):
        return param_labels(tree) if callable(param_labels) else param_labels

    def group_tx(labels, group):
        mask = tree_util.tree_map(lambda label: label == group, labels)
        return masked(transforms[group], mask, mask_compatible_extra_args=mask_compatible_extra_args)

    def init_fn(params):
        labels = labels_of(params)
        label_set = set(tree_util.tree_leaves(labels))
        if not label_set.issubset(transforms.keys()):
            raise ValueError(f"Some parameters have no corresponding transformation.\nParameter labels: "
                             f"{sorted(label_set, key=repr)} \nTransforms keys: "
                             f"{sorted(transforms.keys(), key=repr)} \n")
        return PartitionState({g: group_tx(labels, g).init(params) for g in transforms})

    def update_fn(updates, state, params=None, **extra_args):
        base.check_state(state, PartitionState, "multi_transform")
        labels = labels_of(updates)
        new_inner = {}
        for group in transforms:
            if group not in state.inner_states:
                raise base.state_error("multi_transform", f"inner states for {sorted(transforms, key=repr)}", state)
            updates, new_inner[group] = group_tx(labels, group).update(
                updates, state.inner_states[group], params, **extra_args)
        return updates, PartitionState(new_inner)
    return base.GradientTransformationExtraArgs(init_fn, update_fn)


multi_transform = partition


def _select_tree(pred: Any, on_true: Any, on_false: Any) -> Any:
    """`on_true if pred else on_false` leaf by leaf, keeping each false leaf's dtype."""
    return tree_util.tree_map(lambda t, f: jnp.where(pred, t, f).astype(jnp.asarray(f).dtype),
                              on_true, on_false)


# ---------------------------------------------------------------- conditions
class ApplyIfFiniteState(NamedTuple):
    notfinite_count: Any
    last_finite: Any
    total_notfinite: Any
    inner_state: Any


def apply_if_finite(inner: base.GradientTransformation,
                    max_consecutive_errors: int) -> base.GradientTransformationExtraArgs:
    """Skip (zero updates, unchanged inner state) steps whose updates are not all finite,
    unless more than `max_consecutive_errors` came in a row."""
    inner = base.with_extra_args_support(inner)

    def init(params):
        return ApplyIfFiniteState(notfinite_count=jnp.zeros([], jnp.int32),
                                  last_finite=jnp.array(True, jnp.bool_),
                                  total_notfinite=jnp.zeros([], jnp.int32), inner_state=inner.init(params))

    def update(updates, state, params=None, **extra_args):
        base.check_state(state, ApplyIfFiniteState, "apply_if_finite")
        leaves = tree_util.tree_leaves(updates)
        isfinite = jnp.all(jnp.array([jnp.all(jnp.isfinite(p)) for p in leaves])) if leaves else jnp.array(True)
        notfinite_count = jnp.where(isfinite, jnp.zeros([], jnp.int32),
                                    numerics.safe_increment(state.notfinite_count))
        apply = jnp.logical_or(isfinite, notfinite_count > max_consecutive_errors)
        new_updates, new_inner = inner.update(updates, state.inner_state, params, **extra_args)
        new_updates = tree_util.tree_map(lambda u: jnp.where(apply, u, jnp.zeros_like(u)), new_updates)
        new_inner = _select_tree(apply, new_inner, state.inner_state)
        total = jnp.where(isfinite, state.total_notfinite, numerics.safe_increment(state.total_notfinite))
        return new_updates, ApplyIfFiniteState(notfinite_count=notfinite_count, last_finite=isfinite,
                                               total_notfinite=total, inner_state=new_inner)
    return base.GradientTransformationExtraArgs(init=init, update=update)


class ConditionallyMaskState(NamedTuple):
    step: Any
    inner_state: Any


def conditionally_mask(inner: base.GradientTransformation, should_transform_fn: Callable[..., Any],
                       forward_extra_args: bool = False) -> base.GradientTransformationExtraArgs:
    """Apply `inner` when `should_transform_fn(step)` holds; zero updates otherwise."""
    inner = base.with_extra_args_support(inner)

    def init_fn(params):
        return ConditionallyMaskState(step=jnp.zeros([], jnp.int32), inner_state=inner.init(params))

    def update_fn(updates, state, params=None, **extra_args):
        base.check_state(state, ConditionallyMaskState, "conditionally_mask")
        cond = should_transform_fn(state.step, **(extra_args if forward_extra_args else {}))
        new_updates, new_inner = inner.update(updates, state.inner_state, params, **extra_args)
        new_updates = tree_util.tree_map(lambda u: jnp.where(cond, u, jnp.zeros_like(u)), new_updates)
        return new_updates, ConditionallyMaskState(step=numerics.safe_increment(state.step),
                                                   inner_state=_select_tree(cond, new_inner, state.inner_state))
    return base.GradientTransformationExtraArgs(init_fn, update_fn)


# ---------------------------------------------------------------- MultiSteps
def skip_not_finite(updates: Any, gradient_step: Any, params: Any) -> tuple[Any, Any]:
    """A `should_skip_update_fn` for MultiSteps: skip steps with non-finite updates."""
    counts = [jnp.sum(jnp.logical_not(jnp.isfinite(p))) for p in tree_util.tree_leaves(updates)]
    num = jnp.sum(jnp.array(counts))
    return num > 0, {"should_skip": num > 0, "num_not_finite": num}


def skip_large_updates(updates: Any, gradient_step: Any, params: Any, max_squared_norm: Any) -> tuple[Any, Any]:
    """A `should_skip_update_fn` for MultiSteps: skip steps whose squared norm is too large."""
    norm_sq = jnp.sum(jnp.array([jnp.sum(p ** 2) for p in tree_util.tree_leaves(updates)]))
    skip = jnp.logical_not(norm_sq < max_squared_norm)
    return skip, {"should_skip": skip, "norm_squared": norm_sq}


class MultiStepsState(NamedTuple):
    mini_step: Any
    gradient_step: Any
    inner_opt_state: Any
    acc_grads: Any
    skip_state: Any = ()


class MultiSteps:
    """Gradient accumulation: average (or sum) the gradients of k mini-steps, then apply
    the inner optimizer once; the other mini-steps return zero updates."""

    def __init__(self, opt: base.GradientTransformation, every_k_schedule: int | Callable[[Any], Any],
                 use_grad_mean: bool = True, should_skip_update_fn: Callable[..., Any] | None = None,
                 accumulator_dtype: Any = jnp.float32):
        self._opt = base.with_extra_args_support(opt)
        k = every_k_schedule
        self._every_k_schedule = (lambda step: k) if isinstance(k, int) else k
        self._use_grad_mean = use_grad_mean
        self._accumulator_dtype = _canon(accumulator_dtype)
        self._should_skip_update_fn = should_skip_update_fn or (
            lambda *args, **kwargs: (jnp.array(False, dtype=jnp.bool_), ()))

    @property
    def inner_opt(self) -> base.GradientTransformationExtraArgs:
        return self._opt

    def _acc_update(self, grad: Any, acc: Any, n_acc: Any) -> Any:
        return acc + (grad - acc) / (n_acc + 1) if self._use_grad_mean else grad + acc

    def init(self, params: Any) -> MultiStepsState:
        gradient_step = jnp.zeros([], dtype=jnp.int32)
        _, skip_state = self._should_skip_update_fn(tu.tree_zeros_like(params), gradient_step, params)
        return MultiStepsState(mini_step=jnp.zeros([], dtype=jnp.int32), gradient_step=gradient_step,
                               inner_opt_state=self._opt.init(params),
                               acc_grads=tu.tree_zeros_like(params, dtype=self._accumulator_dtype),
                               skip_state=skip_state)

    def update(self, updates: Any, state: MultiStepsState, params: Any = None,
               **extra_args: Any) -> tuple[Any, MultiStepsState]:
        base.check_state(state, MultiStepsState, "MultiSteps")
        k_steps = self._every_k_schedule(state.gradient_step)
        skip, skip_state = self._should_skip_update_fn(updates, state.gradient_step, params)
        if (jnp.asarray(skip).dtype, jnp.shape(skip)) != (jnp.bool_, ()):
            raise ValueError("The `should_skip_update_fn` function should return a boolean scalar array, "
                             f"but it returned an array of dtype {jnp.asarray(skip).dtype} and shape "
                             f"{jnp.shape(skip)}")
        acc = tree_util.tree_map(lambda u, a: self._acc_update(u, a, state.mini_step), updates, state.acc_grads)
        final, new_inner = self._opt.update(tu.tree_cast_like(acc, updates), state.inner_opt_state,
                                            params=params, **extra_args)
        emit = state.mini_step == k_steps - 1
        done = MultiStepsState(
            mini_step=numerics.safe_increment(state.mini_step) % k_steps,
            gradient_step=emit * numerics.safe_increment(state.gradient_step) + (1 - emit) * state.gradient_step,
            inner_opt_state=_select_tree(emit, new_inner, state.inner_opt_state),
            acc_grads=tree_util.tree_map(lambda a: ((1 - emit) * a).astype(self._accumulator_dtype), acc),
            skip_state=skip_state)
        final = tree_util.tree_map(lambda u: emit * u, final)
        kept = state._replace(skip_state=skip_state)
        new_updates = tree_util.tree_map(lambda u: jnp.where(skip, jnp.zeros_like(u), u), final)
        new_state = _select_tree(skip, kept, done)
        return new_updates, new_state

    def has_updated(self, state: Any) -> Any:
        """True right after a step that applied the inner optimizer."""
        return jnp.logical_and(state.mini_step == 0, state.gradient_step > 0)

    def gradient_transformation(self) -> base.GradientTransformation:
        return base.GradientTransformation(init=self.init, update=self.update)
