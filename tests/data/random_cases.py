"""The jax.random calls recorded as reference data: one table shared by the recorder
(tests/data/make_random_reference.py, run with JAX) and the tests (run with jaxweb).

A case is plain data: the function's name, its arguments with arrays spelled
{"array": [...], "dtype": ...}, the key seed, and the flags it runs under. `run`
evaluates a case with either library, so both sides make exactly the same call.
Numpy-free, like the rest of the library side.
"""
from __future__ import annotations

from typing import Any


def A(values: Any, dtype: str = "float32") -> dict:
    return {"array": values, "dtype": dtype}


def case(name: str, fn: str, *args: Any, seed: int = 0, x64: bool = False, partitionable: bool = True,
         raw_key: bool = False, **kwargs: Any) -> dict:
    return {"name": name, "fn": fn, "args": list(args), "kwargs": kwargs, "seed": seed, "x64": x64,
            "partitionable": partitionable, "raw_key": raw_key}


P3 = A([0.1, 0.2, 0.7])
COV = A([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])

CASES: list[dict] = [
    # ---- keys: seeds, split and fold_in trees, both counter layouts, raw and typed keys
    *(case(f"PRNGKey/{s}", "PRNGKey", s) for s in (0, 1, 42, -1, 2 ** 31, 2 ** 32 + 5, 2 ** 40 + 7, -2 ** 40, 2 ** 63 - 1)),
    *(case(f"PRNGKey64/{s}", "PRNGKey", s, x64=True) for s in (-1, 2 ** 32 + 5, 2 ** 40 + 7, -2 ** 40)),
    case("PRNGKey/uint32", "PRNGKey", A(4294967295, "uint32")),
    case("PRNGKey/int8", "PRNGKey", A(-3, "int8")),
    case("key_data/7", "key_data", seed=7),
    *(case(f"split/{n}/{p}", "split", n, seed=3, partitionable=p)
      for n in (2, 7, [2, 3], [0]) for p in (True, False)),
    case("split/raw", "split", 4, seed=11, raw_key=True),
    *(case(f"fold_in/{d}", "fold_in", d, seed=7) for d in (0, 1, 2 ** 31, 2 ** 32 - 1, 3.7, True)),
    case("fold_in/uint8", "fold_in", A(200, "uint8"), seed=7),
    case("fold_in/int32", "fold_in", A(-5, "int32"), seed=7),
    *(case(f"tree/{p}", "tree", seed=5, partitionable=p) for p in (True, False)),
    # ---- bits
    *(case(f"bits/{dt}/{p}", "bits", [4, 16], dt, seed=2, partitionable=p)
      for dt in ("uint8", "uint16", "uint32") for p in (True, False)),
    *(case(f"bits64/{p}", "bits", [64], "uint64", seed=2, partitionable=p, x64=True) for p in (True, False)),
    case("bits/default", "bits", [64], seed=9),
    case("bits/scalar", "bits", [], seed=9),
    case("bits/odd", "bits", [9], "uint16", seed=9, partitionable=False),
    # ---- uniform and normal
    case("uniform", "uniform", [64], seed=1),
    case("uniform/minmax", "uniform", [64], "float32", -3.3, 7.1, seed=1),
    case("uniform/arrays", "uniform", [4, 3], "float32", A([0.0, 1.0, -2.0]), A([1.0, 10.0, 2.0]), seed=4),
    case("uniform/f16", "uniform", [64], "float16", seed=1),
    case("uniform/bf16", "uniform", [64], "bfloat16", seed=1),
    case("uniform/f64", "uniform", [64], "float64", -1.0, 3.0, seed=1, x64=True),
    case("uniform/nonpartitionable", "uniform", [64], seed=1, partitionable=False),
    case("normal", "normal", [64], seed=1),
    case("normal/f16", "normal", [64], "float16", seed=1),
    case("normal/f64", "normal", [64], "float64", seed=1, x64=True),
    case("truncated_normal", "truncated_normal", -0.5, 1.5, [64], seed=1),
    case("truncated_normal/arrays", "truncated_normal", A([-3.0, 0.0, 1.0]), A([-1.0, 2.0, 5.0]), [4, 3], seed=2),
    case("bernoulli", "bernoulli", 0.3, [64], seed=1),
    case("bernoulli/high", "bernoulli", 1e-3, [64], seed=1, mode="high"),
    case("bernoulli/p_array", "bernoulli", A([0.1, 0.5, 0.9]), seed=1),
    # ---- elementwise transforms
    *(case(f"{fn}", fn, [64], seed=2) for fn in ("exponential", "laplace", "logistic", "cauchy", "maxwell")),
    case("exponential/f64", "exponential", [64], "float64", seed=2, x64=True),
    case("gumbel", "gumbel", [64], seed=2),
    case("gumbel/high", "gumbel", [64], seed=2, mode="high"),
    case("gumbel/highest", "gumbel", [64], seed=2, mode="highest"),
    case("pareto", "pareto", 2.5, [64], seed=3),
    case("pareto/array", "pareto", A([1.0, 3.0, 0.5]), seed=3),
    case("rayleigh", "rayleigh", 1.7, [64], seed=3),
    case("wald", "wald", 1.3, [64], seed=3),
    case("lognormal", "lognormal", 0.7, [64], seed=3),
    case("lognormal/default", "lognormal", seed=3),
    case("triangular", "triangular", -1.0, 0.3, 2.0, [64], seed=3),
    case("double_sided_maxwell", "double_sided_maxwell", 0.5, 2.0, [64], seed=3),
    case("double_sided_maxwell/params", "double_sided_maxwell", A([0.0, 1.0]), A([1.0, 3.0]), [5], seed=3),
    case("rademacher", "rademacher", [64], seed=3),
    case("rademacher/f32", "rademacher", [64], "float32", seed=3),
    case("weibull_min", "weibull_min", 2.0, 1.5, [64], seed=3),
    case("geometric", "geometric", 0.3, [64], seed=3),
    case("geometric/array", "geometric", A([0.05, 0.5, 0.95]), seed=3),
    # ---- discrete
    case("randint", "randint", [64], 0, 10, seed=5),
    case("randint/wide", "randint", [64], -7, 1000003, seed=5),
    case("randint/uint8", "randint", [64], 0, 256, "uint8", seed=5),
    case("randint/int8", "randint", [64], -200, 200, "int8", seed=5),
    case("randint/uint32", "randint", [64], 5, A(4294967295, "uint32"), "uint32", seed=5),
    case("randint/arrays", "randint", [3, 4], A([0, 1, 2, 3], "int32"), A([1, 6, 11, 16], "int32"), seed=5),
    case("randint/empty_range", "randint", [5], 3, 3, seed=5),
    case("randint/int64", "randint", [64], -2 ** 40, 2 ** 40, "int64", seed=5, x64=True),
    case("permutation/int", "permutation", 20, seed=5),
    case("permutation/big", "permutation", 2000, seed=5),
    case("permutation/axis", "permutation", A([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], "int32"), seed=5, axis=1),
    case("permutation/independent", "permutation", A([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], "int32"),
         seed=5, axis=1, independent=True),
    case("choice", "choice", 10, [6], seed=5),
    case("choice/noreplace", "choice", 10, [6], seed=5, replace=False),
    case("choice/p", "choice", 5, [20], seed=5, p=A([0.1, 0.2, 0.3, 0.15, 0.25])),
    case("choice/p_noreplace", "choice", 5, [3], seed=5, replace=False, p=A([0.1, 0.2, 0.3, 0.15, 0.25])),
    case("choice/array_axis", "choice", A([[0.0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]), [3], seed=5, axis=1),
    case("categorical", "categorical", A([-2.3, -1.6, -0.36]), seed=6, shape=[50]),
    case("categorical/axis0", "categorical", A([[0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75],
                                                  [2.0, 2.25, 2.5, 2.75]]), seed=6, axis=0),
    case("categorical/noreplace", "categorical", A([[0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75],
                                                      [2.0, 2.25, 2.5, 2.75]]), seed=6, shape=[2, 3], replace=False),
    # ---- multivariate
    case("multivariate_normal", "multivariate_normal", A([1.0, -1.0, 0.5]), COV, [32], seed=7),
    case("orthogonal", "orthogonal", 4, [2], seed=7),
    case("orthogonal/wide", "orthogonal", 3, seed=7, m=5),
    case("orthogonal/tall", "orthogonal", 5, seed=7, m=2),
    # ---- gamma and friends (while loops)
    case("gamma", "gamma", 2.5, [16], seed=8),
    case("gamma/array", "gamma", A([0.1, 1.0, 4.0, 30.0]), seed=8),
    case("loggamma", "loggamma", 0.05, [16], seed=8),
    case("grad/gamma_vec", "grad_gamma", A([0.3, 1.0, 4.0, 30.0]), seed=8),
    case("grad/loggamma", "grad_loggamma", 0.5, seed=8),
    case("beta", "beta", 0.2, 3.0, [16], seed=9),
    case("dirichlet", "dirichlet", A([0.5, 1.0, 2.0]), [4], seed=9),
    case("t", "t", 3.0, [16], seed=9),
    case("chisquare", "chisquare", 4.0, [16], seed=9),
    case("f", "f", 5.0, 7.0, [16], seed=9),
    case("generalized_normal", "generalized_normal", 1.5, [16], seed=9),
    case("ball", "ball", 3, 2, [5], seed=9),
    case("poisson/large", "poisson", 40.0, [16], seed=10),
    case("poisson/mixed", "poisson", A([0.0, 0.5, 9.9, 10.0, 100.0, 1e4]), seed=10),
    case("binomial/large", "binomial", 200, 0.4, [16], seed=10),
    case("binomial/high_p", "binomial", 20, 0.9, [8], seed=10),
    case("binomial/edge", "binomial", A([0.0, 5.0, 30.0, 1000.0, -1.0, 7.0]), A([0.5, 0.0, 1.0, 0.2, 0.3, float("nan")]), seed=10),
    case("multinomial", "multinomial", 20, A([0.2, 0.3, 0.5]), seed=10, shape=[2, 3]),
]

# Bad arguments: the recorder stores JAX's exception type and message for each.
ERRORS: list[dict] = [
    case("err/uniform_int_dtype", "uniform", [2], "int32"),
    case("err/normal_int_dtype", "normal", [2], "int32"),
    case("err/bits_signed", "bits", [2], "int32"),
    case("err/randint_float_dtype", "randint", [2], 0, 3, "float32"),
    case("err/batched_key", "uniform_batched_key", [2]),
    case("err/bad_key_shape", "uniform_raw", A([0, 0, 0], "uint32")),
    case("err/bad_key_dtype", "uniform_raw", A([0, 0], "int32")),
    case("err/list_key", "uniform_list_key"),
    case("err/shape_float", "uniform", [2.0]),
    case("err/key_array_seed", "PRNGKey", A([1, 2], "int32")),
    case("err/float_seed", "PRNGKey", 1.5),
    case("err/fold_in_array", "fold_in", A([1, 2], "int32")),
    case("err/fold_in_negative", "fold_in", -1),
    case("err/split_batched", "split_batched", 2),
    case("err/bernoulli_int_p", "bernoulli", 1),
    case("err/bernoulli_mode", "bernoulli", 0.5, mode="middle"),
    case("err/gumbel_mode", "gumbel", [2], mode="middle"),
    case("err/choice_too_many", "choice", 3, [5], replace=False),
    case("err/choice_bad_p", "choice", 3, [2], p=A([0.5, 0.5])),
    case("err/choice_shape_int", "choice", 3, 2),
    case("err/choice_empty", "choice", 0, [2]),
    case("err/permutation_float", "permutation", 2.5),
    case("err/categorical_too_many", "categorical", A([0.0, 1.0, 2.0]), shape=[5], replace=False),
    case("err/mvn_method", "multivariate_normal", A([0.0, 0.0]), A([[1.0, 0.0], [0.0, 1.0]]), method="lu"),
    case("err/mvn_cov_shape", "multivariate_normal", A([0.0, 0.0]), A([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])),
    case("err/mvn_mean_0d", "multivariate_normal", 0.0, A([[1.0]])),
    case("err/dirichlet_0d", "dirichlet", 1.0),
    case("err/shape_mismatch", "gamma", A([1.0, 2.0]), [3]),
    case("err/beta_broadcast", "beta", A([1.0, 2.0]), A([1.0, 2.0, 3.0])),
    case("err/key_impl_name", "key_impl_name", "nope"),
    case("err/wrap_both", "wrap_both"),
]


# ---------------------------------------------------------------- evaluation
def _arg(lib: Any, v: Any) -> Any:
    if isinstance(v, dict) and "array" in v:
        return lib.numpy.asarray(v["array"], dtype=v["dtype"])
    if isinstance(v, list):
        return tuple(v)
    return v


def run(c: dict, lib: Any) -> Any:
    """Evaluate case `c` with `lib` (jax or jaxweb); returns an array (key arrays as key data)."""
    R, jnp = lib.random, lib.numpy
    args = [_arg(lib, a) for a in c["args"]]
    kwargs = {k: _arg(lib, v) for k, v in c["kwargs"].items()}
    fn = c["fn"]
    if fn == "PRNGKey":
        return R.PRNGKey(*args)
    key = R.PRNGKey(c["seed"]) if c["raw_key"] else R.key(c["seed"])
    special = {
        "key_data": lambda: R.key_data(key),
        "split": lambda: R.key_data(R.split(key, *args)) if not c["raw_key"] else R.split(key, *args),
        "fold_in": lambda: R.key_data(R.fold_in(key, *args)),
        "tree": lambda: _tree(lib, key),
        "grad_gamma": lambda: lib.grad(lambda a: R.gamma(key, a, (8,) if jnp.ndim(a) == 0 else None).sum())(args[0]),
        "grad_loggamma": lambda: lib.grad(lambda a: R.loggamma(key, a, (8,)).sum())(args[0]),
        "uniform_batched_key": lambda: R.uniform(R.split(key), *args),
        "uniform_raw": lambda: R.uniform(args[0]),
        "uniform_list_key": lambda: R.uniform([0, 0]),
        "split_batched": lambda: R.split(R.split(key), *args),
        "key_impl_name": lambda: R.key(0, impl=args[0]),
        "wrap_both": lambda: R.wrap_key_data(R.key_data(key), impl="threefry2x32", dtype=R.key_dtype()),
    }
    if fn in special:
        return special[fn]()
    return getattr(R, fn)(key, *args, **kwargs)


def _tree(lib: Any, key: Any) -> Any:
    """A derivation tree: splits of splits, fold_ins of splits; their key data stacked."""
    R = lib.random
    a, b = R.split(key)
    c = R.fold_in(a, 17)
    d, e, f = R.split(b, 3)
    g = R.fold_in(R.fold_in(f, 1), 2)
    h = R.split(R.fold_in(e, 3), (2,))[1]
    return lib.numpy.stack([R.key_data(k) for k in (a, b, c, d, e, f, g, h)])
