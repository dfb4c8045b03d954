"""Cases whose expected outputs are JAX's own (recorded once into
tests/data/jax_nn_scipy_reference.json by tests/data/record_jax_nn_scipy.py).

Each case is (id, function path, args, kwargs, mode): the path is looked up in
`jax` (the recorder) or `jaxweb` (the tests); args are ("dtype", values) arrays,
or plain Python scalars, which keep their weak types. mode "value" records the
output's values, dtype and weak type; "grad" records vmap(grad(f)) over a 1-d
float argument (derivatives at kinks and edges, where JAX pins a choice).
Plain data, importable without numpy or JAX.
"""
INF, NAN = float("inf"), float("nan")

EDGE = [-INF, -30.0, -6.0, -1.0, -0.5, -0.0, 0.0, 1e-6, 0.5, 1.0, 2.0, 6.0, 30.0, INF, NAN]
KINKS = [-3.0, -1.0, 0.0, 1.0, 3.0, 6.0]
UNIT = [-0.1, 0.0, 1e-7, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0, 1.1, NAN]

_ACTIVATIONS = ["relu", "relu6", "squareplus", "softplus", "sparse_plus", "soft_sign", "sigmoid",
                "sparse_sigmoid", "silu", "mish", "log_sigmoid", "elu", "leaky_relu", "hard_tanh",
                "celu", "selu", "gelu", "hard_sigmoid", "hard_silu", "log1mexp"]
_SPECIAL_UNARY = ["gammaln", "gammasgn", "gamma", "loggamma", "digamma", "factorial", "erf",
                  "erfc", "expit", "entr", "ndtr", "log_ndtr", "i0", "i0e", "i1", "i1e"]

CASES = []
for name in _ACTIVATIONS:
    CASES.append((f"nn.{name}.edge", f"nn.{name}", [("float32", EDGE)], {}, "value"))
    CASES.append((f"nn.{name}.pyfloat", f"nn.{name}", [1.5], {}, "value"))
    CASES.append((f"nn.{name}.f16", f"nn.{name}", [("float16", [-2.0, 0.5, 3.0])], {}, "value"))
    CASES.append((f"nn.{name}.grad", f"nn.{name}", [("float32", KINKS)], {}, "grad"))
CASES += [
    ("nn.gelu.exact", "nn.gelu", [("float32", EDGE)], {"approximate": False}, "value"),
    ("nn.gelu.exact.grad", "nn.gelu", [("float32", KINKS)], {"approximate": False}, "grad"),
    ("nn.gelu.int", "nn.gelu", [("int32", [-2, 0, 3])], {}, "value"),
    ("nn.relu.int", "nn.relu", [("int32", [-2, 0, 3])], {}, "value"),
    ("nn.relu6.int", "nn.relu6", [("int8", [-2, 0, 7])], {}, "value"),
    ("nn.leaky_relu.slope", "nn.leaky_relu", [("float32", [-2.0, 3.0])], {"negative_slope": 0.2}, "value"),
    ("nn.elu.alpha", "nn.elu", [("float32", [-2.0, 3.0])], {"alpha": 0.5}, "value"),
    ("nn.celu.alpha", "nn.celu", [("float32", [-2.0, 3.0])], {"alpha": 2.0}, "value"),
    ("nn.squareplus.b", "nn.squareplus", [("float32", [-2.0, 3.0])], {"b": 1.0}, "value"),
    ("nn.glu", "nn.glu", [("float32", [[1.0, -2.0, 0.5, 3.0], [0.0, 1.0, -1.0, 2.0]])], {}, "value"),
    ("nn.glu.axis0", "nn.glu", [("float32", [[1.0, -2.0], [0.5, 3.0]])], {"axis": 0}, "value"),
    ("nn.softmax", "nn.softmax", [("float32", [[1.0, 2.0, 3.0], [-INF, 0.0, 1.0]])], {}, "value"),
    ("nn.softmax.axis0", "nn.softmax", [("float32", [[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]])], {"axis": 0}, "value"),
    ("nn.softmax.where", "nn.softmax", [("float32", [[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]])],
     {"where": ("bool", [[True, False, True], [False, False, False]])}, "value"),
    ("nn.log_softmax", "nn.log_softmax", [("float32", [[1.0, 2.0, 3.0], [-INF, 0.0, 1.0]])], {}, "value"),
    ("nn.log_softmax.where", "nn.log_softmax", [("float32", [[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]])],
     {"where": ("bool", [[True, False, True], [True, True, False]])}, "value"),
    ("nn.softmax.int", "nn.softmax", [("int32", [1, 2, 3])], {}, "value"),
    ("nn.softmax.f16", "nn.softmax", [("float16", [1.0, 2.0, 3.0])], {}, "value"),
    ("nn.logsumexp", "nn.logsumexp", [("float32", [[1.0, 2.0, 3.0], [-INF, -INF, -INF]])], {"axis": 1}, "value"),
    ("nn.logsumexp.all", "nn.logsumexp", [("float32", [[1.0, 2.0, 3.0], [0.0, 500.0, 1.0]])], {}, "value"),
    ("nn.logsumexp.b", "nn.logsumexp", [("float32", [1.0, 2.0, 3.0])], {"b": ("float32", [1.0, -2.0, 0.5])}, "value"),
    ("nn.logsumexp.sign", "nn.logsumexp", [("float32", [1.0, 2.0, 3.0])],
     {"b": ("float32", [1.0, -2.0, 0.0]), "return_sign": True}, "value"),
    ("nn.logsumexp.int", "nn.logsumexp", [("int32", [1, 2, 3])], {}, "value"),
    ("nn.logsumexp.where", "nn.logsumexp", [("float32", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])],
     {"axis": 1, "where": ("bool", [[True, False, True], [False, False, False]])}, "value"),
    ("nn.logmeanexp", "nn.logmeanexp", [("float32", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])], {"axis": 1}, "value"),
    ("nn.standardize", "nn.standardize", [("float32", [[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]])], {}, "value"),
    ("nn.standardize.stable", "nn.standardize", [("float32", [[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]])],
     {"algorithm": "stable", "axis": 0}, "value"),
    ("nn.one_hot", "nn.one_hot", [("int32", [0, 2, -1, 3])], {"num_classes": 3}, "value"),
    ("nn.one_hot.axis0", "nn.one_hot", [("int32", [[0, 1], [2, 0]])], {"num_classes": 3, "axis": 0}, "value"),
    ("nn.one_hot.dtype", "nn.one_hot", [("int32", [1, 0])], {"num_classes": 2, "dtype": "int8"}, "value"),
]
for name in _SPECIAL_UNARY:
    CASES.append((f"sp.{name}.edge", f"scipy.special.{name}", [("float32", EDGE + [-2.0, -2.5])], {}, "value"))
    CASES.append((f"sp.{name}.pyfloat", f"scipy.special.{name}", [1.5], {}, "value"))
    CASES.append((f"sp.{name}.grad", f"scipy.special.{name}", [("float32", [-2.5, -0.5, 0.0, 0.5, 1.0, 3.0, 10.0])], {}, "grad"))
for name in ["erfinv", "logit", "ndtri"]:
    CASES.append((f"sp.{name}.unit", f"scipy.special.{name}", [("float32", UNIT + [-0.5, -1.0])], {}, "value"))
    CASES.append((f"sp.{name}.grad", f"scipy.special.{name}", [("float32", [0.01, 0.3, 0.5, 0.9])], {}, "grad"))
_AB = [0.0, 1e-3, 0.5, 1.0, 2.5, 10.0, 50.0]
for name in ["betaln", "beta", "xlogy", "xlog1py", "gammainc", "gammaincc", "comb", "rel_entr",
             "kl_div", "zeta", "poch"]:
    CASES.append((f"sp.{name}.grid", f"scipy.special.{name}",
                  [("float32", [[a] for a in _AB + [-1.0, -2.5, INF, NAN]]), ("float32", _AB + [-1.0, INF])],
                  {}, "value"))
CASES += [
    ("sp.xlogy.grad_x", "scipy.special.xlogy", [("float32", [0.0, 1.0, 2.0]), 2.0], {}, "grad"),
    ("sp.xlogy.grad_at0", "scipy.special.xlogy", [("float32", [0.0, 0.0]), ("float32", [0.0, 1.0])], {}, "value"),
    ("sp.gammainc.grad_x", "scipy.special.gammainc", [2.5, ("float32", [0.1, 1.0, 3.0, 20.0])], {}, "gradarg1"),
    ("sp.gammainc.grad_a", "scipy.special.gammainc", [("float32", [0.5, 2.5, 9.0]), 3.0], {}, "grad"),
    ("sp.gammaincc.grad_a", "scipy.special.gammaincc", [("float32", [0.5, 2.5, 9.0]), 3.0], {}, "grad"),
    ("sp.betainc.grid", "scipy.special.betainc", [("float32", [[0.5], [2.0], [30.0]]), ("float32", [[[0.5]], [[5.0]]]),
                                                 ("float32", [0.0, 0.1, 0.5, 0.9, 1.0])], {}, "value"),
    ("sp.betainc.grad_x", "scipy.special.betainc", [2.0, 3.0, ("float32", [0.1, 0.5, 0.9])], {}, "gradarg2"),
    ("sp.polygamma.grid", "scipy.special.polygamma", [("int32", [[0], [1], [2], [3], [-1]]),
                                                     ("float32", [-2.5, -2.0, -0.5, 0.0, 0.5, 1.0, 3.0, 20.0])], {}, "value"),
    ("sp.polygamma.grad", "scipy.special.polygamma", [2, ("float32", [0.5, 1.0, 3.0])], {}, "gradarg1"),
    ("sp.zeta.grad", "scipy.special.zeta", [("float32", [1.5, 2.0, 4.0]), 2.0], {}, "grad"),
    ("sp.zeta.negq", "scipy.special.zeta", [("float32", [[2.0], [3.0], [2.5]]), ("float32", [-1.0, -1.5, 0.0, -0.5])], {}, "value"),
    ("sp.log_ndtr.series", "scipy.special.log_ndtr", [("float32", [-50.0, -20.0, -11.0, -9.0])], {"series_order": 5}, "value"),
    ("sp.logsumexp.b", "scipy.special.logsumexp", [("float32", [[1.0, 2.0], [3.0, 4.0]])],
     {"axis": 0, "b": ("float32", [2.0, -1.0])}, "value"),
    ("sp.softmax", "scipy.special.softmax", [("float32", [[1.0, 2.0], [3.0, 5.0]])], {"axis": 0}, "value"),
    ("sp.log_softmax", "scipy.special.log_softmax", [("float32", [[1.0, 2.0], [3.0, 5.0]])], {"axis": None}, "value"),
    ("sp.comb.rep", "scipy.special.comb", [("float32", [5.0, 0.0, 3.0]), ("float32", [2.0, 0.0, 4.0])],
     {"repetition": True}, "value"),
    ("sp.multigammaln", "scipy.special.multigammaln", [("float32", [2.0, 5.5]), 3], {}, "value"),
    ("sp.i0.grad0", "scipy.special.i0", [("float32", [0.0, -0.0, 1e-8])], {}, "grad"),
    ("sp.i1e.grad0", "scipy.special.i1e", [("float32", [0.0, 1e-8, 8.0, 9.0])], {}, "grad"),
]
