"""The optax reference cases, as data: which optimizer/transform/schedule/loss to build
with which arguments, and the inputs. Pure Python, no imports of optax, JAX or jaxweb:
`record_optax.py` builds each case with the real optax (in a separate venv) and
tests/test_optax_reference.py builds the same case with jaxweb.optax.

A spec is `{"fn": "dotted.name", "args": [...], "kwargs": {...}}`, resolved against the
module given to `build`; `{"ref": "name"}` is the attribute itself (e.g. a factory
passed to inject_hyperparams). Everything else is a literal.
"""
import math

STEPS = 5
PARAM_SHAPES = {"b": (4,), "w": (3, 4)}


def params0() -> dict:
    """Initial parameters: deterministic, no zeros, both signs."""
    out = {}
    for j, (name, shape) in enumerate(sorted(PARAM_SHAPES.items())):
        n = math.prod(shape)
        out[name] = [0.5 * math.cos(0.9 * i + 0.4 + j) for i in range(n)]
    return out


def grads(step: int, nonfinite_at: int | None = None) -> dict:
    """The gradient fed at `step` (0-based): fixed values, so both sides see the same."""
    out = {}
    for j, (name, shape) in enumerate(sorted(PARAM_SHAPES.items())):
        n = math.prod(shape)
        vals = [math.sin(1.3 * i + 0.7 * step + 0.25 + 2.1 * j) * (1.0 + 0.3 * step) for i in range(n)]
        if nonfinite_at is not None and step == nonfinite_at and name == "w":
            vals[1] = float("nan")
        out[name] = vals
    return out


def F(fn: str, *args, **kwargs) -> dict:
    return {"fn": fn, "args": list(args), "kwargs": kwargs}


def R(name: str) -> dict:
    return {"ref": name}


WCOS = F("warmup_cosine_decay_schedule", init_value=0.0, peak_value=0.1, warmup_steps=2, decay_steps=5,
         end_value=0.01)

OPTIMIZERS = {
    "sgd": F("sgd", 0.1),
    "sgd_momentum": F("sgd", 0.1, momentum=0.9),
    "sgd_nesterov": F("sgd", 0.1, momentum=0.9, nesterov=True),
    "adam": F("adam", 0.01),
    "adam_eps_root": F("adam", 0.01, b1=0.8, b2=0.95, eps=1e-3, eps_root=1e-4),
    "adam_schedule": F("adam", WCOS),
    "nadam": F("nadam", 0.01),
    "adamw": F("adamw", 0.01, weight_decay=0.1),
    "adamw_masked": F("adamw", WCOS, weight_decay=0.5, mask={"b": False, "w": True}),
    "adamw_nesterov": F("adamw", 0.01, weight_decay=0.1, nesterov=True),
    "adamax": F("adamax", 0.01),
    "adamaxw": F("adamaxw", 0.01, weight_decay=0.2),
    "amsgrad": F("amsgrad", 0.01),
    "radam": F("radam", 0.01, threshold=3.0),
    "radam_default": F("radam", 0.01),
    "rmsprop": F("rmsprop", 0.01),
    "rmsprop_centered_momentum": F("rmsprop", 0.01, centered=True, momentum=0.9, eps=1e-4),
    "rmsprop_eps_outside_bias": F("rmsprop", 0.01, eps_in_sqrt=False, bias_correction=True, initial_scale=0.1),
    "adagrad": F("adagrad", 0.1),
    "adafactor": F("adafactor", 0.01, min_dim_size_to_factor=2),
    "adafactor_unfactored_momentum": F("adafactor", 0.01, factored=False, momentum=0.9, weight_decay_rate=0.01,
                                       clipping_threshold=None),
    "adafactor_default_lr": F("adafactor"),
    "lion": F("lion", 0.001, weight_decay=0.01),
    "lamb": F("lamb", 0.01, weight_decay=0.1),
    "lars": F("lars", 0.1, weight_decay=0.01),
    "lars_nesterov_masked": F("lars", 0.1, weight_decay=0.01, weight_decay_mask={"b": False, "w": True},
                              trust_ratio_mask={"b": False, "w": True}, nesterov=True),
    "yogi": F("yogi", 0.01),
    "adabelief": F("adabelief", 0.01),
    "fromage": F("fromage", 0.1),
    "signum": F("signum", 0.01),
}

TRANSFORMS = {
    "clip": F("chain", F("clip", 0.5), F("sgd", 1.0)),
    "clip_by_global_norm": F("chain", F("clip_by_global_norm", 1.5), F("sgd", 1.0)),
    "clip_by_global_norm_big": F("clip_by_global_norm", 100.0),
    "clip_by_block_rms": F("clip_by_block_rms", 0.3),
    "add_decayed_weights": F("add_decayed_weights", 0.1),
    "add_decayed_weights_schedule": F("add_decayed_weights", F("linear_schedule", 0.1, 0.0, 4)),
    "add_decayed_weights_mask": F("add_decayed_weights", 0.1, mask={"b": True, "w": False}),
    "scale": F("scale", -0.3),
    "scale_by_adam": F("scale_by_adam", b1=0.5, eps_root=1e-8),
    "scale_by_schedule": F("scale_by_schedule", F("exponential_decay", 1.0, 2, 0.5)),
    "scale_by_learning_rate": F("scale_by_learning_rate", 0.2),
    "scale_by_learning_rate_schedule": F("scale_by_learning_rate", F("cosine_decay_schedule", 0.2, 4)),
    "scale_by_trust_ratio": F("scale_by_trust_ratio"),
    "trace": F("trace", 0.5),
    "ema": F("ema", 0.7),
    "centralize": F("centralize"),
    "masked_prefix": F("masked", F("adam", 0.1), {"b": False, "w": True}),
    "masked_callable": F("masked", F("sgd", 0.1, momentum=0.5), {"ref": "__mask_w__"}),
    "multi_transform": F("multi_transform", {"a": F("adam", 0.01), "s": F("sgd", 0.1)}, {"b": "s", "w": "a"}),
    "multi_transform_zero": F("multi_transform", {"a": F("adam", 0.01), "z": F("set_to_zero")}, {"b": "z", "w": "a"}),
    "chain_clip_adamw": F("chain", F("clip_by_global_norm", 1.0), F("adamw", WCOS, weight_decay=0.05)),
    "named_chain": F("named_chain", ["clip", F("clip", 0.4)], ["opt", F("adam", 0.01)]),
    "multisteps_3": F("MultiSteps", F("adam", 0.01), every_k_schedule=3),
    "multisteps_sum": F("MultiSteps", F("sgd", 0.1, momentum=0.9), every_k_schedule=2, use_grad_mean=False),
    "apply_every": F("apply_every", 2),
    "inject_adam": F("inject_hyperparams", R("adam"), args_call=[], kwargs_call={"learning_rate": WCOS, "b1": 0.8}),
    "inject_sgd_static": F("inject_hyperparams", R("sgd"), static_args="nesterov",
                           kwargs_call={"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
}

NONFINITE = {  # fed a NaN at step 1
    "apply_if_finite": F("apply_if_finite", F("adam", 0.01), 2),
    "apply_if_finite_zero_tolerance": F("apply_if_finite", F("sgd", 0.1, momentum=0.9), 0),
    "multisteps_skip_not_finite": F("MultiSteps", F("adam", 0.01), every_k_schedule=2,
                                    should_skip_update_fn=R("skip_not_finite")),
}

SCHEDULES = {
    "constant": (F("constant_schedule", 0.3), [0, 5, 100]),
    "linear": (F("linear_schedule", 1.0, 0.1, 10, transition_begin=3), [0, 2, 3, 4, 12, 13, 14, 50]),
    "polynomial": (F("polynomial_schedule", 1.0, 0.0, 2.0, 8, 2), [0, 1, 2, 3, 6, 9, 10, 11]),
    "cosine": (F("cosine_decay_schedule", 2.0, 10, alpha=0.1), [0, 1, 5, 9, 10, 11, 40]),
    "cosine_exponent": (F("cosine_decay_schedule", 1.0, 6, alpha=0.0, exponent=2.0), [0, 3, 5, 6, 7]),
    "warmup_cosine": (F("warmup_cosine_decay_schedule", 0.0, 1.0, 4, 12, end_value=0.05),
                      [0, 1, 3, 4, 5, 8, 11, 12, 13, 30]),
    "exponential": (F("exponential_decay", 1.0, 3, 0.5), [0, 1, 3, 6, 7]),
    "exponential_staircase_begin_end": (F("exponential_decay", 1.0, 3, 0.5, transition_begin=2, staircase=True,
                                          end_value=0.2), [0, 2, 3, 4, 5, 8, 11, 20]),
    "exponential_growth_end": (F("exponential_decay", 0.1, 2, 2.0, end_value=1.0), [0, 2, 4, 6, 8, 10]),
    "piecewise_constant": (F("piecewise_constant_schedule", 1.0, {"3": 0.5, "6": 0.1}), [0, 2, 3, 4, 5, 6, 7, 20]),
    "join": (F("join_schedules", [F("constant_schedule", 1.0), F("linear_schedule", 1.0, 0.0, 4)], [3]),
             [0, 2, 3, 4, 6, 7, 8, 9]),
    "warmup_constant": (F("warmup_constant_schedule", 0.0, 0.5, 4), [0, 2, 4, 5]),
    "warmup_exponential": (F("warmup_exponential_decay_schedule", 0.0, 1.0, 2, 2, 0.5), [0, 1, 2, 3, 4, 6]),
    "sgdr": (F("sgdr_schedule", [{"init_value": 0.0, "peak_value": 1.0, "warmup_steps": 1, "decay_steps": 4},
                                 {"init_value": 0.0, "peak_value": 0.5, "warmup_steps": 1, "decay_steps": 3}]),
             [0, 1, 3, 4, 5, 6, 7, 9]),
    "linear_onecycle": (F("linear_onecycle_schedule", 20, 1.0), [0, 3, 6, 10, 17, 18, 20, 25]),
    "cosine_onecycle": (F("cosine_onecycle_schedule", 20, 1.0), [0, 3, 6, 10, 17, 20, 25]),
}

LOGITS = [[1.0, -0.5, 2.0, 0.25], [-1.5, 0.0, 0.5, 3.0], [0.1, 0.2, -0.3, 0.4]]
PROBS = [[0.1, 0.2, 0.6, 0.1], [0.0, 0.0, 0.0, 1.0], [0.25, 0.25, 0.25, 0.25]]
PRED = [[0.5, -1.2, 2.5, 0.0], [1.0, 1.0, -3.0, 0.2], [0.3, -0.1, 0.7, -2.0]]
TARGET = [[0.0, -1.0, 0.5, 0.3], [1.5, 0.5, -0.5, 0.0], [0.3, 0.2, -0.6, -1.0]]

LOSSES = {
    "softmax_cross_entropy": ("softmax_cross_entropy", [LOGITS, PROBS], {}),
    "softmax_cross_entropy_axis0": ("softmax_cross_entropy", [LOGITS, PROBS], {"axis": 0}),
    "softmax_cross_entropy_with_integer_labels": ("softmax_cross_entropy_with_integer_labels",
                                                  [LOGITS, {"int": [2, 3, 0]}], {}),
    "sigmoid_binary_cross_entropy": ("sigmoid_binary_cross_entropy", [PRED, PROBS], {}),
    "l2_loss": ("l2_loss", [PRED, TARGET], {}),
    "l2_loss_no_target": ("l2_loss", [PRED], {}),
    "squared_error": ("squared_error", [PRED, TARGET], {}),
    "huber_loss": ("huber_loss", [PRED, TARGET], {}),
    "huber_loss_delta": ("huber_loss", [PRED, TARGET], {"delta": 0.5}),
    "cosine_similarity": ("cosine_similarity", [PRED, TARGET], {}),
    "cosine_similarity_eps": ("cosine_similarity", [PRED, TARGET], {"epsilon": 0.5}),
    "cosine_distance": ("cosine_distance", [PRED, TARGET], {}),
    "log_cosh": ("log_cosh", [PRED, TARGET], {}),
    "hinge_loss": ("hinge_loss", [PRED, {"lit": [[1.0, -1.0, 1.0, -1.0]] * 3}], {}),
    "kl_divergence": ("kl_divergence", [{"log_softmax": LOGITS}, PROBS], {}),
    "smooth_labels": ("smooth_labels", [PROBS, 0.1], {}),
    "safe_softmax_cross_entropy": ("safe_softmax_cross_entropy", [LOGITS, PROBS], {}),
}


def resolve(module, name: str):
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def build(module, spec, refs=None):
    """Evaluate a spec against `module` (optax or jaxweb.optax)."""
    refs = refs or {}
    if isinstance(spec, dict) and "fn" in spec:
        fn = resolve(module, spec["fn"])
        args = [build(module, a, refs) for a in spec["args"]]
        kwargs = {k: build(module, v, refs) for k, v in spec["kwargs"].items()
                  if k not in ("args_call", "kwargs_call")}
        if "piecewise" in spec["fn"] and len(args) > 1 and isinstance(args[1], dict):
            args[1] = {int(k): v for k, v in args[1].items()}
        out = fn(*args, **kwargs)
        if "kwargs_call" in spec["kwargs"]:  # a factory wrapper (inject_hyperparams): call it
            call = {k: build(module, v, refs) for k, v in spec["kwargs"]["kwargs_call"].items()}
            out = out(*spec["kwargs"].get("args_call", []), **call)
        return out
    if isinstance(spec, dict) and "ref" in spec:
        return refs[spec["ref"]] if spec["ref"] in refs else resolve(module, spec["ref"])
    if isinstance(spec, dict):
        return {k: build(module, v, refs) for k, v in spec.items()}
    if isinstance(spec, list):
        return [build(module, v, refs) for v in spec] if not _is_pair(spec) else \
            (spec[0], build(module, spec[1], refs))
    return spec


def _is_pair(spec) -> bool:
    return len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict) and "fn" in spec[1]
