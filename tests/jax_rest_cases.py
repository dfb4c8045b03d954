"""Cases for the rest of jax (issue 25, part 3: jax.image, lax helpers, scipy.special), in
tests/nn_scipy_cases.py's format; JAX's outputs are recorded into
tests/data/jax_rest_reference.json by
`tests/data/record_jax_nn_scipy.py jax_rest_cases jax_rest_reference.json` (JAX 0.10.2).
Plain data, importable without numpy or JAX."""
F32 = "float32"

IMG = [[0.0, 1.0, 4.0, 2.0, -1.0], [3.0, 0.5, 2.0, 7.0, 1.0], [1.0, 1.0, -2.0, 0.0, 5.0], [2.0, 6.0, 3.0, 1.0, 0.5]]
IMG3 = [IMG, [[v * 0.5 - 1.0 for v in row] for row in IMG]]  # (2, 4, 5): a batch axis that keeps its size
UINT = [[0, 10, 200, 255], [7, 9, 11, 13], [100, 50, 25, 12]]

CASES = []
for method in ["nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area"]:
    for shape in ([3, 7], [8, 2], [4, 5], [1, 1]):
        for aa in (True, False):
            CASES.append((f"image.resize.{method}.{shape[0]}x{shape[1]}.{aa}", "image.resize",
                          [(F32, IMG), shape, method], {"antialias": aa}, "value"))
CASES += [
    ("image.resize.batch", "image.resize", [(F32, IMG3), [2, 7, 3], "bilinear"], {}, "value"),
    ("image.resize.uint8.linear", "image.resize", [("uint8", UINT), [5, 3], "linear"], {}, "value"),
    ("image.resize.uint8.nearest", "image.resize", [("uint8", UINT), [5, 7], "nearest"], {}, "value"),
    ("image.resize.int32.cubic", "image.resize", [("int32", UINT), [2, 6], "cubic"], {}, "value"),
    ("image.resize.f16", "image.resize", [("float16", IMG), [6, 3], "linear"], {}, "value"),
    ("image.resize.badshape", "image.resize", [(F32, IMG), [3], "linear"], {}, "value"),
    ("image.resize.badmethod", "image.resize", [(F32, IMG), [3, 3], "bogus"], {}, "value"),
]
for method in ["linear", "cubic", "lanczos3", "area", "cubic-pytorch"]:
    for aa in (True, False):
        CASES.append((f"image.st.{method}.{aa}", "image.scale_and_translate",
                      [(F32, IMG), [5, 6], [0, 1], (F32, [1.3, 0.8]), (F32, [0.4, -1.1]), method],
                      {"antialias": aa}, "value"))
CASES += [
    ("image.st.one_dim", "image.scale_and_translate",
     [(F32, IMG3), [2, 4, 9], [2], (F32, [1.7]), (F32, [0.25]), "linear"], {}, "value"),
    ("image.st.nearest", "image.scale_and_translate",
     [(F32, IMG), [5, 6], [0, 1], (F32, [1.3, 0.8]), (F32, [0.4, -1.1]), "nearest"], {}, "value"),
]

# ---------------------------------------------------------------- jax.lax
LHS = [[[[float((i * 7 + j * 3 + c * 5) % 11) - 5.0 for c in range(2)] for j in range(5)] for i in range(4)]]  # NHWC 1x4x5x2
CASES += [
    ("lax.patches.nchw", "lax.conv_general_dilated_patches",
     [(F32, [[[[float((i * 5 + j) % 7) for j in range(5)] for i in range(4)]] * 2]), [2, 3], [1, 1], "VALID"], {}, "value"),
    ("lax.patches.nhwc", "lax.conv_general_dilated_patches", [(F32, LHS), [3, 2], [2, 1], "SAME"],
     {"dimension_numbers": ["NHWC", "HWIO", "NHWC"]}, "value"),
    ("lax.patches.dilated", "lax.conv_general_dilated_patches", [(F32, LHS), [2, 2], [1, 1], [[1, 0], [0, 2]]],
     {"rhs_dilation": [2, 1], "dimension_numbers": ["NHWC", "OIHW", "NCHW"]}, "value"),
    ("lax.local.nhwc", "lax.conv_general_dilated_local",
     [(F32, LHS), (F32, [[[[((o + 3 * i + 5 * h + 7 * w) % 9) / 4.0 - 1 for o in range(3)] for i in range(8)]
                          for w in range(3)] for h in range(2)]), [2, 2], "SAME", [2, 2]],
     {"dimension_numbers": ["NHWC", "HWIO", "NHWC"]}, "value"),
    ("lax.approx_max_k", "lax.approx_max_k", [(F32, [[3.0, -1.0, 7.0, 2.0, 7.5], [0.0, 4.0, -2.0, 9.0, 1.0]]), 3], {}, "value"),
    ("lax.approx_min_k", "lax.approx_min_k", [(F32, [[3.0, -1.0, 7.0, 2.0, 7.5], [0.0, 4.0, -2.0, 9.0, 1.0]]), 2],
     {"reduction_dimension": 0}, "value"),
    ("lax.ragged_dot", "lax.ragged_dot",
     [(F32, [[float((r * 3 + k) % 5) - 2 for k in range(3)] for r in range(6)]),
      (F32, [[[float((g + k * 2 + n) % 4) for n in range(2)] for k in range(3)] for g in range(3)]),
      ("int32", [2, 0, 3])], {}, "value"),
    ("lax.ragged_dot.full", "lax.ragged_dot",
     [(F32, [[float((r * 3 + k) % 5) - 2 for k in range(3)] for r in range(6)]),
      (F32, [[[float((g + k * 2 + n) % 4) for n in range(2)] for k in range(3)] for g in range(3)]),
      ("int32", [1, 4, 1])], {}, "value"),
]

# ---------------------------------------------------------------- jax.scipy.special
INF, NAN = float("inf"), float("nan")
XS = [-12.0, -3.0, -1.0, -0.3, 0.0, 0.2, 0.49, 0.5, 0.9, 1.0, 1.7, 3.9, 4.1, 6.0, 20.0, 100.0, INF, NAN]
CASES += [
    ("sp.wofz.real", "scipy.special.wofz", [(F32, [-3.0, -0.5, 0.0, 0.5, 1.0, 4.0, 30.0])], {}, "value"),
    ("sp.wofz.complex", "scipy.special.wofz",
     [("complex64", [1 + 1j, -2 + 0.5j, 0.3 - 0.7j, -1 - 2j, 5 + 5j, 0.01j, 40 - 3j, -0.5 + 8j])], {}, "value"),
    ("sp.dawsn", "scipy.special.dawsn", [(F32, XS)], {}, "value"),
    ("sp.dawsn.int", "scipy.special.dawsn", [("int32", [0, 1, 2, 7])], {}, "value"),
    ("sp.dawsn.grad", "scipy.special.dawsn", [(F32, [-2.0, 0.1, 0.7, 3.0])], {}, "grad"),
    ("sp.fresnel", "scipy.special.fresnel", [(F32, XS)], {}, "value"),
    ("sp.sici", "scipy.special.sici", [(F32, XS)], {}, "value"),
    ("sp.spence", "scipy.special.spence", [(F32, [-1.0, 0.0, 1e-4, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 2.5, 10.0, 1e4, INF, NAN])],
     {}, "value"),
    ("sp.spence.grad", "scipy.special.spence", [(F32, [0.3, 0.7, 1.5, 4.0])], {}, "grad"),
    ("sp.spence.f16", "scipy.special.spence", [("float16", [1.0])], {}, "value"),
    ("sp.spence.int", "scipy.special.spence", [("int32", [1])], {}, "value"),
    ("sp.expn", "scipy.special.expn", [(F32, [0, 1, 1, 2, 2, 3, 3, 5, 10, 1, 2, -1, 2]),
                                       (F32, [0.5, 1e-3, 0.5, 0.9, 2.0, 1.1, 8.0, 0.25, 3.0, 50.0, 0.0, 1.0, -1.0])],
     {}, "value"),
    ("sp.expn.int_n", "scipy.special.expn", [("int32", [1, 2, 3]), (F32, [0.3, 1.0, 4.0])], {}, "value"),
    ("sp.expn.grad", "scipy.special.expn", [2.0, (F32, [0.2, 1.5, 3.0])], {}, "gradarg1"),
    ("sp.bessel_jn", "scipy.special.bessel_jn", [(F32, [0.0, 1.0, 2.5, 5.0, 12.0, 30.0])], {"v": 3}, "value"),
    ("sp.bessel_jn.iter", "scipy.special.bessel_jn", [(F32, [1.0, 2.5])], {"v": 1, "n_iter": 12}, "value"),
]
