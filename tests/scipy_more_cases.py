"""Cases for the rest of jax.scipy (issue 25), in tests/nn_scipy_cases.py's format; JAX's
outputs are recorded into tests/data/jax_scipy_more_reference.json by
`tests/data/record_jax_nn_scipy.py scipy_more_cases jax_scipy_more_reference.json`.
Plain data, importable without numpy or JAX."""
INF, NAN = float("inf"), float("nan")

X = [-3.0, -1.5, -0.2, 0.0, 0.4, 1.0, 2.5, 4.0, INF, NAN]
Q = [0.0, 0.05, 0.3, 0.5, 0.9, 1.0, 1.2]
F32 = "float32"

CASES = []
_LOC_SCALE = {"gumbel_r": ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"],
              "gumbel_l": ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]}
for dist, fns in _LOC_SCALE.items():
    for fn in fns:
        CASES.append((f"st.{dist}.{fn}", f"scipy.stats.{dist}.{fn}", [(F32, X), 0.5, 1.5], {}, "value"))
    CASES.append((f"st.{dist}.ppf", f"scipy.stats.{dist}.ppf", [(F32, Q), 0.5, 1.5], {}, "value"))
    CASES.append((f"st.{dist}.logpdf.grad", f"scipy.stats.{dist}.logpdf", [(F32, [-1.0, 0.0, 2.0])], {}, "grad"))
for fn in ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]:
    CASES.append((f"st.pareto.{fn}", f"scipy.stats.pareto.{fn}", [(F32, [0.5, 2.5, 3.0, 7.0, INF]), 2.5, 0.5, 2.0],
                  {}, "value"))
    CASES.append((f"st.truncnorm.{fn}", f"scipy.stats.truncnorm.{fn}", [(F32, X), -1.0, 2.0, 0.3, 1.2], {}, "value"))
    CASES.append((f"st.truncnorm.tail.{fn}", f"scipy.stats.truncnorm.{fn}",
                  [(F32, [7.0, 8.0, 8.01, 8.3, 8.9, 9.0, 10.0]), 8.0, 9.0], {}, "value"))
CASES += [
    ("st.pareto.ppf", "scipy.stats.pareto.ppf", [(F32, Q), 2.5, 0.5, 2.0], {}, "value"),
    ("st.truncnorm.logpdf.grad", "scipy.stats.truncnorm.logpdf", [(F32, [-0.5, 0.0, 1.0]), -1.0, 2.0], {}, "grad"),
    ("st.gennorm.logpdf", "scipy.stats.gennorm.logpdf", [(F32, X), 1.5], {}, "value"),
    ("st.gennorm.pdf", "scipy.stats.gennorm.pdf", [(F32, X), (F32, [0.5] * 5 + [3.0] * 5)], {}, "value"),
    ("st.gennorm.cdf", "scipy.stats.gennorm.cdf", [(F32, X), 1.5], {}, "value"),
    ("st.vonmises.logpdf", "scipy.stats.vonmises.logpdf", [(F32, X), 2.0], {}, "value"),
    ("st.vonmises.pdf", "scipy.stats.vonmises.pdf", [(F32, [-1.0, 0.0, 1.0, 7.0]), (F32, [0.0, 0.5, 30.0, 2.0])],
     {}, "value"),
    ("st.wrapcauchy.logpdf", "scipy.stats.wrapcauchy.logpdf", [(F32, [-0.5, 0.0, 1.0, 3.0, 6.0, 7.0]), 0.4], {}, "value"),
    ("st.wrapcauchy.pdf", "scipy.stats.wrapcauchy.pdf", [(F32, [1.0, 1.0, 1.0]), (F32, [0.0, 0.5, 1.0])], {}, "value"),
    ("st.betabinom.logpmf", "scipy.stats.betabinom.logpmf", [(F32, [-1, 0, 1, 2, 3, 5, 6]), 5.0, 2.0, 3.0], {}, "value"),
    ("st.betabinom.pmf", "scipy.stats.betabinom.pmf", [(F32, [0, 1, 2, 3, 5]), 5.0, 2.0, 3.0, 1.0], {}, "value"),
    ("st.nbinom.logpmf", "scipy.stats.nbinom.logpmf", [(F32, [-1, 0, 1, 2, 5, 9]), 3.0, 0.4], {}, "value"),
    ("st.nbinom.pmf", "scipy.stats.nbinom.pmf", [(F32, [0, 1, 2, 5, 9]), 3.0, 0.4, 1.0], {}, "value"),
    ("st.multinomial.logpmf", "scipy.stats.multinomial.logpmf", [("int32", [1, 2, 3]), 6, (F32, [0.2, 0.3, 0.5])],
     {}, "value"),
    ("st.multinomial.pmf.wrong_n", "scipy.stats.multinomial.pmf", [("int32", [1, 2, 3]), 5, (F32, [0.2, 0.3, 0.5])],
     {}, "value"),
    ("st.multinomial.float", "scipy.stats.multinomial.pmf", [(F32, [1, 2, 3]), 6, (F32, [0.2, 0.3, 0.5])], {}, "value"),
    ("st.sem", "scipy.stats.sem", [(F32, [[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])], {}, "value"),
    ("st.sem.axis1", "scipy.stats.sem", [(F32, [[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])], {"axis": 1, "ddof": 0}, "value"),
    ("st.sem.omit", "scipy.stats.sem", [(F32, [1.0, NAN, 4.0, 2.0])], {"nan_policy": "omit"}, "value"),
    ("st.rankdata", "scipy.stats.rankdata", [(F32, [3, 1, 4, 1, 5, 9, 2, 6, 5])], {}, "value"),
    ("st.rankdata.nan", "scipy.stats.rankdata", [(F32, [3, 1, NAN, 1])], {}, "value"),
    ("st.rankdata.axis", "scipy.stats.rankdata", [(F32, [[3, 1, 3], [2, 2, 0]])], {"axis": 1}, "value"),
    ("st.mode", "scipy.stats.mode", [("int32", [[1, 2, 2, 3], [3, 3, 1, 1], [0, 5, 5, 5]])], {"axis": 1}, "value"),
    ("st.mode.axis0", "scipy.stats.mode", [(F32, [[1, 2], [1, 3], [2, 3]])], {}, "value"),
    ("st.mode.none", "scipy.stats.mode", [(F32, [[1, 2], [1, 3], [2, 3]])], {"axis": None, "keepdims": True}, "value"),
]
for method in ["min", "max", "dense", "ordinal"]:
    CASES.append((f"st.rankdata.{method}", "scipy.stats.rankdata", [("int32", [3, 1, 4, 1, 5, 9, 2, 6, 5])],
                  {"method": method}, "value"))

# ---------------------------------------------------------------- jax.scipy.signal
import math as _m  # noqa: E402

SIG = [round(_m.sin(0.3 * i) + 0.1 * ((i * 7919) % 13) - 0.6, 5) for i in range(200)]
SIG2 = [round(_m.cos(0.17 * i) + 0.05 * ((i * 104729) % 11), 5) for i in range(200)]
A1, B1 = [0.5, -1.0, 2.0, 0.25, 3.0, -0.75, 1.5], [1.0, -0.5, 2.0]
A2 = [[(i * 5 + j * 3) % 7 - 3.0 for j in range(6)] for i in range(5)]
B2 = [[1.0, -2.0, 0.5], [0.0, 1.5, -1.0]]
for m in ["full", "same", "valid"]:
    CASES += [
        (f"sg.convolve.{m}", "scipy.signal.convolve", [(F32, A1), (F32, B1)], {"mode": m}, "value"),
        (f"sg.convolve.swap.{m}", "scipy.signal.convolve", [(F32, B1), (F32, A1)], {"mode": m}, "value"),
        (f"sg.convolve.fft.{m}", "scipy.signal.convolve", [(F32, A2), (F32, B2)], {"mode": m, "method": "fft"}, "value"),
        (f"sg.correlate.{m}", "scipy.signal.correlate", [(F32, A1), (F32, B1)], {"mode": m}, "value"),
        (f"sg.convolve2d.{m}", "scipy.signal.convolve2d", [(F32, A2), (F32, B2)], {"mode": m}, "value"),
        (f"sg.correlate2d.{m}", "scipy.signal.correlate2d", [(F32, A2), (F32, B2)], {"mode": m}, "value"),
        (f"sg.correlate2d.swap.{m}", "scipy.signal.correlate2d", [(F32, B2), (F32, A2)], {"mode": m}, "value"),
        (f"sg.fftconvolve.{m}", "scipy.signal.fftconvolve", [(F32, A2), (F32, B2)], {"mode": m}, "value"),
    ]
CASES += [
    ("sg.convolve.int", "scipy.signal.convolve", [("int32", [0, 1, 2, 3, 4]), ("int32", [1, 2])], {}, "value"),
    ("sg.convolve.complex", "scipy.signal.convolve", [("complex64", [1 + 2j, -1j, 3.0]), (F32, B1)], {}, "value"),
    ("sg.fftconvolve.axes", "scipy.signal.fftconvolve", [(F32, A2), (F32, [r[:2] for r in A2])], {"axes": 1}, "value"),
    ("sg.detrend.linear", "scipy.signal.detrend", [(F32, A2)], {"axis": 1}, "value"),
    ("sg.detrend.constant", "scipy.signal.detrend", [(F32, A2)], {"axis": 0, "type": "constant"}, "value"),
    ("sg.detrend.bp", "scipy.signal.detrend", [(F32, SIG[:20])], {"bp": [5, 12]}, "value"),
    ("sg.stft", "scipy.signal.stft", [(F32, SIG)], {"fs": 10.0, "nperseg": 32}, "value"),
    ("sg.stft.axis0", "scipy.signal.stft", [(F32, [list(r) for r in zip(*A2)])], {"nperseg": 4, "axis": 0}, "value"),
    ("sg.stft.even", "scipy.signal.stft", [(F32, SIG[:50])], {"nperseg": 16, "boundary": "even", "noverlap": 10},
     "value"),
    ("sg.welch", "scipy.signal.welch", [(F32, SIG)], {"fs": 2.0, "nperseg": 64}, "value"),
    ("sg.welch.median", "scipy.signal.welch", [(F32, SIG)], {"nperseg": 50, "noverlap": 10, "average": "median"},
     "value"),
    ("sg.welch.linear", "scipy.signal.welch", [(F32, SIG)], {"nperseg": 40, "detrend": "linear", "nfft": 64},
     "value"),
    ("sg.csd", "scipy.signal.csd", [(F32, SIG), (F32, SIG2)], {"nperseg": 40, "scaling": "spectrum"}, "value"),
    ("sg.istft", "scipy.signal.istft", [("complex64", [[complex(_m.cos(i + 2 * j), _m.sin(i * j) * (0 < i < 16))
                                                        for j in range(9)] for i in range(17)])],
     {"nperseg": 32}, "value"),
]

# ---------------------------------------------------------------- fft, integrate, ndimage
M25 = [[(i * 5 + j) ** 1.5 for j in range(5)] for i in range(2)]
for norm in [None, "ortho"]:
    CASES += [
        (f"fft.dct.{norm}", "scipy.fft.dct", [(F32, M25)], {"norm": norm}, "value"),
        (f"fft.idct.{norm}", "scipy.fft.idct", [(F32, M25)], {"norm": norm}, "value"),
        (f"fft.dctn.{norm}", "scipy.fft.dctn", [(F32, M25)], {"norm": norm, "s": [3, 4]}, "value"),
        (f"fft.idctn.{norm}", "scipy.fft.idctn", [(F32, M25)], {"norm": norm, "axes": [0]}, "value"),
    ]
CASES += [
    ("fft.dct.n_axis0", "scipy.fft.dct", [(F32, M25)], {"n": 3, "axis": 0}, "value"),
    ("fft.dct.int", "scipy.fft.dct", [("int32", [0, 1, 2, 3])], {}, "value"),
    ("fft.dct.forward", "scipy.fft.dct", [(F32, [1.0, 2.0])], {"norm": "forward"}, "value"),
    ("fft.dct.type3", "scipy.fft.dct", [(F32, [1.0, 2.0])], {"type": 3}, "value"),
    ("fft.dct.small", "scipy.fft.dct", [(F32, [1.0, 2.0, 3.0])], {}, "value"),
    ("int.trapezoid", "scipy.integrate.trapezoid", [(F32, M25)], {"dx": 0.5}, "value"),
    ("int.trapezoid.x", "scipy.integrate.trapezoid", [(F32, M25), (F32, [0.0, 0.5, 2.0, 2.5, 4.0])], {}, "value"),
]
IMG = [[float(i * 4 + j) for j in range(4)] for i in range(3)]
COORDS = [(F32, [-1.5, 0.2, 1.7, 2.5, 3.9, 0.5]), (F32, [0.5, -0.7, 3.2, 1.5, 4.4, -2.5])]
for mode in ["constant", "nearest", "wrap", "mirror", "reflect"]:
    for order in [0, 1]:
        CASES.append((f"nd.map_coordinates.{mode}.{order}", "scipy.ndimage.map_coordinates", [(F32, IMG), COORDS, order],
                      {"mode": mode, "cval": -1.0}, "value"))
CASES += [
    ("nd.map_coordinates.int", "scipy.ndimage.map_coordinates", [("int32", IMG), COORDS, 1], {}, "value"),
    ("nd.map_coordinates.order3", "scipy.ndimage.map_coordinates", [(F32, IMG), COORDS, 3], {}, "value"),
]

# ---------------------------------------------------------------- scipy.linalg
SQ = [[4.0, 1.0, -2.0, 0.5], [1.0, 3.0, 0.0, 1.0], [0.5, -1.0, 2.0, 0.3], [0.2, 0.4, -0.6, 1.5]]
SQ3 = [[1.0, 2.0, 0.0], [0.5, -1.0, 0.3], [0.2, 0.1, 0.5]]
CASES += [
    ("la.circulant", "scipy.linalg.circulant", [(F32, [1.0, 2.0, 3.0, 4.0])], {}, "value"),
    ("la.circulant.batch", "scipy.linalg.circulant", [(F32, [[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])], {}, "value"),
    ("la.toeplitz", "scipy.linalg.toeplitz", [(F32, [1.0, 2.0, 3.0])], {}, "value"),
    ("la.toeplitz.r", "scipy.linalg.toeplitz", [(F32, [1.0, 2.0, 3.0]), (F32, [1.0, 5.0, 6.0, 7.0])], {}, "value"),
    ("la.toeplitz.complex", "scipy.linalg.toeplitz", [("complex64", [1.0, 2j, 3.0])], {}, "value"),
    ("la.hankel", "scipy.linalg.hankel", [(F32, [1.0, 2.0, 3.0])], {}, "value"),
    ("la.hankel.r", "scipy.linalg.hankel", [(F32, [1.0, 2.0, 3.0]), (F32, [9.0, 5.0, 6.0, 7.0])], {}, "value"),
    ("la.companion", "scipy.linalg.companion", [(F32, [2.0, -3.0, 1.0, 5.0])], {}, "value"),
    ("la.companion.int", "scipy.linalg.companion", [("int32", [1, -3, 2])], {}, "value"),
    ("la.fiedler", "scipy.linalg.fiedler", [(F32, [1.0, 4.0, 12.0, 45.0])], {}, "value"),
    ("la.fiedler_companion", "scipy.linalg.fiedler_companion", [(F32, [1.0, -2.0, 3.0, -4.0, 5.0, 0.5])], {}, "value"),
    ("la.fiedler_companion.2", "scipy.linalg.fiedler_companion", [(F32, [2.0, 3.0])], {}, "value"),
    ("la.leslie", "scipy.linalg.leslie", [(F32, [0.1, 2.0, 1.0, 0.1]), (F32, [0.2, 0.8, 0.7])], {}, "value"),
    ("la.dft", "scipy.linalg.dft", [4], {}, "value"),
    ("la.dft.sqrtn", "scipy.linalg.dft", [5], {"scale": "sqrtn"}, "value"),
    ("la.dft.n", "scipy.linalg.dft", [3], {"scale": "n"}, "value"),
    ("la.hadamard", "scipy.linalg.hadamard", [4], {}, "value"),
    ("la.hadamard.f32", "scipy.linalg.hadamard", [2], {"dtype": "float32"}, "value"),
    ("la.helmert", "scipy.linalg.helmert", [4], {}, "value"),
    ("la.helmert.full", "scipy.linalg.helmert", [3], {"full": True}, "value"),
    ("la.hilbert", "scipy.linalg.hilbert", [4], {}, "value"),
    ("la.invhilbert", "scipy.linalg.invhilbert", [4], {}, "value"),
    ("la.pascal", "scipy.linalg.pascal", [4], {}, "value"),
    ("la.pascal.lower", "scipy.linalg.pascal", [4], {"kind": "lower"}, "value"),
    ("la.pascal.upper", "scipy.linalg.pascal", [4], {"kind": "upper"}, "value"),
    ("la.invpascal", "scipy.linalg.invpascal", [4], {}, "value"),
    ("la.invpascal.lower", "scipy.linalg.invpascal", [4], {"kind": "lower"}, "value"),
    ("la.invpascal.upper", "scipy.linalg.invpascal", [4], {"kind": "upper"}, "value"),
    ("la.hessenberg", "scipy.linalg.hessenberg", [(F32, SQ)], {}, "value"),
    ("la.hessenberg.q", "scipy.linalg.hessenberg", [(F32, SQ)], {"calc_q": True}, "value"),
    ("la.expm_frechet", "scipy.linalg.expm_frechet", [(F32, SQ3), (F32, [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0],
                                                                        [1.0, 0.0, 0.5]])], {}, "value"),
    ("la.expm_frechet.only", "scipy.linalg.expm_frechet", [(F32, SQ3), (F32, SQ3)], {"compute_expm": False}, "value"),
    ("la.solve_sylvester", "scipy.linalg.solve_sylvester", [(F32, SQ), (F32, SQ3), (F32, [[1.0, 2.0, 3.0]] * 4)],
     {}, "value"),
    ("la.eigh_tridiagonal", "scipy.linalg.eigh_tridiagonal", [(F32, [2.0, 3.0, 1.0, 4.0]), (F32, [0.5, -1.0, 0.3])],
     {"eigvals_only": True}, "value"),
    ("la.eigh_tridiagonal.vectors", "scipy.linalg.eigh_tridiagonal", [(F32, [2.0, 3.0]), (F32, [0.5])], {}, "value"),
    ("la.rsf2csf", "scipy.linalg.rsf2csf", [(F32, [[1.0, 2.0, 0.5], [-3.0, 1.0, 0.2], [0.0, 0.0, 4.0]]),
                                            (F32, [[1.0, 0.0, 0.0], [0.0, 0.6, -0.8], [0.0, 0.8, 0.6]])], {}, "value"),
    ("la.rsf2csf.upper", "scipy.linalg.rsf2csf", [(F32, [[1.0, 2.0], [0.0, 3.0]]), (F32, [[1.0, 0.0], [0.0, 1.0]])],
     {}, "value"),
    ("la.qr_multiply", "scipy.linalg.qr_multiply", [(F32, SQ), (F32, SQ3[:2] + [[1.0, 1.0, 1.0], [0.0, 2.0, 1.0]])],
     {"mode": "left"}, "value"),
    ("la.qr_multiply.right", "scipy.linalg.qr_multiply", [(F32, SQ), (F32, [[1.0, 2.0, 3.0, 4.0]])], {}, "value"),
    ("la.convolution_matrix", "scipy.linalg.convolution_matrix", [(F32, [1.0, 2.0, -1.0]), 5], {}, "value"),
    ("la.convolution_matrix.same", "scipy.linalg.convolution_matrix", [(F32, [1.0, 2.0, -1.0, 4.0]), 5],
     {"mode": "same"}, "value"),
    ("la.convolution_matrix.valid", "scipy.linalg.convolution_matrix", [(F32, [1.0, 2.0, -1.0]), 5],
     {"mode": "valid"}, "value"),
    ("la.convolution_matrix.small", "scipy.linalg.convolution_matrix", [(F32, [1.0, 2.0, -1.0, 3.0]), 2],
     {"mode": "same"}, "value"),
]

# ---------------------------------------------------------------- scipy.special
POS = [0.0, 1e-4, 0.1, 0.5, 1.0, 1.5, 3.0, 10.0, 35.0, 45.0, 80.0, INF, NAN]
REALS = [-INF, -30.0, -5.0, -1.0, -0.1, 0.0, 0.3, 1.0, 1.9, 2.1, 5.0, 30.0, 1e4, INF, NAN]
CASES += [
    ("sp.bernoulli", "scipy.special.bernoulli", [10], {}, "value"),
    ("sp.exp1", "scipy.special.exp1", [(F32, [-1.0] + POS)], {}, "value"),
    ("sp.expi", "scipy.special.expi", [(F32, [-40.0, -3.0, -0.5] + POS)], {}, "value"),
    ("sp.erfcx", "scipy.special.erfcx", [(F32, REALS)], {}, "value"),
    ("sp.exp1.grad", "scipy.special.exp1", [(F32, [0.3, 1.0, 2.0, 5.0])], {}, "grad"),
    ("sp.erfcx.grad", "scipy.special.erfcx", [(F32, [-1.0, 0.5, 1.9, 2.5, 10.0])], {}, "grad"),
]
